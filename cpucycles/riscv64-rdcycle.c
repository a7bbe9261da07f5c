/* rdcycle, the RISC-V cycle CSR, 64 bits wide on RV64.  Linux 6.6 and later
   let user code read it only when perf_user_access allows; otherwise the
   read traps. */
#include "counter.h"
#include "riscv64-cycle.h"

long long ticks(void)
{
  return riscv64_cycle();
}

long long ticks_setup(struct cpucycles_probe *probe)
{
  probe->may_trap = 1;
  return CPUCYCLES_CYCLECOUNTER;
}

void ticks_close(void)
{
}
