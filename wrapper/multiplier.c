/* FINDMULTIPLIER (SPEC 3 step 2): an off-core clock of unknown rate is
   timed against the monotonic clock; persecond divided by its rate must be
   close to n/d for a small power-of-two d, the same in every estimate. */
#include "internal.h"
#include "os.h"

#define MULTIPLIER_ESTIMATES 3
#define MULTIPLIER_WINDOW_NS 1000000LL /* 1 ms per estimate bounds the cost */
#define MULTIPLIER_SLOP 0.2
#define MULTIPLIER_MAXDENOMINATOR 1024
#define ENDPOINT_SLACK_NS 5000 /* an endpoint read this long is retried ... */
#define ENDPOINT_TRIES 8       /* ... a few times */

/* One endpoint of a window: the counter read between two clock reads, so
   that a preemption right there (common when other threads are busy)
   shows as a wide bracket and is read again instead of skewing the rate. */
static void endpoint(long long (*raw)(void), long long *ticks, long long *ns)
{
  long long before = 0;
  int try;
  for (try = 0; try < ENDPOINT_TRIES; ++try) {
    before = cpucycles_os.nanoseconds();
    *ticks = raw();
    *ns = cpucycles_os.nanoseconds();
    if (*ns - before <= ENDPOINT_SLACK_NS) break;
  }
  *ns -= (*ns - before) / 2;
}

static double nearest(double x)
{
  return (double) (long long) (x + 0.5);
}

double cpucycles_find_multiplier(long long (*raw)(void), long long persecond)
{
  double ratio[MULTIPLIER_ESTIMATES];
  int i, d;

  for (i = 0; i < MULTIPLIER_ESTIMATES; ++i) {
    long long t0, r0, r1, t1;
    endpoint(raw, &r0, &t0);
    do t1 = cpucycles_os.nanoseconds(); while (t1 - t0 < MULTIPLIER_WINDOW_NS);
    endpoint(raw, &r1, &t1);
    if (r1 <= r0) return 0;
    /* cycles per tick = (persecond * seconds) / ticks */
    ratio[i] = (double) persecond * (double) (t1 - t0) / 1e9 / (double) (r1 - r0);
  }

  for (d = 1; d <= MULTIPLIER_MAXDENOMINATOR; d *= 2) {
    double n = nearest(ratio[0] * d);
    int fits = n >= 1;
    for (i = 0; fits && i < MULTIPLIER_ESTIMATES; ++i) {
      double off = ratio[i] * d - n;
      if (off < -MULTIPLIER_SLOP || off > MULTIPLIER_SLOP) fits = 0;
    }
    if (fits) return n / d;
  }
  return 0;
}
