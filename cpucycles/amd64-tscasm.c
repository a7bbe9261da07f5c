/* RDTSC through inline assembly (same counter as amd64-tsc, for compilers
   without __rdtsc). */
#include "x86.h"

long long ticks_setup(struct cpucycles_probe *probe)
{
  probe->twin = "amd64-tsc";
  return cpucycles_x86_tsc_probe(probe);
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
