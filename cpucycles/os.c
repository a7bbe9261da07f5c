/* The operating system, as cpucycles/os.h promises it.  Only those
   functions live here: tests replace this whole object (tests/fakeos.c). */
#define _POSIX_C_SOURCE 200809L
#define _GNU_SOURCE /* syscall(), secure_getenv() (and _DEFAULT_SOURCE with them) */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <sys/resource.h>
#include "cpucycles-config.h"
#ifdef __linux__
#ifdef CPUCYCLES_HAVE_PERF_EVENT
#include <linux/perf_event.h>
#endif
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif
#include "os.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif
#ifndef O_NOCTTY
#define O_NOCTTY 0
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
  int fd;

  if (!size) return -1;
  buf[0] = 0;
  if (offset < 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
  fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return -1;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      (offset && lseek(fd, (off_t) offset, SEEK_SET) != (off_t) offset)) {
    close(fd);
    return -1;
  }
  while (have + 1 < size) {
    ssize_t got = read(fd, buf + have, size - 1 - have);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    have += (size_t) got;
  }
  close(fd);
  buf[have] = 0;
  return (long) have;
}

long long cpucycles_os_nanoseconds(void)
{
#ifdef CLOCK_MONOTONIC
  struct timespec t;
  if (clock_gettime(CLOCK_MONOTONIC, &t) == 0)
    return t.tv_sec * 1000000000LL + t.tv_nsec;
#endif
  {
    /* no monotonic clock: gettimeofday is the best we have */
    struct timeval t;
    gettimeofday(&t, 0);
    return t.tv_sec * 1000000000LL + t.tv_usec * 1000LL;
  }
}

/* The fd goes high (three quarters of the way to the smaller of the fd
   limit and 1024): a program that closes every fd and opens others then
   gets back the low numbers, not ours, so a read of ours finds nothing
   rather than the program's data. */
#define FD_HIGH_MOST 1024

long cpucycles_os_fd_limit(void)
{
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur > 1 << 20) return 1 << 20;
  return (long) limit.rlim_cur;
}

/* read and close as raw system calls: the C library's are cancellation
   points, and a pthread_cancel acting inside one would leak an event. */
#if defined(__linux__) && defined(SYS_read) && defined(SYS_close)
#define RAW_READ(fd, buf, size) syscall(SYS_read, fd, buf, size)
#define RAW_CLOSE(fd) syscall(SYS_close, fd)
#else
#define RAW_READ(fd, buf, size) read(fd, buf, size)
#define RAW_CLOSE(fd) close(fd)
#endif

long cpucycles_os_perf_event_open(void *attr, int pid, int cpu, int group_fd,
                                  unsigned long flags)
{
#ifdef __NR_perf_event_open
  long fd = syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags), high;
  if (fd < 0) return fd;
  high = cpucycles_os_fd_limit();
  if (high > FD_HIGH_MOST) high = FD_HIGH_MOST;
  high = fcntl((int) fd, F_DUPFD_CLOEXEC, (int) (high * 3 / 4));
  if (high < 0 || high < fd) return fd;
  RAW_CLOSE((int) fd);
  return high;
#else
  (void) attr; (void) pid; (void) cpu; (void) group_fd; (void) flags;
  errno = ENOSYS;
  return -1;
#endif
}

long cpucycles_os_read_fd(int fd, void *buf, size_t size)
{
  return (long) RAW_READ(fd, buf, size);
}

int cpucycles_os_ioctl_fd(int fd, unsigned long request, unsigned long arg)
{
  return ioctl(fd, request, arg);
}

int cpucycles_os_close_fd(int fd)
{
  return (int) RAW_CLOSE(fd);
}

/* The perf ioctl's '$' number is perf's alone: a pipe, eventfd, socket or
   file refuses it, and event ids are unique in the system. */
int cpucycles_os_perf_owned(int fd, unsigned long long id)
{
#if defined(__linux__) && defined(PERF_EVENT_IOC_ID)
  unsigned long long got = 0;
  return ioctl(fd, PERF_EVENT_IOC_ID, &got) == 0 && got == id;
#else
  (void) fd; (void) id;
  return 0;
#endif
}

int cpucycles_os_thread_id(void)
{
#if defined(__linux__) && defined(SYS_gettid)
  return (int) syscall(SYS_gettid);
#else
  return 0;
#endif
}

int cpucycles_os_thread_gone(int tid)
{
#if defined(__linux__) && defined(SYS_tgkill) && defined(SYS_getpid)
  return tid > 0 && syscall(SYS_tgkill, (int) syscall(SYS_getpid), tid, 0) != 0 && errno == ESRCH;
#else
  (void) tid;
  return 0;
#endif
}

/* One page: the perf_event_mmap_page, without a ring buffer behind it. */
void *cpucycles_os_map_page(int fd)
{
  void *p = mmap(0, (size_t) sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
  return p == MAP_FAILED ? 0 : p;
}

void cpucycles_os_unmap_page(void *page)
{
  if (page) munmap(page, (size_t) sysconf(_SC_PAGESIZE));
}

int cpucycles_os_cpuid(unsigned int leaf, unsigned int subleaf, unsigned int r[4])
{
#if defined(__x86_64__) || defined(__i386__)
#if defined(__i386__)
  /* only a 486 lacks CPUID; asking costs a CPUID, so ask once */
  static int have = -1;
  if (have < 0) have = __get_cpuid_max(0, 0) != 0;
  if (!have) { r[0] = r[1] = r[2] = r[3] = 0; return 0; }
#endif
  __cpuid_count(leaf, subleaf, r[0], r[1], r[2], r[3]);
  return 1;
#else
  (void) leaf; (void) subleaf;
  r[0] = r[1] = r[2] = r[3] = 0;
  return 0;
#endif
}

/* The library is not meant for setuid programs (doc/security.md); where
   the C library can tell, it still ignores the environment in one. */
const char *cpucycles_os_getenv(const char *name)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 17))
  return secure_getenv(name);
#else
  return getenv(name);
#endif
}

int cpucycles_os_tsc_faults(void)
{
#if defined(__linux__) && defined(PR_GET_TSC)
  int mode = 0;
  if (prctl(PR_GET_TSC, &mode, 0, 0, 0) != 0) return -1;
  return mode == PR_TSC_SIGSEGV;
#else
  return -1;
#endif
}
