/* RDTSC through the compiler's __rdtsc().  An off-core clock on current
   CPUs: a fixed rate when CPUID states one, otherwise maybe cycles. */
#include <x86intrin.h>
#include "x86.h"

long long ticks_setup(struct cpucycles_probe *probe)
{
  return cpucycles_x86_tsc_probe(probe);
}

long long ticks(void)
{
  return (long long) __rdtsc();
}

void ticks_close(void)
{
}
