/* PMCCNTR of ARMv7-A (cp15 c9/c13/0): the 32-bit PMU cycle counter, read
   once a kernel module sets PMUSERENR.EN (the body, and why the first
   read starts the counter, are in arm32-pmu.h).  PMCR.E and PMCNTENSET.C
   reset to 0, and a module that only grants access leaves them so. */
#include "arm32-pmu.h"

#define CYCLE_COUNTER (1u << 31) /* its bit in PMCNTENSET and PMOVSR */

static unsigned int arm32_cycles(void)
{
  unsigned int t;
  __asm__ __volatile__("mrc p15, 0, %0, c9, c13, 0" : "=r"(t));
  return t;
}

/* Sets PMCR.E and clears PMCR.D, keeping the other writable PMCR bits as
   read; sets PMCNTENSET.C and clears the cycle counter's overflow flag
   (PMOVSR.C, written with 1), a flag left from before it was stopped. */
static void arm32_start(void)
{
  unsigned int pmcr;
  __asm__ __volatile__("mrc p15, 0, %0, c9, c12, 0" : "=r"(pmcr));
  pmcr = (pmcr & ~(PMCR_P | PMCR_C | PMCR_D)) | PMCR_E;
  __asm__ __volatile__("mcr p15, 0, %0, c9, c12, 0" : : "r"(pmcr));
  __asm__ __volatile__("mcr p15, 0, %0, c9, c12, 1" : : "r"(CYCLE_COUNTER)); /* PMCNTENSET */
  __asm__ __volatile__("mcr p15, 0, %0, c9, c12, 3" : : "r"(CYCLE_COUNTER)); /* PMOVSR */
}
