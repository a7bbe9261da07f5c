/* The ARM1176 cycle counter (cp15 c15/c12/1), 32 bits.  Readable from user
   code only after a kernel module allows it; otherwise the read traps. */
#include "counter.h"

long long ticks(void)
{
  unsigned int t;
  __asm__ __volatile__("mrc p15, 0, %0, c15, c12, 1" : "=r"(t));
  return t;
}

long long ticks_setup(struct cpucycles_probe *probe)
{
  probe->may_trap = 1;
  return CPUCYCLES_EXTEND32;
}

void ticks_close(void)
{
}
