/* Intel, without perf: RDPMC of fixed-function counter 1 where the OS
   already lets user code run RDPMC and keeps that counter counting (for
   example a kernel module, or rdpmc set to 2 while someone else's perf
   event runs).  Where it does not, RDPMC faults (the crash guard catches
   it) or the counter stands still (the precision test drops it). */
#include "counter.h"
#include "x86.h"

long long ticks_setup(void)
{
  const struct cpucycles_x86_facts *cpu = cpucycles_x86_facts();
  if (cpu->vendor != CPUCYCLES_X86_INTEL) {
    cpucycles_counter_says("not an Intel CPU (fixed-function counter 0x40000001 is Intel's)");
    return CPUCYCLES_SKIP;
  }
  if (cpu->pmc_version < 2 || cpu->fixed_counters < 2) {
    cpucycles_counter_says("CPUID leaf 0xA lists no fixed-function counter 1");
    return CPUCYCLES_SKIP;
  }
  /* the probe: faults here, inside the crash guard, if RDPMC is off */
  (void) cpucycles_x86_rdpmc(CPUCYCLES_X86_FIXED_CYCLES);
  return CPUCYCLES_CYCLECOUNTER;
}

long long ticks(void)
{
  return (long long) cpucycles_x86_rdpmc(CPUCYCLES_X86_FIXED_CYCLES);
}

void ticks_close(void)
{
}
