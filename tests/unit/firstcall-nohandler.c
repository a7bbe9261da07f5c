/* Where the kernel can say whether every counter may be read, the first
   call asks it and installs no signal handler at all (issue 30, item 1):
   on Linux x86 (RDTSC by prctl, RDPMC by the rdpmc files, the perf
   counters by their page).  This program's own sigaction takes the
   library's calls (a static link resolves them here) and counts them. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include "check.h"
#include "cpucycles.h"

static int installs; /* calls that set a handler */

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
  int (*real)(int, const struct sigaction *, struct sigaction *);
  if (act) ++installs;
  *(void **) &real = dlsym(RTLD_NEXT, "sigaction");
  if (!real) {
    errno = ENOSYS; /* a static C library: refused, and counted */
    return -1;
  }
  return real(sig, act, old);
}

int main(void)
{
  long long a = cpucycles(), b = cpucycles();
  (void) a;
  (void) b;
#if defined(__linux__) && (defined(__x86_64__) || defined(__i386__))
  check(installs == 0, "first_call_installs_no_handler_linux_x86", "%d handlers installed by the first call (%s)",
        installs, cpucycles_implementation());
#else
  printf("skip first_call_installs_no_handler_linux_x86: not Linux x86 (%d handlers installed here, by %s's selection)\n",
         installs, cpucycles_implementation());
#endif
  return checks_failed();
}
