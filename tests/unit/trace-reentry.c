/* cpucycles_tracesetup() at awkward moments (wrapper/cpucycles.c):
   - from the program's handler of a synchronous signal that arrives in
     this thread's persecond estimate (the first cpucycles_persecond()
     after a selection that made none): it returns and prints nothing
     (api.md), where it printed a trace without a persecond source and
     crashed on it;
   - from another thread while the first call selects: the trace is
     printed once, where both threads printed it.
   The counter is named (amd64-tsc, tick for tick) so that the selection
   makes no persecond; the rate's files are the test's (tests/fakeos.c). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "cpucycles.h"
#include "fakeos.h"

/* a counter read tick for tick where the rule takes it alone */
#if defined(__x86_64__)
static const char *unscaled = "amd64-tsc";
#elif defined(__i386__)
static const char *unscaled = "x86-tsc";
#else
static const char *unscaled; /* none known here */
#endif

static int armed, fired, returned;

static void on_sigsys(int sig)
{
  (void) sig;
  cpucycles_tracesetup();
  returned = 1;
}

static long trapping_read(const char *path, long offset, char *buf, size_t size)
{
  if (armed) {
    armed = 0;
    fired = 1;
    raise(SIGSYS); /* a synchronous signal: the library leaves it unblocked */
  }
  return real_read_text(path, offset, buf, size);
}

static const char *wanted(const char *name)
{
  if (!strcmp(name, "CPUCYCLES_IMPLEMENTATION")) return unscaled;
  if (!strcmp(name, "CPUCYCLES_TRACE_REASONS")) return "1";
  return getenv(name);
}

/* stdout into a temporary file around fn; the lines that start with
   prefix are counted */
static int lines_of(void (*fn)(void), const char *prefix)
{
  FILE *f = tmpfile();
  int saved = dup(1), n = 0;
  char line[512];
  if (!f || saved < 0) return -1;
  fflush(stdout);
  dup2(fileno(f), 1);
  fn();
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  rewind(f);
  while (fgets(line, sizeof line, f)) n += !strncmp(line, prefix, strlen(prefix));
  fclose(f);
  return n;
}

static long long persecond;

static void persecond_trapped(void)
{
  cpucycles();
  fake_os.read_text = trapping_read;
  armed = 1;
  persecond = cpucycles_persecond();
}

static void handler_in_persecond(void)
{
  int printed;
  signal(SIGSYS, on_sigsys);
  printed = lines_of(persecond_trapped, "cpucycles ");
  if (!fired) {
    skip("trace_handler_in_persecond", "no rate file was read after the first call");
    return;
  }
  check(returned && printed == 0 && persecond > 0 &&
            !strcmp(cpucycles_implementation(), unscaled),
        "trace_handler_in_persecond_prints_nothing",
        "handler returned %d, %d trace lines, persecond %lld, counter %s", returned, printed,
        persecond, cpucycles_implementation());
}

/* ---- the second thread ---- */

static pthread_t other;
static int other_started;

static void *ask_trace(void *unused)
{
  (void) unused;
  cpucycles_tracesetup();
  return 0;
}

/* inside the selection: the other thread asks for the trace, and waits */
static const char *asking(const char *name)
{
  if (!strcmp(name, "CPUCYCLES_IMPLEMENTATION") && !other_started) {
    other_started = pthread_create(&other, 0, ask_trace, 0) == 0;
    usleep(100000);
  }
  return wanted(name);
}

static void first_call_while_asked(void)
{
  cpucycles();
  if (other_started) pthread_join(other, 0);
}

int main(int argc, char **argv)
{
  int printed;
  if (!unscaled) {
    skip("trace_reentry", "no counter here is known to need no persecond");
    return 0;
  }
  fake_os.getenv = argc > 1 ? asking : wanted;
  if (argc == 1) {
    handler_in_persecond();
    /* the second case in a fresh process: this one's first call is made */
    fflush(stdout);
    execl("/proc/self/exe", argv[0], "threads", (char *) 0);
    skip("trace_asked_while_selecting", "cannot run this program again");
    return checks_failed();
  }
  printed = lines_of(first_call_while_asked, "cpucycles tracesetup 0 ");
  check(other_started && printed == 1, "trace_asked_while_selecting_printed_once",
        "the other thread %s; %d first lines of the trace", other_started ? "asked" : "did not start",
        printed);
  return checks_failed();
}
