/* make test-system: one fixed loop measured with whichever counter
   CPUCYCLES_IMPLEMENTATION names; the host compares the counters.
   Argument: the CPU rate to state (cpucyclespersecond), which scales an
   off-core counter such as arm64-vct.  Prints
     loop IMPLEMENTATION median C of 9 (min A max B)
   with C the median count of 9 runs of the loop. */
#include <stdio.h>
#include <stdlib.h>
#include "cpucycles.h"

#define RUNS 9
#define ITERATIONS 2000000

static volatile long sink;

static int compare(const void *a, const void *b)
{
  long long x = *(const long long *) a, y = *(const long long *) b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
  long long t[RUNS];
  int r;
  long i;
  if (argc > 1) setenv("cpucyclespersecond", argv[1], 1);
  cpucycles();
  for (r = 0; r < RUNS; ++r) {
    long long start = cpucycles();
    for (i = 0; i < ITERATIONS; ++i) sink += i;
    t[r] = cpucycles() - start;
  }
  qsort(t, RUNS, sizeof t[0], compare);
  printf("loop %s median %lld of %d (min %lld max %lld)\n", cpucycles_implementation(), t[RUNS / 2], RUNS, t[0],
         t[RUNS - 1]);
  return 0;
}
