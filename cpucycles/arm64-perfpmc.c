/* arm64: perf_event opens this thread's cycles event as a 64-bit counter
   with user access (config1 bits 0 and 1), and mapping its page makes the
   kernel let EL0 read the counters, given perf_user_access 1.  Then the
   count is the page's offset plus PMCCNTR_EL0, read directly. */
#include "arm64-pmccntr.h"
#include "perf.h"

#define CONFIG1_64BIT 1       /* arm_pmuv3 "long": a 64-bit counter */
#define CONFIG1_USER_ACCESS 2 /* arm_pmuv3 "rdpmc": EL0 may read it */

static struct cpucycles_perf perf = CPUCYCLES_PERF_EMPTY;
static CPUCYCLES_THREAD int opener; /* this thread opened the event (perf.h) */

long long ticks_setup(struct cpucycles_probe *probe)
{
#ifdef CPUCYCLES_PERF_OPENER_UNKNOWN
  cpucycles_say(probe, CPUCYCLES_PERF_OPENER_UNKNOWN);
  return CPUCYCLES_SKIP;
#endif
  if (!cpucycles_perf_user_counter(&perf, CONFIG1_64BIT | CONFIG1_USER_ACCESS, probe)) return CPUCYCLES_SKIP;
  /* The page's cap_user_rdpmc follows the event's own flag, not
     perf_user_access: with the knob at 0 the kernel still says 1 and
     then keeps EL0 reads off.  The knob was checked, but where it cannot
     be read (no /proc) the first read traps: try it under the guard (seen
     on Debian's 6.1 under qemu-system-aarch64, make test-system). */
  probe->may_trap = 1;
  if (perf.page->cap_user_rdpmc) {
    opener = 1;
    return CPUCYCLES_CYCLECOUNTER;
  }
  cpucycles_say(probe, "perf says user counter reads are off (cap_user_rdpmc 0); run cpucycles-open as root");
  cpucycles_perf_close(&perf);
  return CPUCYCLES_SKIP;
}

/* The page's index of the cycle counter: arm64's perf numbers it 32 */
#define PMCCNTR_INDEX 32

static unsigned long long pmccntr(unsigned int counter)
{
  (void) counter; /* the one counter it reaches */
  return (unsigned long long) arm64_pmccntr();
}

long long ticks(void)
{
  return cpucycles_perf_user_read(&perf, opener, PMCCNTR_INDEX, pmccntr);
}

void ticks_close(void)
{
  cpucycles_perf_close(&perf);
  opener = 0;
}
