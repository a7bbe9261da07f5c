/* The ARM1176 cycle counter (cp15 c15/c12/1), 32 bits, read once a kernel
   module sets the V bit of the access validation register (c15/c9/0); the
   body, and why the first read starts the counter, are in arm32-pmu.h.
   The enable bit of the Performance Monitor Control Register (c15/c12/0)
   resets to 0. */
#include "arm32-pmu.h"

#define PMCR_EVENT_OVERFLOWS (3u << 8) /* event counters 0, 1 overflowed */
#define PMCR_CYCLE_OVERFLOW (1u << 10) /* cycle counter overflowed */

static unsigned int arm32_cycles(void)
{
  unsigned int t;
  __asm__ __volatile__("mrc p15, 0, %0, c15, c12, 1" : "=r"(t));
  return t;
}

/* On this control register the overflow flags live beside the enables
   and clear when written with 1: the write clears the cycle counter's
   flag and writes 0 (no effect) to the two event counters' flags, and
   writes 0 to the reset bits, which read as unpredictable. */
static void arm32_start(void)
{
  unsigned int pmcr;
  __asm__ __volatile__("mrc p15, 0, %0, c15, c12, 0" : "=r"(pmcr));
  pmcr &= ~(PMCR_P | PMCR_C | PMCR_D | PMCR_EVENT_OVERFLOWS);
  pmcr |= PMCR_E | PMCR_CYCLE_OVERFLOW;
  __asm__ __volatile__("mcr p15, 0, %0, c15, c12, 0" : : "r"(pmcr));
}
