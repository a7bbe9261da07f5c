/* The RISC-V cycle CSR, 64 bits wide on RV64.  Shared by riscv64-rdcycle
   and riscv64-perfrdcycle. */
#include "counter.h"

static inline long long riscv_cycle(void)
{
  long long count;
  __asm__ __volatile__("rdcycle %0" : "=r"(count));
  return count;
}
