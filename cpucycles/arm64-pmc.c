/* PMCCNTR_EL0, the ARMv8-A PMU cycle counter, read without perf.  Works only
   where the OS lets user code read it (PMUSERENR_EL0, set by a kernel module
   on older Linux); elsewhere the read traps and the guard sees SIGILL. */
#include "counter.h"
#include "arm64-pmccntr.h"

long long ticks(void)
{
  return arm64_pmccntr();
}

long long ticks_setup(void)
{
  ticks(); /* a trap here is caught by selection's guard */
  return CPUCYCLES_CYCLECOUNTER;
}

void ticks_close(void)
{
}
