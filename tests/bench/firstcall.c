/* Time of the first cpucycles() call (the whole selection), in ns. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>
#include <cpucycles.h>

static long long ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(void)
{
  long long t0 = ns(), t1;
  cpucycles();
  t1 = ns();
  printf("%lld %s\n", t1 - t0, cpucycles_implementation());
  return 0;
}
