/* rdcycleh and rdcycle: the RISC-V cycle CSR on RV32, read in two halves.
   The high half is read before and after the low one; when they differ the
   low half carried in between, so we read again. */
#include "counter.h"
#include "riscv32-cycle.h"

long long ticks(void)
{
  return riscv32_cycle();
}

long long ticks_setup(struct cpucycles_probe *probe)
{
  probe->may_trap = 1;
  return CPUCYCLES_CYCLECOUNTER;
}

void ticks_close(void)
{
}
