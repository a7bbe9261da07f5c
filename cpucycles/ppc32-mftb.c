/* mftbu and mftb on 32-bit PowerPC: the time base in two halves
   (CPUCYCLES_HALVES in counter.h).  An off-core clock; its rate comes
   from ppc-timebase.h. */
#include "ppc-timebase.h"

long long ticks(void)
{
  CPUCYCLES_HALVES("mftbu", "mftb");
}

long long ticks_setup(struct cpucycles_probe *probe)
{
  return ppc_timebase_setup(probe);
}

void ticks_close(void)
{
}
