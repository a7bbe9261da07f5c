/* The floor of a first call on x86 (issue 38): inline, and timed like
   tests/bench/firstcall.c, what no selection can do without: the signals
   held back and put back, one secure_getenv (CPUCYCLES_IMPLEMENTATION),
   the CPUID leaves that tell the vendor, whether it is a guest and what
   its hypervisor states (0, 1, 0x40000000; 0xA on Intel: its PMU), one
   prctl(PR_GET_TSC), one perf_event_open of the cycles event, and 1,000
   RDTSC with the smallest step among them.  Prints the time in ns.
   Elsewhere than x86 Linux it prints nothing. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#if defined(__linux__) && (defined(__x86_64__) || defined(__i386__))
#include <cpuid.h>
#include <x86intrin.h>
#include <sys/prctl.h>
#include <linux/perf_event.h>

static long long ns(void)
{
  struct timespec t;
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static volatile long long sink;

static void floor_of_first_call(void)
{
  struct perf_event_attr attr;
  unsigned int a, b, c, d, r0[4];
  unsigned long long t[1000];
  long long smallest = -1;
  sigset_t all, old;
  int mode = 0, i;
  long fd;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  sink = secure_getenv("CPUCYCLES_IMPLEMENTATION") != 0;
  __cpuid(0, r0[0], r0[1], r0[2], r0[3]);
  __cpuid(1, a, b, c, d);
  if (c >> 31) __cpuid(0x40000000, a, b, c, d);
  if (r0[1] == 0x756e6547) __cpuid(0xa, a, b, c, d); /* "Genu" */
  sink += prctl(PR_GET_TSC, &mode, 0, 0, 0);
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_CPU_CYCLES;
  attr.pinned = 1;
  attr.exclude_kernel = 1;
  fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
  if (fd >= 0) close((int) fd);
  for (i = 0; i < 1000; ++i) t[i] = __rdtsc();
  for (i = 1; i < 1000; ++i) {
    long long step = (long long) (t[i] - t[i - 1]);
    if (step > 0 && (smallest < 0 || step < smallest)) smallest = step;
  }
  sink += smallest + a + b + c + d;
  pthread_sigmask(SIG_SETMASK, &old, 0);
}

int main(void)
{
  long long t0, t1;
  ns();
  t0 = ns();
  floor_of_first_call();
  t1 = ns();
  printf("%lld floor 0\n", t1 - t0);
  return 0;
}
#else
int main(void)
{
  return 0;
}
#endif
