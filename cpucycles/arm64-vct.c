/* CNTVCT_EL0, the ARMv8-A virtual count of the generic timer: an off-core
   clock whose rate the CPU states in CNTFRQ_EL0 (firmware sets it; often
   24 MHz on boards, 62.5 MHz under qemu). */
#include "counter.h"

long long ticks(void)
{
  long long t;
  __asm__ __volatile__("mrs %0, CNTVCT_EL0" : "=r"(t));
  return t;
}

long long ticks_setup(struct cpucycles_probe *probe)
{
  long long hz;
  __asm__ __volatile__("mrs %0, CNTFRQ_EL0" : "=r"(hz));
  hz &= 0xffffffffLL; /* the upper 32 bits are reserved */
  if (hz > 0) {
    cpucycles_say(probe, "rate from CNTFRQ_EL0");
    return hz;
  }
  cpucycles_say(probe, "CNTFRQ_EL0 is 0 (firmware did not set it); rate measured");
  return CPUCYCLES_FINDMULTIPLIER;
}

void ticks_close(void)
{
}
