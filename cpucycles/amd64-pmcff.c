/* Intel, without perf: RDPMC of fixed-function counter 1 where the OS lets
   user code run RDPMC and something keeps that counter counting (a kernel
   module, or rdpmc 2 while someone else's perf event runs).  Where it is
   not counting, the precision test drops it. */
#include "x86.h"
#include "cpucycles-config.h"
#if defined(__linux__) && defined(CPUCYCLES_HAVE_PERF_EVENT)
#include "perf.h"
#endif

/* rdpmc 2: RDPMC runs anywhere (1: only beside a mapped perf event, which
   this counter has not; 0: never) */
#define RDPMC_ALWAYS 2

long long ticks_setup(struct cpucycles_probe *probe)
{
  const struct cpucycles_x86_facts *cpu = cpucycles_x86_intel_pmu(probe);
  if (!cpu) return CPUCYCLES_SKIP;
  if (cpu->pmc_version < 2 || cpu->fixed_counters < 2) {
    cpucycles_say(probe, "CPUID leaf 0xA lists no fixed-function counter 1");
    return CPUCYCLES_SKIP;
  }
#if defined(__linux__) && defined(CPUCYCLES_HAVE_PERF_EVENT)
  {
    const char *path;
    long knob = cpucycles_perf_rdpmc_knob(&path);
    if (knob < 0) {
      cpucycles_say(probe,
                    "no /sys/devices/cpu/rdpmc: the kernel does not let user code run RDPMC");
      return CPUCYCLES_SKIP;
    }
    if (knob < RDPMC_ALWAYS) {
      cpucycles_say(probe, "%s is %ld, not 2: RDPMC would fault; run cpucycles-open as root", path,
                    knob);
      probe->need = CPUCYCLES_NEED_OPEN;
      return CPUCYCLES_SKIP;
    }
  }
#else
  probe->may_trap = 1; /* whether RDPMC may run is not known here */
#endif
  return CPUCYCLES_CYCLECOUNTER;
}

long long ticks(void)
{
  return (long long) cpucycles_x86_rdpmc(CPUCYCLES_X86_FIXED_CYCLES);
}

void ticks_close(void)
{
}
