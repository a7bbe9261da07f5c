/* mach_absolute_time() on macOS and other Mach systems, at the rate that
   mach_timebase_info states. */
#include <mach/mach_time.h>
#include "counter.h"

long long ticks_setup(struct cpucycles_probe *probe)
{
  mach_timebase_info_data_t base;
  if (mach_timebase_info(&base) != 0 || !base.numer || !base.denom) {
    cpucycles_say(probe, "mach_timebase_info failed");
    return CPUCYCLES_SKIP;
  }
  cpucycles_say(probe, "rate from mach_timebase_info");
  /* one tick is numer/denom nanoseconds */
  return 1000000000LL * base.denom / base.numer;
}

long long ticks(void)
{
  return (long long) mach_absolute_time();
}

void ticks_close(void)
{
}
