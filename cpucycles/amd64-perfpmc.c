/* AMD: RDPMC of the hardware counter perf_event put this thread's cycles
   event on, as the event's mmap'd page says (index, offset, pmc_width,
   under its seqlock).  Refuses Intel, where perf has been seen to report
   index 0 on E-cores and amd64-perfpmcff is the better way. */
#include "perf.h"
#include "x86.h"

static struct cpucycles_perf perf = { 0, cpucycles_x86_rdpmc, 0, 0, 0 };
static CPUCYCLES_THREAD struct cpucycles_perf_thread mine;

long long ticks_setup(struct cpucycles_probe *probe)
{
  if (cpucycles_x86_facts(probe)->vendor != CPUCYCLES_X86_AMD) {
    cpucycles_say(probe, "not an AMD CPU");
    return CPUCYCLES_SKIP;
  }
  /* open first: where perf has no cycles event the knobs do not matter */
  if (!cpucycles_perf_setup(&perf, &mine, probe)) return CPUCYCLES_SKIP;
  if (!cpucycles_perf_rdpmc_allowed(probe, 1)) goto skip;
  /* the page says whether RDPMC may run, so the read cannot trap */
  if (!mine.page->cap_user_rdpmc) {
    cpucycles_say(probe,
                  "perf says user RDPMC is off (cap_user_rdpmc 0); run cpucycles-open as root");
    probe->need = CPUCYCLES_NEED_OPEN;
    goto skip;
  }
  if (!mine.page->index) {
    cpucycles_say(probe, "perf gives counter index 0: the event is on no counter RDPMC can read");
    goto skip;
  }
  return CPUCYCLES_CYCLECOUNTER;
skip:
  cpucycles_perf_close(&perf, &mine);
  return CPUCYCLES_SKIP;
}

long long ticks(void)
{
  return cpucycles_perf_ticks(&perf, &mine, 0, cpucycles_x86_rdpmc);
}

void ticks_close(void)
{
  cpucycles_perf_close(&perf, &mine);
}
