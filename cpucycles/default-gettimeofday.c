/* gettimeofday(): microseconds, scaled to cycles.  Works almost anywhere. */
#include <sys/time.h>
#include "counter.h"

long long ticks_setup(struct cpucycles_probe *probe)
{
  cpucycles_say(probe, "rate 10^6 per second: it counts microseconds");
  return 1000000;
}

long long ticks(void)
{
  struct timeval t;
  gettimeofday(&t, 0);
  return t.tv_sec * 1000000LL + t.tv_usec;
}

void ticks_close(void)
{
}
