/* The read functions cpucycles() may point at besides a counter's own
   ticks: an off-core clock scaled to cycles, and a 32-bit counter extended
   to 64 bits.  What they need is set at selection, before the release
   store of cpucycles; each read loads cpucycles again with acquire, so a
   thread that found it already set (the caller's plain load) sees the
   setting whole (on x86 a plain load; arm64 and POWER could otherwise
   show it stale).
   The precision test reads through a setting of its own, which no other
   thread can reach: a candidate's scaling is never what another thread
   sees. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>
#include "cpucycles.h"
#include "internal.h"

#define WRAP 4294967296.0

struct reading {
  long long (*raw)(void);
  unsigned long long mult; /* scaled: base + (ticks - from) * mult >> shift */
  int shift;
  long long from, base;
  long long sec0, per_second; /* the monotonic clock: seconds apart from nanoseconds */
  double ticks_per_ns;        /* extended: the counter's rate, and its start */
  long long start_value, start_ns;
};
static struct reading trial, used; /* the precision test's; the chosen counter's */

static const struct reading *reading(void)
{
  (void) __atomic_load_n(&cpucycles, __ATOMIC_ACQUIRE);
  return &used;
}

/* In integers as kernel clocksources scale: 32 significant bits of the
   scaling, and no overflow for any gap whose result fits (the product is
   taken in two 32-bit halves).  from is the ticks seen at selection; base
   is from scaled (modulo 2^62), so that two processes get comparable
   counts. */
static unsigned long long scale_up(const struct reading *r, unsigned long long d)
{
  unsigned long long hi = (d >> 32) * r->mult, lo = (d & 0xffffffffULL) * r->mult;
  return (hi << (32 - r->shift)) + (lo >> r->shift);
}

static long long scaled(const struct reading *r)
{
  unsigned long long d = (unsigned long long) (r->raw() - r->from);
  if (d < 1ULL << 32) return r->base + (long long) ((d * r->mult) >> r->shift); /* the usual gap */
  return r->base +
         ((long long) d >= 0 ? (long long) scale_up(r, d) : -(long long) scale_up(r, 0ULL - d));
}

/* default-monotonic: the clock read here rather than through its ticks(),
   a call less per read.  Whole seconds scale exactly; nanoseconds
   (below 2^30) times mult (below 2^32) cannot overflow, and their error
   stays below one cycle per second's step, so counts never go back. */
static long long clock_scaled(const struct reading *r)
{
  struct timespec t;
  if (clock_gettime(CLOCK_MONOTONIC, &t) != 0) return r->base;
  return r->base + (t.tv_sec - r->sec0) * r->per_second +
         (long long) (((unsigned long long) t.tv_nsec * r->mult) >> r->shift);
}

long long cpucycles_read_scaled(void) { return scaled(reading()); }
long long cpucycles_read_clock(void) { return clock_scaled(reading()); }
static long long trial_scaled(void) { return scaled(&trial); }
static long long trial_clock(void) { return clock_scaled(&trial); }

/* A 32-bit counter extended to 64 bits: the clock says how many ticks
   should have passed since this thread's previous read, at the counter's
   own rate measured at selection, which says how many times the low 32
   bits wrapped. */
static CPUCYCLES_THREAD long long last_value, last_ns;
static CPUCYCLES_THREAD int last_set;

long long cpucycles_read_extended(void)
{
  const struct reading *r = reading();
  unsigned long long low = (unsigned long long) r->raw() & 0xffffffffULL;
  long long now = cpucycles_os_nanoseconds();
  long long value = last_set ? last_value : r->start_value, then = last_set ? last_ns : r->start_ns;
  long long moved = (long long) ((low - (unsigned long long) value) & 0xffffffffULL);
  double wraps = ((double) (now - then) * r->ticks_per_ns - (double) moved) / WRAP + 0.5;

  value += moved + (wraps < 1 ? 0 : (long long) wraps) * 4294967296LL;
  last_value = value;
  last_ns = now;
  last_set = 1;
  return value;
}

/* Sets r to scale ticks and returns the read through it: ticks itself at
   scaling 1, the monotonic clock read directly where clock says ticks is it */
static long long (*set_scale(struct reading *r, long long (*ticks)(void), double scaling,
                             int clock))(void)
{
  struct timespec t;
  if (scaling == 1) return ticks;
  r->raw = ticks;
  for (r->shift = 32; r->shift > 0 && scaling * (double) (1ULL << r->shift) >= WRAP; --r->shift)
    continue;
  r->mult = (unsigned long long) (scaling * (double) (1ULL << r->shift) + 0.5);
  if (clock && clock_gettime(CLOCK_MONOTONIC, &t) == 0) {
    r->sec0 = t.tv_sec;
    r->per_second = (long long) (scaling * 1e9 + 0.5);
    r->base = (long long) (((unsigned long long) t.tv_sec * (unsigned long long) r->per_second) &
                           ((1ULL << 62) - 1));
    return r == &trial ? trial_clock : cpucycles_read_clock;
  }
  r->from = ticks();
  /* positive, and the same in every process (the product mod 2^64 is exact) */
  r->base = r->from > 0
                ? (long long) (scale_up(r, (unsigned long long) r->from) & ((1ULL << 62) - 1))
                : 0;
  return r == &trial ? trial_scaled : cpucycles_read_scaled;
}

long long (*cpucycles_read_trial(long long (*ticks)(void), double scaling, int clock))(void)
{
  return set_scale(&trial, ticks, scaling, clock);
}

long long (*cpucycles_read_use(long long (*ticks)(void), double scaling, int only32, double hz,
                               int clock))(void)
{
  /* the caller's release store of cpucycles publishes used */
  if (!only32) return set_scale(&used, ticks, scaling, clock);
  used.raw = ticks;
  used.ticks_per_ns = hz / 1e9;
  used.start_value = (long long) ((unsigned long long) ticks() & 0xffffffffULL);
  used.start_ns = cpucycles_os_nanoseconds();
  last_set = 0;
  return cpucycles_read_extended;
}
