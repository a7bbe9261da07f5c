/* The ARM1176 cycle counter (cp15 c15/c12/1), 32 bits.  Readable from user
   code only after a kernel module allows it; otherwise SIGILL, which the
   guard catches. */
#include "counter.h"

long long ticks(void)
{
  unsigned int t;
  __asm__ __volatile__("mrc p15, 0, %0, c15, c12, 1" : "=r"(t));
  return t;
}

long long ticks_setup(void)
{
  ticks();
  return CPUCYCLES_EXTEND32;
}

void ticks_close(void)
{
}
