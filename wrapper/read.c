/* The functions cpucycles() may point at when a counter is not used raw:
   a scaled off-core clock, or a 32-bit counter extended to 64 bits. */
#include "internal.h"
#include "os.h"

static long long (*raw)(void);

/* Scaling: ticks * scaling, computed as an offset from the ticks seen at
   selection so that the double product stays exact for the life of the
   process (a raw TSC value times a scaling would lose the low bits after a
   few weeks of uptime).  base_out is base_in * scaling, so two processes
   still get comparable counts. */
static double scale;
static long long base_in;
static long long base_out;

long long cpucycles_read_scaled(void)
{
  return base_out + (long long) ((double) (raw() - base_in) * scale);
}

/* Extension of a 32-bit counter: the clock says how many ticks should have
   passed since this thread's previous read, which says how many times the
   low 32 bits wrapped.  Right as long as the persecond estimate is off by
   less than half a wrap period per read interval (see doc/selection.md). */
#define WRAP 4294967296.0

static double ticks_per_ns;
static long long start_value;
static long long start_ns;
static CPUCYCLES_THREAD long long last_value;
static CPUCYCLES_THREAD long long last_ns;
static CPUCYCLES_THREAD int last_set;

long long cpucycles_read_extended(void)
{
  unsigned long long low = (unsigned long long) raw() & 0xffffffffULL;
  long long now = cpucycles_os.nanoseconds();
  long long value = last_set ? last_value : start_value;
  long long then = last_set ? last_ns : start_ns;
  long long moved = (long long) ((low - (unsigned long long) value) & 0xffffffffULL);
  double expected = (double) (now - then) * ticks_per_ns;
  double wraps = (expected - (double) moved) / WRAP + 0.5;
  long long w = wraps < 1 ? 0 : (long long) wraps;

  value += moved + w * 4294967296LL;
  last_value = value;
  last_ns = now;
  last_set = 1;
  return value;
}

/* Points the read functions at a counter; selection calls it for each
   candidate and finally for the chosen one. */
void cpucycles_read_use(long long (*ticks)(void), double scaling, int only32,
                        long long persecond)
{
  raw = ticks;
  scale = scaling;
  if (only32) {
    ticks_per_ns = (double) persecond / 1e9;
    start_value = (long long) ((unsigned long long) raw() & 0xffffffffULL);
    start_ns = cpucycles_os.nanoseconds();
    last_set = 0;
  } else if (scaling) {
    base_in = raw();
    base_out = (long long) ((double) base_in * scaling);
  }
}

long long (*cpucycles_read_function(double scaling, int only32, long long (*ticks)(void)))(void)
{
  if (only32) return cpucycles_read_extended;
  if (scaling) return cpucycles_read_scaled;
  return ticks;
}
