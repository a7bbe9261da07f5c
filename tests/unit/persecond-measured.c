/* Issue 11 item 7, end to end: where the OS states no rate (no cpufreq,
   no cpu MHz line, no /etc/cpucyclespersecond, no environment) and a core
   cycle counter was chosen, the first cpucycles_persecond() measures that
   counter against CLOCK_MONOTONIC and says so in the trace; the first
   call itself measures nothing for it.  The core counter is
   default-perfevent on the task clock (a software event every kernel
   has), which counts nanoseconds of this thread: a busy thread's rate is
   1 GHz. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "cpucycles.h"
#include "fakeos.h"
#include "trace.h"
#include "child.h"

static long nothing_stated(const char *path, long offset, char *buf, size_t size)
{
  (void) path; (void) offset; (void) size;
  buf[0] = 0;
  errno = ENOENT;
  return -1;
}

static const char *no_environment(const char *name)
{
  (void) name;
  return 0;
}

static long long clock_reads;
static long long counted_clock(void)
{
  ++clock_reads;
  return real_nanoseconds();
}

struct result { long long first_call_reads, persecond_reads, persecond; int measured; char chosen[32]; };

/* in a child: the first call happens once a process */
static void run(void *arg)
{
  struct result *r = arg;
  char prefix[128];
  fake_os.read_text = nothing_stated;
  fake_os.getenv = no_environment;
  fake_os.perf_event_open = fake_software_cycles;
  fake_os.nanoseconds = counted_clock;
  cpucycles();
  r->first_call_reads = clock_reads;
  snprintf(r->chosen, sizeof r->chosen, "%s", cpucycles_implementation());
  r->persecond = cpucycles_persecond();
  r->persecond_reads = clock_reads - r->first_call_reads;
  snprintf(prefix, sizeof prefix, "cpucycles persecond-source measured %s against CLOCK_MONOTONIC", r->chosen);
  r->measured = trace_has(prefix, 0);
}

int main(void)
{
  struct result r;
  memset(&r, 0, sizeof r);
  if (!in_child(run, &r, sizeof r)) r.chosen[0] = 0;
  if (!strstr(r.chosen, "perf")) { /* qemu-user, or a kernel without perf */
    skip("persecond_measured_lazily", "no perf counter works here, even on the task clock");
    skip("persecond_measured_not_in_first_call", "no perf counter works here, even on the task clock");
    return 0;
  }
  /* 1 GHz of task clock: a loaded machine steals some of it */
  printf("# %lld reads first call, %lld in persecond, persecond %lld\n", r.first_call_reads, r.persecond_reads, r.persecond);
  check(r.measured && r.persecond > 800000000LL && r.persecond < 1050000000LL, "persecond_measured_lazily",
        "persecond %lld from %s, trace %s", r.persecond, r.chosen, r.measured ? "says measured" : "does not say measured");
  /* 3 windows of 1 ms, each read between clock reads: hundreds of reads;
     the first call must not have spent them */
  check(r.persecond_reads >= 6 && r.first_call_reads < r.persecond_reads, "persecond_measured_not_in_first_call",
        "%lld clock reads in the first call, %lld in the first persecond", r.first_call_reads, r.persecond_reads);
  return checks_failed();
}
