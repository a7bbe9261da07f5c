/* Which perf fds does selection leave open, and does a child started with
   fork+exec inherit any?  Linked with tests/fakeos.c, the OS seam tests
   play: this machine may have no PMU, so every cycles event is swapped for
   a software clock event the kernel always has, with the library's own
   flags (CLOEXEC) untouched.  The perf counters then really open, map and
   close fds, and the kernel really honours or ignores the close-on-exec.
   Modes: "software" runs the normal selection; "perfonly" runs the
   selection rule over the perf counters alone (and default-zero), so a
   perf counter is chosen and keeps its fds open across the exec, and
   plays a hybrid Intel (an E-core PMU in sysfs), so each perf counter
   opens two events, on every vendor: a fault injected from the second
   call on then always meets a call to fail.
   Prints "perffds N implementation NAME" (N: perf fds open after
   selection) and, from the child, "child N". */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "cpucycles.h"
#include "internal.h"
#include "fakeos.h"
#include "serve.h"
#include "perf-fds.h"

/* the E-core PMU's type as a hybrid Intel's sysfs gives it (any number:
   fake_software_cycles swaps the event anyway) */
#define ATOM_TYPE_FILE "/sys/bus/event_source/devices/cpu_atom/type"

static long hybrid_read_text(const char *path, long offset, char *buf, size_t size)
{
  if (!strcmp(path, ATOM_TYPE_FILE)) return serve_text("10\n", offset, buf, size);
  return real_read_text(path, offset, buf, size);
}


int main(int argc, char **argv)
{
  const char *chosen;
  pid_t child;
  int status;
  if (argc > 1 && !strcmp(argv[1], "child")) {
    printf("child %d\n", perf_fds());
    return 0;
  }
  if (argc > 1) fake_os.perf_event_open = fake_software_cycles;
  if (argc > 1 && !strcmp(argv[1], "perfonly")) {
    static struct cpucycles_counter table[CPUCYCLES_MAXCOUNTERS];
    static struct cpucycles_selection s;
    int i, n = 0;
    fake_os.read_text = hybrid_read_text;
    for (i = 0; i < cpucycles_counter_count && n < CPUCYCLES_MAXCOUNTERS; ++i)
      if (strstr(cpucycles_counters[i].name, "perf") || i == cpucycles_counter_count - 1)
        table[n++] = cpucycles_counters[i];
    cpucycles_select(table, n, vsnprintf, &s);
    s.read(); /* a perf counter opens this thread's events on its first read */
    chosen = table[s.chosen].name;
  } else {
    (void) cpucycles();
    chosen = cpucycles_implementation();
  }
  printf("perffds %d implementation %s\n", perf_fds(), chosen);
  fflush(stdout);
  child = fork();
  if (child == 0) {
    execl("/proc/self/exe", argv[0], "child", (char *) 0);
    _exit(127);
  }
  if (child < 0 || waitpid(child, &status, 0) != child) return 1;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
