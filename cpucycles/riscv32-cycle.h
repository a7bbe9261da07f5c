/* The RISC-V cycle CSR on RV32, read in two halves (CPUCYCLES_HALVES in
   counter.h), for riscv32-rdcycle. */
#include "counter.h"

static inline long long riscv_cycle(void)
{
  CPUCYCLES_HALVES("rdcycleh", "rdcycle");
}
