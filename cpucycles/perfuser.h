/* The body of the counters that read one hardware counter from user code
   once their perf event grants it: arm64-perfpmc (PMCCNTR_EL0) and
   riscv32/64-perfrdcycle (the counter CSRs).  The counter file defines
   PERFUSER_CONFIG1 (what its perf wants in config1), PERFUSER_INDEX (the
   perf page's index of the counter it can read, or 0 for whichever the
   page names) and perfuser_read(counter), the read instruction.  On
   Linux RISC-V, unmapping the page of an event that is on a counter takes
   user access to that counter from every CPU of the process (the other
   threads' next reads would trap): perf.c disables an event before it
   lets it go, and unmaps a thread's page only once the thread is gone.
   Each thread's own event, with its page mapped, makes the kernel let
   that thread's user code read the counter, given perf_user_access 1;
   the count is the page's offset plus the counter. */
#include "perf.h"

static struct cpucycles_perf perf = { PERFUSER_CONFIG1, perfuser_read, 0, 0, 0 };
static CPUCYCLES_THREAD struct cpucycles_perf_thread mine;

long long ticks_setup(struct cpucycles_probe *probe)
{
  return cpucycles_perf_user_counter(&perf, &mine, probe) ? CPUCYCLES_CYCLECOUNTER : CPUCYCLES_SKIP;
}

long long ticks(void)
{
  return cpucycles_perf_ticks(&perf, &mine, PERFUSER_INDEX, perfuser_read);
}

void ticks_close(void)
{
  cpucycles_perf_close(&perf, &mine);
}
