/* rdcycleh and rdcycle: the RISC-V cycle CSR on RV32, read in two halves.
   The high half is read before and after the low one; when they differ the
   low half carried in between, so we read again. */
#include "counter.h"

long long ticks(void)
{
  unsigned int hi, lo, again;
  do {
    __asm__ __volatile__("rdcycleh %0" : "=r"(hi));
    __asm__ __volatile__("rdcycle %0" : "=r"(lo));
    __asm__ __volatile__("rdcycleh %0" : "=r"(again));
  } while (hi != again);
  return (long long) (((unsigned long long) hi << 32) | lo);
}

long long ticks_setup(void)
{
  ticks();
  return CPUCYCLES_CYCLECOUNTER;
}

void ticks_close(void)
{
}
