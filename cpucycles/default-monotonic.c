/* clock_gettime(CLOCK_MONOTONIC): nanoseconds, scaled to cycles. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>
#include "counter.h"

long long ticks_setup(void)
{
  struct timespec t;
  if (clock_gettime(CLOCK_MONOTONIC, &t) != 0) {
    cpucycles_counter_says("clock_gettime(CLOCK_MONOTONIC) failed");
    return CPUCYCLES_SKIP;
  }
  cpucycles_counter_says("rate 10^9 per second: it counts nanoseconds");
  return 1000000000;
}

long long ticks(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

void ticks_close(void)
{
}
