/* rd %tick, the SPARC V9 TICK register: counts core cycles.  Linux leaves
   it readable from user code (TICK.NPT clear). */
#include "counter.h"

long long ticks(void)
{
  long long t;
  __asm__ __volatile__("rd %%tick, %0" : "=r"(t));
  return t;
}

long long ticks_setup(void)
{
  ticks();
  return CPUCYCLES_CYCLECOUNTER;
}

void ticks_close(void)
{
}
