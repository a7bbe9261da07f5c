/* Linux perf_event: the kernel's count of cycles for this thread, read with
   read(2), summed over the core PMU's fd and, on hybrid Intel, the E-core
   PMU's fd.  A true cycle counter, but each read is a system call.  Every
   thread reads its own event (perf.h). */
#include "perf.h"

static struct cpucycles_perf perf;
static CPUCYCLES_THREAD struct cpucycles_perf_thread mine;

long long ticks_setup(struct cpucycles_probe *probe)
{
  return cpucycles_perf_setup(&perf, &mine, probe) ? CPUCYCLES_CYCLECOUNTER : CPUCYCLES_SKIP;
}

long long ticks(void)
{
  return cpucycles_perf_read(&perf, &mine);
}

void ticks_close(void)
{
  cpucycles_perf_close(&perf, &mine);
}
