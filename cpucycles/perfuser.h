/* The body of the counters that read one hardware counter from user code
   once their perf event grants it: arm64-perfpmc (PMCCNTR_EL0) and
   riscv32/64-perfrdcycle (the cycle CSR).  The counter file defines
   PERFUSER_CONFIG1 (what its perf wants in config1), PERFUSER_INDEX (the
   perf page's index of that hardware counter) and PERFUSER_READ() (the
   read instruction).  perf_event opens this thread's cycles event, and
   mapping its page makes the kernel let user code read the counter, given
   perf_user_access 1; the count is the page's offset plus the counter. */
#include "perf.h"

static struct cpucycles_perf perf = CPUCYCLES_PERF_EMPTY;
static CPUCYCLES_THREAD int opener; /* this thread opened the event (perf.h) */

long long ticks_setup(struct cpucycles_probe *probe)
{
#ifdef CPUCYCLES_PERF_OPENER_UNKNOWN
  cpucycles_say(probe, CPUCYCLES_PERF_OPENER_UNKNOWN);
  return CPUCYCLES_SKIP;
#endif
  if (!cpucycles_perf_user_counter(&perf, PERFUSER_CONFIG1, probe)) return CPUCYCLES_SKIP;
  /* The page's cap_user_rdpmc follows the event's own flag (on arm64 and
     RISC-V alike), not perf_user_access: with the knob at 0 the kernel
     still says 1 and then keeps user reads off.  The knob was checked,
     but where it cannot be read (no /proc) the first read traps: it runs
     under the guard (seen on Debian's 6.1 under qemu-system-aarch64,
     make test-system). */
  probe->may_trap = 1;
  if (perf.page->cap_user_rdpmc) {
    opener = 1;
    return CPUCYCLES_CYCLECOUNTER;
  }
  cpucycles_say(probe, "perf says user counter reads are off (cap_user_rdpmc 0); run cpucycles-open as root");
  cpucycles_perf_close(&perf);
  return CPUCYCLES_SKIP;
}

static unsigned long long user_read(unsigned int counter)
{
  (void) counter; /* the one counter it reaches */
  return (unsigned long long) PERFUSER_READ();
}

long long ticks(void)
{
  return cpucycles_perf_user_read(&perf, opener, PERFUSER_INDEX, user_read);
}

void ticks_close(void)
{
  cpucycles_perf_close(&perf);
  opener = 0;
}
