/* mftbu and mftb on 32-bit PowerPC: the time base in two halves.  The
   upper half is read before and after the lower one; when they differ the
   lower half carried in between, so we read again.  An off-core clock; its
   rate comes from ppc-timebase.h. */
#include "ppc-timebase.h"

long long ticks(void)
{
  unsigned int hi, lo, again;
  do {
    __asm__ __volatile__("mftbu %0" : "=r"(hi));
    __asm__ __volatile__("mftb %0" : "=r"(lo));
    __asm__ __volatile__("mftbu %0" : "=r"(again));
  } while (hi != again);
  return (long long) (((unsigned long long) hi << 32) | lo);
}

long long ticks_setup(struct cpucycles_probe *probe)
{
  return ppc_timebase_setup(probe);
}

void ticks_close(void)
{
}
