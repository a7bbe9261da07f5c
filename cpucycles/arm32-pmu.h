/* The body of arm32-cortex and arm32-1176, which differ only in where
   their core keeps its 32-bit cycle counter and the register that starts
   it: each defines arm32_cycles() and arm32_start() after including this.

   A kernel module that grants user access need not start the counter, so
   the first ticks() starts a stopped one (doc/counters.md).  Setup runs
   no coprocessor instruction: it says may_trap, and the wrapper's first
   read runs under its crash guard, which also covers arm32_start()'s
   writes, as they trap whenever the reads do.

   Nothing is written if three back-to-back reads all differ: a counter
   running every cycle belongs to whoever started it (and may be granted
   for reads only, ARMv8's PMUSERENR.CR); a stopped one, or one divided by
   64, reads equal at least once.  The counter is never reset: other
   processes on this core may be reading it, and to their 32-bit extension
   a jump back would look like a wrap. */
#include "counter.h"

/* the control register bits both cores share */
#define PMCR_E (1u << 0) /* enable the counters */
#define PMCR_P (1u << 1) /* reset the event counters (write only) */
#define PMCR_C (1u << 2) /* reset the cycle counter (write only) */
#define PMCR_D (1u << 3) /* count every 64th cycle */

static unsigned int arm32_cycles(void);
static void arm32_start(void); /* counts every cycle, keeps the count */

static int started; /* set by the first ticks(), which runs under the guard */

static void start_if_stopped(void)
{
  unsigned int a = arm32_cycles(), b = arm32_cycles(), c = arm32_cycles();
  if (a != b && b != c) return; /* running already, every cycle */
  arm32_start();
}

long long ticks(void)
{
  if (!started) {
    start_if_stopped();
    started = 1;
  }
  return arm32_cycles();
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
