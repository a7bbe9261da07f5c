/* Intel: perf_event keeps the cycles event running for this thread, which
   keeps fixed-function counter 1 (unhalted core cycles) counting, and RDPMC
   reads that counter directly, at a few cycles per read.  On hybrid Intel
   a second event on the E-core PMU keeps it counting on E-cores too. */
#include "perf.h"
#include "x86.h"

/* CPUs below these wrap their fixed counter early (31 bits observed on
   PMC version 2, width 40 parts): default-perfevent is right there. */
#define PMC_VERSION_LEAST 3
#define FIXED_WIDTH_LEAST 48

static struct cpucycles_perf perf = CPUCYCLES_PERF_EMPTY;

long long ticks_setup(struct cpucycles_probe *probe)
{
  const struct cpucycles_x86_facts *cpu = cpucycles_x86_intel_pmu(probe);
  if (!cpu) return CPUCYCLES_SKIP;
  if (cpu->pmc_version < PMC_VERSION_LEAST) {
    cpucycles_say(probe, "PMC version %u < %d (CPUID leaf 0xA): a PMU this old wraps its fixed counter early",
                  cpu->pmc_version, PMC_VERSION_LEAST);
    return CPUCYCLES_SKIP;
  }
  if (cpu->fixed_counters < 2) {
    cpucycles_say(probe, "CPUID leaf 0xA lists %u fixed-function counters; need counter 1", cpu->fixed_counters);
    return CPUCYCLES_SKIP;
  }
  if (cpu->fixed_width < FIXED_WIDTH_LEAST) {
    cpucycles_say(probe, "fixed-counter width %u < %d bits (CPUID leaf 0xA)", cpu->fixed_width, FIXED_WIDTH_LEAST);
    return CPUCYCLES_SKIP;
  }
  /* open first: where perf has no cycles event the knobs do not matter */
  if (!cpucycles_perf_open_cycles(&perf, 0, probe)) return CPUCYCLES_SKIP;
  /* rdpmc 2 and a low paranoid setting: RDPMC runs, so it cannot trap */
  if (!cpucycles_perf_rdpmc_allowed(probe, 0)) {
    cpucycles_perf_close(&perf);
    return CPUCYCLES_SKIP;
  }
  return CPUCYCLES_CYCLECOUNTER;
}

long long ticks(void)
{
  return (long long) cpucycles_x86_rdpmc(CPUCYCLES_X86_FIXED_CYCLES);
}

void ticks_close(void)
{
  cpucycles_perf_close(&perf);
}
