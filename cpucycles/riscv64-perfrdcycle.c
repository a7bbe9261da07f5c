/* riscv64: perf_event opens this thread's cycles event, and mapping its
   page makes the kernel let user code run rdcycle, given perf_user_access
   1 (current kernels turn rdcycle off for user code otherwise). */
#include "riscv64-cycle.h"
#include "perf.h"

static struct cpucycles_perf perf = CPUCYCLES_PERF_EMPTY;

long long ticks_setup(struct cpucycles_probe *probe)
{
  if (!cpucycles_perf_user_counter(&perf, 0, probe)) return CPUCYCLES_SKIP;
  return CPUCYCLES_CYCLECOUNTER;
}

long long ticks(void)
{
  return riscv64_cycle();
}

void ticks_close(void)
{
  cpucycles_perf_close(&perf);
}
