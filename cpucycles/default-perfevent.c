/* Linux perf_event: the kernel's count of cycles for this thread, read with
   read(2), summed over the core PMU's fd and, on hybrid Intel, the E-core
   PMU's fd.  A true cycle counter, but each read is a system call.
   Counts are used raw, not scaled by time_running/time_enabled: the event
   is alone and never multiplexed away for long, and scaling would turn an
   exact count into an estimate that can go backwards. */
#include "perf.h"

/* How long the setup test lets the event run (a busy loop, in steps). */
#define SETUP_SPIN 10000

static struct cpucycles_perf perf = CPUCYCLES_PERF_EMPTY;
static int toggle; /* 1: read between disable and enable */
static volatile long spin; /* the setup test's work, kept by volatile */

/* Whether two reads around some work, in this read mode, see counting. */
static int advances(int mode)
{
  long long before = cpucycles_perf_sum(&perf, mode), after;
  long i;
  for (i = 0; i < SETUP_SPIN; ++i) spin += i;
  after = cpucycles_perf_sum(&perf, mode);
  return before >= 0 && after > before;
}

long long ticks_setup(struct cpucycles_probe *probe)
{
  if (!cpucycles_perf_open_cycles(&perf, 0, probe)) return CPUCYCLES_SKIP;
  /* A plain read is one system call; some kernels only bring a running
     event's count up to date when it stops, so only then pay for the
     disable and enable around each read. */
  toggle = 0;
  if (advances(0)) return CPUCYCLES_CYCLECOUNTER;
  toggle = 1;
  if (advances(1)) {
    cpucycles_say(probe, "plain read of the count does not advance; reading between disable and enable");
    return CPUCYCLES_CYCLECOUNTER;
  }
  cpucycles_say(probe, "perf cycle count does not advance, even between disable and enable");
  cpucycles_perf_close(&perf);
  return CPUCYCLES_SKIP;
}

long long ticks(void)
{
  return cpucycles_perf_sum(&perf, toggle);
}

void ticks_close(void)
{
  cpucycles_perf_close(&perf);
}
