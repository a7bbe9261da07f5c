/* Default (real) implementation of the OS seam. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* syscall() */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif
#include "os.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

long cpucycles_os_read_text(const char *path, char *buf, size_t size)
{
  size_t have = 0;
  int fd;

  if (!size) return -1;
  buf[0] = 0;
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
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

long cpucycles_os_perf_event_open(void *attr, int pid, int cpu, int group_fd,
                                  unsigned long flags)
{
#ifdef __NR_perf_event_open
  return syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
#else
  (void) attr; (void) pid; (void) cpu; (void) group_fd; (void) flags;
  errno = ENOSYS;
  return -1;
#endif
}

static const char *real_getenv(const char *name)
{
  return getenv(name);
}

struct cpucycles_os cpucycles_os = {
  cpucycles_os_read_text,
  real_getenv,
  cpucycles_os_nanoseconds,
  cpucycles_os_perf_event_open,
};
