/* PMCCNTR of ARMv7-A (cp15 c9/c13/0): the 32-bit PMU cycle counter.  User
   code may touch the PMU only after a kernel module sets PMUSERENR.EN;
   otherwise every access traps (SIGILL).  Granting access does not start
   the counter: PMCR.E and PMCNTENSET.C reset to 0, and a module that only
   grants access leaves them so.  The first ticks() therefore starts the
   counter itself when it finds it stopped.

   Setup runs no PMU instruction (counter.h): it says may_trap, and the
   wrapper's first read runs under its crash guard, so the writes below,
   which trap whenever the reads do, are covered by that one guarded call.
   Later reads pay one predictable branch.

   What the start does and does not do:
   - it touches nothing if three back-to-back reads all differ: the
     counter already runs, every cycle (the kernel's perf, a module,
     another process started it), and its owner's settings and overflow
     flags stay theirs.  This also keeps the counter where ARMv8's
     PMUSERENR.CR grants reads of it but no writes to the PMU.  A stopped
     counter reads equal throughout; one divided by 64 (PMCR.D) reads equal
     at least once, as three reads span fewer than 64 cycles;
   - it sets PMCR.E and clears PMCR.D (count every cycle, not every 64th),
     keeping the other writable PMCR bits as read;
   - it never resets the counter (PMCR.C): other processes on this core may
     be reading it, and to their 32-bit extension a jump back would look
     like a wrap.  Only differences matter here;
   - it sets PMCNTENSET.C and clears the cycle counter's overflow flag
     (PMOVSR.C, written with 1), a flag left from before it was stopped;
   - it reaches only the core it runs on (PMU registers are per core).
     Modules that grant access usually start the counter on every core;
     where one does not, a process that migrates may see the counter stop,
     so pin it (doc/counters.md). */
#include "counter.h"

#define PMCR_E (1u << 0)      /* enable the counters */
#define PMCR_P (1u << 1)      /* reset the event counters (write only) */
#define PMCR_C (1u << 2)      /* reset the cycle counter (write only) */
#define PMCR_D (1u << 3)      /* count every 64th cycle */
#define CYCLE_COUNTER (1u << 31) /* its bit in PMCNTENSET and PMOVSR */

static int started; /* set by the first ticks(), which runs under the guard */

static unsigned int pmccntr(void)
{
  unsigned int t;
  __asm__ __volatile__("mrc p15, 0, %0, c9, c13, 0" : "=r"(t));
  return t;
}

static void start(void)
{
  unsigned int pmcr, a = pmccntr(), b = pmccntr(), c = pmccntr();
  if (a != b && b != c) return; /* running already, every cycle */
  __asm__ __volatile__("mrc p15, 0, %0, c9, c12, 0" : "=r"(pmcr));
  pmcr = (pmcr & ~(PMCR_P | PMCR_C | PMCR_D)) | PMCR_E;
  __asm__ __volatile__("mcr p15, 0, %0, c9, c12, 0" : : "r"(pmcr));
  __asm__ __volatile__("mcr p15, 0, %0, c9, c12, 1" : : "r"(CYCLE_COUNTER)); /* PMCNTENSET */
  __asm__ __volatile__("mcr p15, 0, %0, c9, c12, 3" : : "r"(CYCLE_COUNTER)); /* PMOVSR */
}

long long ticks(void)
{
  if (!started) {
    start();
    started = 1;
  }
  return pmccntr();
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
