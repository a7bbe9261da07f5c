/* After selection: 8 threads x 10^6 calls never see a count go backwards
   on the same CPU, and a forked child's counts still advance sanely. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cpucycles.h>
#include "check.h"

#define THREADS 8
#define CALLS 1000000 /* a tenth under emulation (scripts/test) */
static long calls = CALLS;

static long long backwards[THREADS];

static void *hammer(void *arg)
{
  long i, me = (long) arg;
  int cpu = sched_getcpu();
  long long last = cpucycles();
  for (i = 0; i < calls; ++i) {
    long long now = cpucycles();
    int here = sched_getcpu();
    if (now < last && here == cpu) ++backwards[me];
    last = now;
    cpu = here;
  }
  return 0;
}

static int zero_counter(void)
{
  return !strcmp(cpucycles_implementation(), "default-zero");
}

int main(void)
{
  pthread_t t[THREADS];
  long i;
  long long total = 0;
  int status;
  pid_t pid;

  if (getenv("CPUCYCLES_TEST_EMULATED")) calls = CALLS / 10;
  cpucycles();
  for (i = 0; i < THREADS; ++i) pthread_create(&t[i], 0, hammer, (void *) i);
  for (i = 0; i < THREADS; ++i) pthread_join(t[i], 0);
  for (i = 0; i < THREADS; ++i) total += backwards[i];
  check(total == 0, "stress_8_threads_never_backwards_on_one_cpu",
        "%lld decreases on the same CPU", total);

  /* fork after selection: the child uses the same counter */
  pid = fork();
  if (pid == 0) {
    struct timespec pause = { 0, 20000000 };
    long long a = cpucycles(), b;
    double seconds;
    nanosleep(&pause, 0);
    b = cpucycles();
    seconds = (double) (b - a) / (double) cpucycles_persecond();
    /* 20 ms asleep: allow a slow machine (or qemu) up to 2 s */
    _exit(zero_counter() ? 3 : b <= a ? 1 : seconds < 0.015 || seconds > 2 ? 2 : 0);
  }
  waitpid(pid, &status, 0);
  if (zero_counter()) {
    skip("fork_child_counts_advance", "default-zero was chosen");
  } else {
    check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "fork_child_counts_advance",
          "child status %d (1: stuck, 2: not about 20 ms)", status);
  }
  return checks_failed();
}
