/* RDTSC through inline assembly (same counter as amd64-tsc, for compilers
   without __rdtsc). */
#include "counter.h"
#include "x86.h"

long long ticks_setup(void)
{
  return cpucycles_x86_tsc_class();
}

long long ticks(void)
{
  unsigned long long lo, hi;
  __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
  return (long long) ((hi << 32) | lo);
}

void ticks_close(void)
{
}
