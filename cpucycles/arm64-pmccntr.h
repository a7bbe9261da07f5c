/* PMCCNTR_EL0, the ARMv8-A PMU cycle counter.  Shared by arm64-pmc and
   arm64-perfpmc; traps (SIGILL) unless the OS allows user reads. */
#include "counter.h"

static inline long long arm64_pmccntr(void)
{
  long long count;
  __asm__ __volatile__("mrs %0, PMCCNTR_EL0" : "=r"(count));
  return count;
}
