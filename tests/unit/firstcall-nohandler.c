/* Where the kernel can say whether every counter may be read, the first
   call asks it and installs no signal handler at all (issue 30, item 1):
   on Linux x86 (RDTSC by prctl, RDPMC by the rdpmc files, the perf
   counters by their page), and on arm64 and riscv64 Linux with
   perf_user_access (make test-system runs this there, before and after
   cpucycles-open).  This program's own sigaction takes the
   library's calls (a static link resolves them here) and counts them. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include "check.h"
#include "cpucycles.h"

static int installs; /* calls that set a handler */

#ifdef __GLIBC__
int __sigaction(int sig, const struct sigaction *act, struct sigaction *old); /* glibc's, static or shared */
#endif

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
#ifdef __GLIBC__
  if (act) ++installs;
  return __sigaction(sig, act, old);
#else
  int (*real)(int, const struct sigaction *, struct sigaction *);
  if (act) ++installs;
  *(void **) &real = dlsym(RTLD_NEXT, "sigaction");
  if (!real) {
    errno = ENOSYS; /* refused, and counted */
    return -1;
  }
  return real(sig, act, old);
#endif
}

/* Linux x86 says everything through prctl, the rdpmc files and the perf
   page; arm64 and RISC-V Linux through perf_user_access, where the kernel
   has it (not under qemu-user, whose /proc is the host's) */
static int kernel_can_say(void)
{
#if defined(__linux__) && (defined(__x86_64__) || defined(__i386__)) && defined(PR_GET_TSC)
  int mode; /* qemu-user does not answer PR_GET_TSC */
  return prctl(PR_GET_TSC, &mode, 0, 0, 0) == 0;
#elif defined(__linux__) && (defined(__aarch64__) || defined(__riscv))
  return access("/proc/sys/kernel/perf_user_access", R_OK) == 0;
#else
  return 0;
#endif
}

int main(void)
{
  long long a = cpucycles(), b = cpucycles();
  (void) a;
  (void) b;
  if (kernel_can_say())
    check(installs == 0, "first_call_installs_no_handler", "%d handlers installed by the first call (%s)", installs,
          cpucycles_implementation());
  else
    printf("skip first_call_installs_no_handler: the kernel cannot say here (%d handlers installed, by %s's "
           "selection)\n", installs, cpucycles_implementation());
  return checks_failed();
}
