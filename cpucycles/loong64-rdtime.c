/* rdtime.d, the LoongArch stable counter: an off-core clock.  CPUCFG word 4
   states its base rate and word 5 a multiplier (bits 0-15) and divisor
   (bits 16-31); where they say nothing the rate is measured. */
#include "counter.h"

#define CPUCFG_CC_FREQ 4
#define CPUCFG_CC_RATIO 5

static unsigned long long cpucfg(unsigned long long word)
{
  unsigned long long v;
  __asm__ __volatile__("cpucfg %0, %1" : "=r"(v) : "r"(word));
  return v;
}

long long ticks(void)
{
  long long t, id;
  __asm__ __volatile__("rdtime.d %0, %1" : "=r"(t), "=r"(id));
  return t;
}

long long ticks_setup(struct cpucycles_probe *probe)
{
  unsigned long long base = cpucfg(CPUCFG_CC_FREQ) & 0xffffffffULL;
  unsigned long long ratio = cpucfg(CPUCFG_CC_RATIO);
  unsigned long long mul = ratio & 0xffff, div = (ratio >> 16) & 0xffff;
  if (base && mul && div) {
    cpucycles_say(probe, "rate from CPUCFG words 4 and 5");
    return (long long) (base * mul / div);
  }
  cpucycles_say(probe, "CPUCFG states no timer rate; rate measured");
  return CPUCYCLES_FINDMULTIPLIER;
}

void ticks_close(void)
{
}
