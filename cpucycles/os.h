/* What the library asks of the operating system, in one list.  The wrapper
   and the counters call these directly (no function pointers); tests link
   tests/fakeos.c before the library instead, which defines the same names
   and plays another machine.  So cpucycles/os.c holds these and nothing
   else. */
#ifndef CPUCYCLES_OS_H
#define CPUCYCLES_OS_H

#include <stddef.h>
#if __STDC_HOSTED__
#include <signal.h>
#endif

/* On what runs once per process or thread (setup, selection, the trace):
   GCC and clang then optimize it for size, and what it alone calls too,
   and keep it apart from the reads.  Defined here, in the header every
   other one includes. */
#ifdef __GNUC__
#define CPUCYCLES_COLD __attribute__((cold))
#else
#define CPUCYCLES_COLD
#endif

/* Reads at most size-1 bytes of path, from byte offset on, into buf and
   NUL-terminates them.  Returns the byte count, less than size-1 only at
   the end of the file; or -1 (buf then holds "") if path is missing,
   unreadable or not a regular file.  A FIFO or a device is never read nor
   waited for; /proc and /sys files are regular files.  Callers that need
   more than one buffer's worth read on from a later offset. */
CPUCYCLES_COLD long cpucycles_os_read_text(const char *path, long offset, char *buf, size_t size);

/* getenv(3), ignoring the environment in a setuid program where the C
   library can tell. */
CPUCYCLES_COLD const char *cpucycles_os_getenv(const char *name);

/* CLOCK_MONOTONIC in nanoseconds (gettimeofday where there is none). */
long long cpucycles_os_nanoseconds(void);

/* perf_event_open(2), its fd moved out of the low numbers; -1 with errno
   set (ENOSYS where the OS has none). */
CPUCYCLES_COLD long cpucycles_os_perf_event_open(void *attr, int pid, int cpu, int group_fd,
                                                 unsigned long flags);

/* read(2), ioctl(2) with an integer argument, close(2), for perf fds;
   read and close are never where a pthread_cancel takes effect. */
long cpucycles_os_read_fd(int fd, void *buf, size_t size);
int cpucycles_os_ioctl_fd(int fd, unsigned long request, unsigned long arg);
int cpucycles_os_close_fd(int fd);

/* Whether fd is still the perf event of that id (PERF_EVENT_IOC_ID, which
   every other kind of fd refuses): the only fds the library reads or
   closes. */
int cpucycles_os_perf_owned(int fd, unsigned long long id);

/* The soft limit on open fds (RLIMIT_NOFILE), at most 1 << 20. */
CPUCYCLES_COLD long cpucycles_os_fd_limit(void);

/* The kernel's id of the calling thread (0 where the OS has none), and
   whether the thread of process pid with that id is gone (0 where the OS
   cannot say, or a thread with that id lives: a zombie main thread, a new
   thread given the id again).  getpid(2). */
int cpucycles_os_thread_id(void);
CPUCYCLES_COLD int cpucycles_os_thread_gone(int pid, int tid);
CPUCYCLES_COLD int cpucycles_os_process_id(void);

/* Maps the first page of a perf fd (its perf_event_mmap_page) read-only,
   over the mapping at at if not 0 (replaced in one step); 0 on failure. */
CPUCYCLES_COLD void *cpucycles_os_map_page(int fd, void *at);
CPUCYCLES_COLD void cpucycles_os_unmap_page(void *page);

/* A page of zeros that the kernel wipes again in a child process
   (MADV_WIPEONFORK, Linux 4.14; a plain page where it cannot), never
   unmapped; 0 on failure. */
CPUCYCLES_COLD int *cpucycles_os_private_page(void);

/* Holds back every signal but the synchronous ones (the faults, SIGTRAP,
   SIGSYS) in this thread, the old mask into *old; and puts *old back,
   where a held-back signal's handler then runs. */
#if __STDC_HOSTED__ /* a freestanding counter test has no signals */
CPUCYCLES_COLD void cpucycles_os_hold_signals(sigset_t *old);
CPUCYCLES_COLD void cpucycles_os_release_signals(const sigset_t *old);
#endif

/* CPUID leaf, subleaf into r = eax, ebx, ecx, edx.  Returns 0 (r all zero)
   where there is no CPUID: not x86, or a 486 without it. */
CPUCYCLES_COLD int cpucycles_os_cpuid(unsigned int leaf, unsigned int subleaf, unsigned int r[4]);

/* Whether RDTSC faults in this process: 1 (prctl PR_TSC_SIGSEGV), 0 (it
   may run), -1 (the OS cannot say). */
CPUCYCLES_COLD int cpucycles_os_tsc_faults(void);

#endif
