/* Intel: perf_event puts this thread's cycles event on fixed-function
   counter 1 (unhalted core cycles), and RDPMC reads that counter, at a few
   cycles per read, plus the offset of the event's mmap'd page.  Where the
   event sits elsewhere (the NMI watchdog holds the fixed counter; an
   E-core, where a second event on the E-core PMU counts), it is read by
   read(2). */
#include "perf.h"
#include "x86.h"

/* CPUs below these wrap their fixed counter early (31 bits observed on
   PMC version 2, width 40 parts): default-perfevent is right there. */
#define PMC_VERSION_LEAST 3
#define FIXED_WIDTH_LEAST 48

/* the page's index of fixed counter 1: its RDPMC number, plus 1 */
#define FIXED_CYCLES_INDEX (CPUCYCLES_X86_FIXED_CYCLES + 1)

static struct cpucycles_perf perf = { 0, cpucycles_x86_rdpmc, 0, 0, 0 };
static CPUCYCLES_THREAD struct cpucycles_perf_thread mine;

long long ticks_setup(struct cpucycles_probe *probe)
{
  const struct cpucycles_x86_facts *cpu = cpucycles_x86_intel_pmu(probe);
  if (!cpu) return CPUCYCLES_SKIP;
  if (cpu->pmc_version < PMC_VERSION_LEAST) {
    cpucycles_say(
        probe, "PMC version %u < %d (CPUID leaf 0xA): a PMU this old wraps its fixed counter early",
        cpu->pmc_version, PMC_VERSION_LEAST);
    return CPUCYCLES_SKIP;
  }
  if (cpu->fixed_counters < 2) {
    cpucycles_say(probe, "CPUID leaf 0xA lists %u fixed-function counters; need counter 1",
                  cpu->fixed_counters);
    return CPUCYCLES_SKIP;
  }
  if (cpu->fixed_width < FIXED_WIDTH_LEAST) {
    cpucycles_say(probe, "fixed-counter width %u < %d bits (CPUID leaf 0xA)", cpu->fixed_width,
                  FIXED_WIDTH_LEAST);
    return CPUCYCLES_SKIP;
  }
  /* open first: where perf has no cycles event the knobs do not matter */
  if (!cpucycles_perf_setup(&perf, &mine, probe)) return CPUCYCLES_SKIP;
  /* rdpmc 2 and a low paranoid setting: RDPMC runs, so it cannot trap */
  if (!cpucycles_perf_rdpmc_allowed(probe, 0)) {
    cpucycles_perf_close(&perf, &mine);
    return CPUCYCLES_SKIP;
  }
  return CPUCYCLES_CYCLECOUNTER;
}

long long ticks(void)
{
  return cpucycles_perf_ticks(&perf, &mine, FIXED_CYCLES_INDEX, cpucycles_x86_rdpmc);
}

void ticks_close(void)
{
  cpucycles_perf_close(&perf, &mine);
}
