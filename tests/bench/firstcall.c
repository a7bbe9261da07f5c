/* Time of the first cpucycles() call (the whole selection), in ns, the
   implementation chosen, and the page faults the call took (each costs
   over 10 microseconds in a virtual machine; doc/selection.md).  The
   clock is read with the system call where there is one: the vDSO's
   clock_gettime would fault in its pages before the call is timed and
   hide that cost, which a program that never read the clock would pay
   if the library read it.  With the argument "warm" the program has used
   printf, getenv and the clock before (their pages are in); without it,
   it is cold, as a program whose first act is to count. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <cpucycles.h>

static long long ns(void)
{
  struct timespec t;
#ifdef SYS_clock_gettime
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
#else
  clock_gettime(CLOCK_MONOTONIC, &t);
#endif
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long faults(void)
{
  struct rusage u;
  if (getrusage(RUSAGE_SELF, &u)) return 0;
  return u.ru_minflt + u.ru_majflt;
}

int main(int argc, char **argv)
{
  long f0, f1;
  long long t0, t1;
  ns(); /* the system call's own first use is not the library's */
  if (argc > 1 && argv[1][0]) {
    char text[64];
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    snprintf(text, sizeof text, "%s %ld", getenv("HOME") ? "home" : "none", (long) t.tv_nsec);
    if (!text[0]) return 1;
  }
  f0 = faults();
  t0 = ns();
  cpucycles();
  t1 = ns();
  f1 = faults();
  printf("%lld %s %ld\n", t1 - t0, cpucycles_implementation(), f1 - f0);
  return 0;
}
