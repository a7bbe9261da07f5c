/* mftb on 64-bit PowerPC: the whole 64-bit time base in one read.  An
   off-core clock; its rate comes from wrapper/timebase.c. */
#include "counter.h"
#include "timebase.h"

long long ticks(void)
{
  long long t;
  __asm__ __volatile__("mftb %0" : "=r"(t));
  return t;
}

long long ticks_setup(void)
{
  ticks();
  return cpucycles_timebase_class();
}

void ticks_close(void)
{
}
