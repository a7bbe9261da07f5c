/* The RISC-V cycle CSR on RV32, read in two halves: high, low, high again,
   until the high half held still (the low half did not carry in between).
   Shared by riscv32-rdcycle and riscv32-perfrdcycle. */
#include "counter.h"

static inline long long riscv_cycle(void)
{
  unsigned int hi, lo, again;
  do {
    __asm__ __volatile__("rdcycleh %0" : "=r"(hi));
    __asm__ __volatile__("rdcycle %0" : "=r"(lo));
    __asm__ __volatile__("rdcycleh %0" : "=r"(again));
  } while (hi != again);
  return (long long) (((unsigned long long) hi << 32) | lo);
}
