/* RDTSC through inline assembly on 32-bit x86: "=A" is the edx:eax pair. */
#include "x86.h"

long long ticks_setup(struct cpucycles_probe *probe)
{
  probe->twin = "x86-tsc";
  return cpucycles_x86_tsc_probe(probe);
}

long long ticks(void)
{
  long long t;
  __asm__ __volatile__("rdtsc" : "=A"(t));
  return t;
}

void ticks_close(void)
{
}
