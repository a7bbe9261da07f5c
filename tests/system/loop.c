/* make test-system: one fixed loop measured with whichever counter
   CPUCYCLES_IMPLEMENTATION names; the host compares the counters.
   Argument: the CPU rate to state (cpucyclespersecond), which scales an
   off-core counter such as arm64-vct.  Prints
     loop IMPLEMENTATION median C of 9 (min A max B) per-us R
   with C the median count of 9 runs of the loop, and R the median of
   each run's count per microsecond of CLOCK_MONOTONIC: under TCG a busy
   host lengthens a run in the counts and in the clock alike, so R holds
   still where C does not. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "cpucycles.h"

#define RUNS 9
#define ITERATIONS 2000000

static volatile long sink;

static int compare(const void *a, const void *b)
{
  long long x = *(const long long *) a, y = *(const long long *) b;
  return (x > y) - (x < y);
}

static long long ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
  long long t[RUNS], rate[RUNS];
  int r;
  long i;
  if (argc > 1) setenv("cpucyclespersecond", argv[1], 1);
  cpucycles();
  for (r = 0; r < RUNS; ++r) {
    long long t0 = ns(), start = cpucycles(), t1;
    for (i = 0; i < ITERATIONS; ++i) sink += i;
    t[r] = cpucycles() - start;
    t1 = ns();
    rate[r] = t1 > t0 ? t[r] * 1000 / (t1 - t0) : 0;
  }
  qsort(t, RUNS, sizeof t[0], compare);
  qsort(rate, RUNS, sizeof rate[0], compare);
  printf("loop %s median %lld of %d (min %lld max %lld) per-us %lld\n", cpucycles_implementation(), t[RUNS / 2], RUNS,
         t[0], t[RUNS - 1], rate[RUNS / 2]);
  return 0;
}
