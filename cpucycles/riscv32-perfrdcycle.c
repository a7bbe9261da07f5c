/* riscv32: as riscv64-perfrdcycle, with the 64-bit cycle counter read in
   two halves: high, low, high again, until the high half held still. */
#include "riscv32-cycle.h"
#include "perf.h"

static struct cpucycles_perf perf = CPUCYCLES_PERF_EMPTY;

long long ticks_setup(struct cpucycles_probe *probe)
{
  if (!cpucycles_perf_user_counter(&perf, 0, probe)) return CPUCYCLES_SKIP;
  return CPUCYCLES_CYCLECOUNTER;
}

long long ticks(void)
{
  return riscv32_cycle();
}

void ticks_close(void)
{
  cpucycles_perf_close(&perf);
}
