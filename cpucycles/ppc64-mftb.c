/* mftb on 64-bit PowerPC: the whole 64-bit time base in one read.  An
   off-core clock; its rate comes from ppc-timebase.h. */
#include "ppc-timebase.h"

long long ticks(void)
{
  long long t;
  __asm__ __volatile__("mftb %0" : "=r"(t));
  return t;
}

long long ticks_setup(struct cpucycles_probe *probe)
{
  return ppc_timebase_setup(probe);
}

void ticks_close(void)
{
}
