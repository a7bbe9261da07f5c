/* The OS seam for tests (fakeos.h): the real cpucycles/os.c compiled under
   real_* names, and every cpucycles_os_* name calling the test's hook
   first.  Linked before libcpucycles.a, this object takes the place of
   the library's os.o, so the library itself has no seam to pay for. */
#define cpucycles_os_read_text real_read_text
#define cpucycles_os_getenv real_getenv
#define cpucycles_os_nanoseconds real_nanoseconds
#define cpucycles_os_perf_event_open real_perf_event_open
#define cpucycles_os_read_fd real_read_fd
#define cpucycles_os_ioctl_fd real_ioctl_fd
#define cpucycles_os_close_fd real_close_fd
#define cpucycles_os_perf_owned real_perf_owned
#define cpucycles_os_map_page real_map_page
#define cpucycles_os_unmap_page real_unmap_page
#define cpucycles_os_cpuid real_cpuid
#define cpucycles_os_tsc_faults real_tsc_faults
#define cpucycles_os_fd_limit real_fd_limit
#define cpucycles_os_thread_id real_thread_id
#define cpucycles_os_thread_gone real_thread_gone
#define cpucycles_os_process_id real_process_id
#define cpucycles_os_private_page real_private_page
#define cpucycles_os_hold_signals real_hold_signals
#define cpucycles_os_release_signals real_release_signals
#include "../cpucycles/os.c"
#undef cpucycles_os_read_text
#undef cpucycles_os_getenv
#undef cpucycles_os_nanoseconds
#undef cpucycles_os_perf_event_open
#undef cpucycles_os_read_fd
#undef cpucycles_os_ioctl_fd
#undef cpucycles_os_close_fd
#undef cpucycles_os_perf_owned
#undef cpucycles_os_map_page
#undef cpucycles_os_unmap_page
#undef cpucycles_os_cpuid
#undef cpucycles_os_tsc_faults
#undef cpucycles_os_fd_limit
#undef cpucycles_os_thread_id
#undef cpucycles_os_thread_gone
#undef cpucycles_os_process_id
#undef cpucycles_os_private_page
#undef cpucycles_os_hold_signals
#undef cpucycles_os_release_signals
#include "fakeos.h"
#include <stdio.h>
#include <string.h>
#include "internal.h"
#ifdef __linux__
#include <linux/perf_event.h>
#endif

struct fake_os fake_os;

#define HOOK(name, args) (fake_os.name ? fake_os.name args : real_##name args)

long cpucycles_os_read_text(const char *path, long offset, char *buf, size_t size)
{
  return HOOK(read_text, (path, offset, buf, size));
}

const char *cpucycles_os_getenv(const char *name)
{
  return HOOK(getenv, (name));
}

long long cpucycles_os_nanoseconds(void)
{
  return HOOK(nanoseconds, ());
}

long cpucycles_os_perf_event_open(void *attr, int pid, int cpu, int group_fd, unsigned long flags)
{
  return HOOK(perf_event_open, (attr, pid, cpu, group_fd, flags));
}

long cpucycles_os_read_fd(int fd, void *buf, size_t size)
{
  return HOOK(read_fd, (fd, buf, size));
}

int cpucycles_os_ioctl_fd(int fd, unsigned long request, unsigned long arg)
{
  return HOOK(ioctl_fd, (fd, request, arg));
}

int cpucycles_os_close_fd(int fd)
{
  return HOOK(close_fd, (fd));
}

int cpucycles_os_perf_owned(int fd, unsigned long long id)
{
  return HOOK(perf_owned, (fd, id));
}

void *cpucycles_os_map_page(int fd, void *at)
{
  return HOOK(map_page, (fd, at));
}

void cpucycles_os_unmap_page(void *page)
{
  if (fake_os.unmap_page)
    fake_os.unmap_page(page);
  else
    real_unmap_page(page);
}

int cpucycles_os_cpuid(unsigned int leaf, unsigned int subleaf, unsigned int r[4])
{
  return HOOK(cpuid, (leaf, subleaf, r));
}

int cpucycles_os_tsc_faults(void)
{
  return HOOK(tsc_faults, ());
}

long cpucycles_os_fd_limit(void)
{
  return HOOK(fd_limit, ());
}

int cpucycles_os_thread_id(void)
{
  return HOOK(thread_id, ());
}

int cpucycles_os_thread_gone(int pid, int tid)
{
  return HOOK(thread_gone, (pid, tid));
}

int cpucycles_os_process_id(void)
{
  return HOOK(process_id, ());
}

int *cpucycles_os_private_page(void)
{
  return HOOK(private_page, ());
}

void cpucycles_os_hold_signals(sigset_t *old)
{
  if (fake_os.hold_signals)
    fake_os.hold_signals(old);
  else
    real_hold_signals(old);
}

void cpucycles_os_release_signals(const sigset_t *old)
{
  if (fake_os.release_signals)
    fake_os.release_signals(old);
  else
    real_release_signals(old);
}

#ifdef __linux__
/* A hook for perf_event_open on machines without a PMU: the cycles event
   becomes the task clock, a software event every kernel has, so the perf
   counters really open, map, read and close fds. */
long fake_software_cycles(void *attr, int pid, int cpu, int group_fd, unsigned long flags)
{
  struct perf_event_attr a = *(struct perf_event_attr *) attr;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_TASK_CLOCK;
  a.config1 = 0;
  return real_perf_event_open(&a, pid, cpu, group_fd, flags);
}

int fake_perfevent_alone(const char *name, struct cpucycles_counter *table, struct cpucycles_selection *s)
{
  int i, n = 0;
  fake_os.perf_event_open = fake_software_cycles;
  for (i = 0; i < cpucycles_counter_count; ++i)
    if (!strcmp(cpucycles_counters[i].name, "default-perfevent") || i == cpucycles_counter_count - 1)
      table[n++] = cpucycles_counters[i];
  if (n == 2) cpucycles_select(table, n, vsnprintf, s);
  if (n == 2 && s->chosen == 0) return 1;
  printf("skip %s: %s\n", name, n != 2 ? "no default-perfevent in this build" : "the task clock cannot be opened here");
  fflush(stdout);
  return 0;
}
#endif
