/* The operating system, as cpucycles/os.h promises it.  Only those
   functions live here: tests replace this whole object (tests/fakeos.c). */
#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC, F_DUPFD_CLOEXEC, clock_gettime */
#define _GNU_SOURCE /* syscall(), secure_getenv() (and _DEFAULT_SOURCE with them) */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include "cpucycles-config.h"
#include "os.h"
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif
#if defined(__linux__) && defined(CPUCYCLES_HAVE_PERF_EVENT)
#include <linux/perf_event.h>
#endif

/* Only regular files: a FIFO would block the open and every read, and a
   device may never end (or act on being opened), so the path is checked
   before the open and the file again after it (it may have been swapped
   meanwhile).  O_NONBLOCK keeps even that open from waiting.  lseek and
   read rather than pread: all of these are async-signal-safe. */
long cpucycles_os_read_text(const char *path, long offset, char *buf, size_t size)
{
  struct stat st;
  size_t have = 0;
  int fd, ok;

  if (!size) return -1;
  buf[0] = 0;
  if (offset < 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
  fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return -1;
  ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
       (!offset || lseek(fd, (off_t) offset, SEEK_SET) == offset);
  while (ok && have + 1 < size) {
    ssize_t got = read(fd, buf + have, size - 1 - have);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    have += (size_t) got;
  }
  close(fd);
  buf[have] = 0;
  return ok ? (long) have : -1;
}

long long cpucycles_os_nanoseconds(void)
{
  struct timeval tv = { 0, 0 }; /* a refused gettimeofday leaves it */
#ifdef CLOCK_MONOTONIC
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0) return ts.tv_sec * 1000000000LL + ts.tv_nsec;
#endif
  gettimeofday(&tv, 0); /* no monotonic clock: gettimeofday is the best we have */
  return tv.tv_sec * 1000000000LL + tv.tv_usec * 1000LL;
}

long cpucycles_os_fd_limit(void)
{
  struct rlimit limit;
  return getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur > 1 << 20 ? 1 << 20
                                                                           : (long) limit.rlim_cur;
}

int cpucycles_os_ioctl_fd(int fd, unsigned long request, unsigned long arg)
{
  return ioctl(fd, request, arg);
}

#ifdef __linux__
/* read and close as raw system calls: the C library's are cancellation
   points, and a pthread_cancel acting inside one would leak an event. */
long cpucycles_os_read_fd(int fd, void *buf, size_t size)
{
  return syscall(SYS_read, fd, buf, size);
}
int cpucycles_os_close_fd(int fd) { return (int) syscall(SYS_close, fd); }
int cpucycles_os_thread_id(void) { return (int) syscall(SYS_gettid); }

/* Signal 0 through tgkill: ESRCH says no thread of process pid has the
   id; the C library has no such question for a thread id. */
int cpucycles_os_thread_gone(int pid, int tid)
{
  return tid > 0 && syscall(SYS_tgkill, pid, tid, 0) != 0 && errno == ESRCH;
}

/* PR_GET_TSC: x86 Linux since 2.6.26; elsewhere the prctl fails (-1). */
int cpucycles_os_tsc_faults(void)
{
  int mode = 0;
  return prctl(PR_GET_TSC, &mode, 0, 0, 0) != 0 ? -1 : mode == PR_TSC_SIGSEGV;
}
#else
long cpucycles_os_read_fd(int fd, void *buf, size_t size) { return (long) read(fd, buf, size); }
int cpucycles_os_close_fd(int fd) { return close(fd); }
int cpucycles_os_thread_id(void) { return 0; }
int cpucycles_os_thread_gone(int pid, int tid)
{
  (void) pid;
  (void) tid;
  return 0;
}
int cpucycles_os_tsc_faults(void) { return -1; }
#endif

#if defined(__linux__) && defined(CPUCYCLES_HAVE_PERF_EVENT)
/* The fd goes high (three quarters of the way to the smaller of the fd
   limit and 1024): a program that closes every fd and opens others then
   gets back the low numbers, not ours, so a read of ours finds nothing
   rather than the program's data. */
#define FD_HIGH_MOST 1024

long cpucycles_os_perf_event_open(void *attr, int pid, int cpu, int group_fd, unsigned long flags)
{
  long fd = syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
  long high;
  if (fd < 0) return fd;
  /* the limit is asked only where it is below FD_HIGH_MOST (EINVAL) */
  high = fcntl((int) fd, F_DUPFD_CLOEXEC, FD_HIGH_MOST * 3 / 4);
  if (high < 0 && errno == EINVAL)
    high = fcntl((int) fd, F_DUPFD_CLOEXEC, (int) (cpucycles_os_fd_limit() * 3 / 4));
  if (high < 0) return fd; /* no fd free up there: keep the low one */
  cpucycles_os_close_fd((int) fd);
  return high;
}

/* The perf ioctl's '$' number is perf's alone: a pipe, eventfd, socket or
   file refuses it, and event ids are unique in the system. */
int cpucycles_os_perf_owned(int fd, unsigned long long id)
{
  unsigned long long got = 0;
  return ioctl(fd, PERF_EVENT_IOC_ID, &got) == 0 && got == id;
}
#else
/* no perf events (not Linux, or no kernel headers: the perf counters are
   left out) */
long cpucycles_os_perf_event_open(void *attr, int pid, int cpu, int group_fd, unsigned long flags)
{
  (void) attr;
  (void) pid;
  (void) cpu;
  (void) group_fd;
  (void) flags;
  errno = ENOSYS;
  return -1;
}
int cpucycles_os_perf_owned(int fd, unsigned long long id)
{
  (void) fd;
  (void) id;
  return 0;
}
#endif

int cpucycles_os_process_id(void) { return (int) getpid(); }

/* One page: the perf_event_mmap_page, without a ring buffer behind it. */
void *cpucycles_os_map_page(int fd, void *at)
{
  int flags = at ? MAP_SHARED | MAP_FIXED : MAP_SHARED;
  void *p = mmap(at, (size_t) sysconf(_SC_PAGESIZE), PROT_READ, flags, fd, 0);
  return p == MAP_FAILED ? 0 : p;
}

int *cpucycles_os_private_page(void)
{
  size_t size = (size_t) sysconf(_SC_PAGESIZE);
  void *p = mmap(0, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 0;
#ifdef MADV_WIPEONFORK
  madvise(p, size, MADV_WIPEONFORK);
#endif
  return p;
}

void cpucycles_os_hold_signals(sigset_t *old)
{
  sigset_t async;
  sigfillset(&async);
  sigdelset(&async, SIGSEGV);
  sigdelset(&async, SIGBUS);
  sigdelset(&async, SIGILL);
  sigdelset(&async, SIGFPE);
  sigdelset(&async, SIGTRAP);
#ifdef SIGSYS
  sigdelset(&async, SIGSYS);
#endif
  pthread_sigmask(SIG_BLOCK, &async, old);
}

void cpucycles_os_release_signals(const sigset_t *old) { pthread_sigmask(SIG_SETMASK, old, 0); }

void cpucycles_os_unmap_page(void *page)
{
  if (page) munmap(page, (size_t) sysconf(_SC_PAGESIZE));
}

/* Only a 486 lacks CPUID (every amd64 CPU has it); the question is itself
   a CPUID (an exit to the hypervisor in a guest), so it is asked once, and
   only by 32-bit code. */
int cpucycles_os_cpuid(unsigned int leaf, unsigned int subleaf, unsigned int r[4])
{
#if defined(__x86_64__) || defined(__i386__)
  static int have = -1;
  if (have < 0) have = sizeof(void *) == 8 || __get_cpuid_max(0, 0) != 0;
  if (have) {
    __cpuid_count(leaf, subleaf, r[0], r[1], r[2], r[3]);
    return 1;
  }
#endif
  (void) leaf;
  (void) subleaf;
  r[0] = r[1] = r[2] = r[3] = 0;
  return 0;
}

/* The library is not meant for setuid programs (doc/security.md); where
   the C library can tell, it still ignores the environment in one. */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 17))
const char *cpucycles_os_getenv(const char *name) { return secure_getenv(name); }
#else
const char *cpucycles_os_getenv(const char *name) { return getenv(name); }
#endif
