/* riscv32: as riscv64-perfrdcycle, with the 64-bit cycle counter read in
   two halves: high, low, high again, until the high half held still. */
#include "counter.h"
#include "perf.h"

static struct cpucycles_perf perf = CPUCYCLES_PERF_EMPTY;

long long ticks_setup(void)
{
  if (!cpucycles_perf_user_counter(&perf, 0)) return CPUCYCLES_SKIP;
  return CPUCYCLES_CYCLECOUNTER;
}

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

void ticks_close(void)
{
  cpucycles_perf_close(&perf);
}
