/* PMCCNTR of ARMv7-A (cp15 c9/c13/0): the 32-bit PMU cycle counter.  User
   code may read it only after a kernel module sets PMUSERENR; otherwise
   the read traps. */
#include "counter.h"

long long ticks(void)
{
  unsigned int t;
  __asm__ __volatile__("mrc p15, 0, %0, c9, c13, 0" : "=r"(t));
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
