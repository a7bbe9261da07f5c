/* The body of riscv32-perfrdcycle and riscv64-perfrdcycle, which differ
   only in how their header reads the cycle CSR (riscv_cycle()).
   perf_event opens this thread's cycles event, and mapping its page makes
   the kernel let user code run rdcycle, given perf_user_access 1 (current
   kernels turn rdcycle off for user code otherwise). */
#include "perf.h"

static struct cpucycles_perf perf = CPUCYCLES_PERF_EMPTY;
static CPUCYCLES_THREAD int opener; /* this thread opened the event (perf.h) */

long long ticks_setup(struct cpucycles_probe *probe)
{
#ifdef CPUCYCLES_PERF_OPENER_UNKNOWN
  cpucycles_say(probe, CPUCYCLES_PERF_OPENER_UNKNOWN);
  return CPUCYCLES_SKIP;
#endif
  if (!cpucycles_perf_user_counter(&perf, 0, probe)) return CPUCYCLES_SKIP;
  /* as arm64-perfpmc: where the knob cannot be read, a kernel that keeps
     rdcycle off would trap the first read, so it runs under the guard */
  probe->may_trap = 1;
  opener = 1;
  return CPUCYCLES_CYCLECOUNTER;
}

/* The page's index of the cycle counter: RISC-V's perf numbers it 1 */
#define CYCLE_INDEX 1

static unsigned long long cycle(unsigned int counter)
{
  (void) counter; /* the one counter it reaches */
  return (unsigned long long) riscv_cycle();
}

long long ticks(void)
{
  return cpucycles_perf_user_read(&perf, opener, CYCLE_INDEX, cycle);
}

void ticks_close(void)
{
  cpucycles_perf_close(&perf);
  opener = 0;
}
