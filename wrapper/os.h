/* The seam between the library and the operating system.  Everything the
   selection and the counters learn from files, the environment, the clock or
   the kernel goes through cpucycles_os, so tests can play a machine. */
#ifndef CPUCYCLES_OS_H
#define CPUCYCLES_OS_H

#include <stddef.h>

struct cpucycles_os {
  /* Reads at most size-1 bytes of path into buf and NUL-terminates them.
     Returns the byte count, or -1 (buf then holds ""). */
  long (*read_text)(const char *path, char *buf, size_t size);
  /* getenv(3), or a test's idea of it. */
  const char *(*getenv)(const char *name);
  /* A clock that never goes backwards, in nanoseconds. */
  long long (*nanoseconds)(void);
  /* The perf_event_open system call; -1 with errno set on failure
     (ENOSYS where the OS has none). */
  long (*perf_event_open)(void *attr, int pid, int cpu, int group_fd,
                          unsigned long flags);
};

extern struct cpucycles_os cpucycles_os;

/* The real ones, for tests that wrap them. */
long cpucycles_os_read_text(const char *path, char *buf, size_t size);
long long cpucycles_os_nanoseconds(void);
long cpucycles_os_perf_event_open(void *attr, int pid, int cpu, int group_fd,
                                  unsigned long flags);

#endif
