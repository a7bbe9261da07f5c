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
  /* read(2), ioctl(2) with an integer argument and close(2), for the
     perf fds; a test counts and fakes them. */
  long (*read_fd)(int fd, void *buf, size_t size);
  int (*ioctl_fd)(int fd, unsigned long request, unsigned long arg);
  int (*close_fd)(int fd);
  /* Maps the first page of a perf fd (its struct perf_event_mmap_page)
     read-only; 0 on failure.  unmap_page undoes it. */
  void *(*map_page)(int fd);
  void (*unmap_page)(void *page);
  /* CPUID leaf, subleaf into r = eax, ebx, ecx, edx.  Returns 0 (and r all
     zero) where there is no CPUID: not x86, or a 486 without it. */
  int (*cpuid)(unsigned int leaf, unsigned int subleaf, unsigned int r[4]);
};

extern struct cpucycles_os cpucycles_os;

/* The real ones, for tests that wrap them. */
long cpucycles_os_read_text(const char *path, char *buf, size_t size);
long long cpucycles_os_nanoseconds(void);
long cpucycles_os_perf_event_open(void *attr, int pid, int cpu, int group_fd,
                                  unsigned long flags);
int cpucycles_os_cpuid(unsigned int leaf, unsigned int subleaf, unsigned int r[4]);

#endif
