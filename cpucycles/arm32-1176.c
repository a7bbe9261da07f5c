/* The ARM1176 cycle counter (cp15 c15/c12/1), 32 bits.  User code may
   touch the performance monitor only after a kernel module sets the V bit
   of the access validation register (c15/c9/0); otherwise every access
   traps (SIGILL).  Granting access does not start the counter: the enable
   bit of the Performance Monitor Control Register (c15/c12/0) resets to 0.
   The first ticks() therefore starts the counter itself when it finds it
   stopped.

   Setup runs no coprocessor instruction (counter.h): it says may_trap, and
   the wrapper's first read runs under its crash guard, so the write below,
   which traps whenever the reads do, is covered by that one guarded call.
   Later reads pay one predictable branch.

   As in arm32-cortex.c: nothing is written if three back-to-back reads
   all differ (a counter running every cycle belongs to whoever started
   it; a stopped one, or one divided by 64, reads equal at least once); the
   counter is never reset, since other processes may be reading it and a
   jump back would look to their 32-bit extension like a wrap; and only
   the core this runs on is started.  On this control register the overflow
   flags live beside the enables and clear when written with 1: the write
   clears the cycle counter's flag and writes 0 (no effect) to the two event
   counters' flags, and writes 0 to the reset bits, which read as
   unpredictable. */
#include "counter.h"

#define PMCR_E (1u << 0)           /* enable all counters */
#define PMCR_P (1u << 1)           /* reset the event counters */
#define PMCR_C (1u << 2)           /* reset the cycle counter */
#define PMCR_D (1u << 3)           /* count every 64th cycle */
#define PMCR_EVENT_OVERFLOWS (3u << 8) /* event counters 0, 1 overflowed */
#define PMCR_CYCLE_OVERFLOW (1u << 10) /* cycle counter overflowed */

static int started; /* set by the first ticks(), which runs under the guard */

static unsigned int ccnt(void)
{
  unsigned int t;
  __asm__ __volatile__("mrc p15, 0, %0, c15, c12, 1" : "=r"(t));
  return t;
}

static void start(void)
{
  unsigned int pmcr, a = ccnt(), b = ccnt(), c = ccnt();
  if (a != b && b != c) return; /* running already, every cycle */
  __asm__ __volatile__("mrc p15, 0, %0, c15, c12, 0" : "=r"(pmcr));
  pmcr &= ~(PMCR_P | PMCR_C | PMCR_D | PMCR_EVENT_OVERFLOWS);
  pmcr |= PMCR_E | PMCR_CYCLE_OVERFLOW;
  __asm__ __volatile__("mcr p15, 0, %0, c15, c12, 0" : : "r"(pmcr));
}

long long ticks(void)
{
  if (!started) {
    start();
    started = 1;
  }
  return ccnt();
}

long long ticks_setup(struct cpucycles_probe *probe)
{
  probe->may_trap = 1;
  return CPUCYCLES_EXTEND32;
}

void ticks_close(void)
{
  /* The counter is left running: another reader may rely on it, and
     stopping it is not ours to do. */
}
