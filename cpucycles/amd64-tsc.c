/* RDTSC through the compiler's __rdtsc().  An off-core clock on current
   CPUs: a fixed rate when CPUID states one, otherwise maybe cycles. */
#include "x86.h"
/* gcc and clang: the builtin behind __rdtsc(), without parsing
   x86intrin.h, which took 0.5 s of each build's 3 s of CPU */
#ifdef __GNUC__
#define rdtsc() __builtin_ia32_rdtsc()
#else
#include <x86intrin.h>
#define rdtsc() __rdtsc()
#endif

long long ticks_setup(struct cpucycles_probe *probe)
{
  return cpucycles_x86_tsc_probe(probe);
}

long long ticks(void)
{
  return (long long) rdtsc();
}

void ticks_close(void)
{
}
