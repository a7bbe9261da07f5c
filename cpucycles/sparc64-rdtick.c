/* rd %tick, the SPARC V9 TICK register: counts core cycles.  Linux leaves
   it readable from user code (TICK.NPT clear); other kernels may not. */
#include "counter.h"

long long ticks(void)
{
  long long t;
  __asm__ __volatile__("rd %%tick, %0" : "=r"(t));
  return t;
}

long long ticks_setup(struct cpucycles_probe *probe)
{
  probe->may_trap = 1; /* TICK.NPT set: the read traps */
  return CPUCYCLES_CYCLECOUNTER;
}

void ticks_close(void)
{
}
