/* PMCCNTR_EL0, the ARMv8-A PMU cycle counter, read without perf.  Works only
   where the OS lets user code read it (PMUSERENR_EL0, set by a kernel module
   on older Linux); elsewhere the read traps. */
#include "arm64-pmccntr.h"

long long ticks(void)
{
  return arm64_pmccntr();
}

long long ticks_setup(struct cpucycles_probe *probe)
{
  probe->may_trap = 1;
  return CPUCYCLES_CYCLECOUNTER;
}

void ticks_close(void)
{
}
