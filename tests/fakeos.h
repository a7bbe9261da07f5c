/* The OS seam as tests play it.  tests/fakeos.c, linked before the
   library, defines every cpucycles_os_* function (cpucycles/os.h): each
   calls the hook set here, or the real one when the hook is 0. */
#ifndef CPUCYCLES_TEST_FAKEOS_H
#define CPUCYCLES_TEST_FAKEOS_H

#include <signal.h>
#include <stddef.h>

struct fake_os {
  long (*read_text)(const char *path, long offset, char *buf, size_t size);
  const char *(*getenv)(const char *name);
  long long (*nanoseconds)(void);
  long (*perf_event_open)(void *attr, int pid, int cpu, int group_fd, unsigned long flags);
  long (*read_fd)(int fd, void *buf, size_t size);
  int (*ioctl_fd)(int fd, unsigned long request, unsigned long arg);
  int (*close_fd)(int fd);
  int (*perf_owned)(int fd, unsigned long long id);
  void *(*map_page)(int fd, void *at);
  void (*unmap_page)(void *page);
  int (*cpuid)(unsigned int leaf, unsigned int subleaf, unsigned int r[4]);
  int (*tsc_faults)(void);
  long (*fd_limit)(void);
  int (*thread_id)(void);
  int (*thread_gone)(int pid, int tid);
  int (*process_id)(void);
  int *(*private_page)(void);
  void (*hold_signals)(sigset_t *old);
  void (*release_signals)(const sigset_t *old);
};
extern struct fake_os fake_os;

/* the real ones, for hooks that wrap them */
long real_read_text(const char *path, long offset, char *buf, size_t size);
long long real_nanoseconds(void);
long real_perf_event_open(void *attr, int pid, int cpu, int group_fd, unsigned long flags);
long real_read_fd(int fd, void *buf, size_t size);
void *real_map_page(int fd, void *at);
void real_unmap_page(void *page);

/* perf_event_open with the cycles event swapped for the task clock (a
   software event), for perf counters on machines without a PMU */
long fake_software_cycles(void *attr, int pid, int cpu, int group_fd, unsigned long flags);

/* default-perfevent chosen alone (with default-zero, the last resort) over
   fake_software_cycles, as the tests of the per-thread events read it:
   1, or 0 after printing "skip NAME: why" (no default-perfevent in the
   build, or no task clock here).  table keeps the two rows. */
struct cpucycles_counter;
struct cpucycles_selection;
int fake_perfevent_alone(const char *name, struct cpucycles_counter *table, struct cpucycles_selection *s);

#endif
