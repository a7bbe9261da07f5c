/* perf_event done once for every counter that needs it: opening the cycles
   event (with Intel's E-core twin), the knobs that gate user-level reads,
   mapping the event's page, reading and closing. */
#ifdef __linux__
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "perf.h"

#ifndef PERF_FLAG_FD_CLOEXEC
#define PERF_FLAG_FD_CLOEXEC 0 /* old headers: nothing to ask for */
#endif

/* Intel's architectural "unhalted core cycles" event (0x3c, umask 0): what
   cycles means on a raw Intel PMU such as cpu_atom. */
#define INTEL_RAW_CYCLES 0x3c

#define PARANOID "/proc/sys/kernel/perf_event_paranoid"
#define ATOM_TYPE "/sys/bus/event_source/devices/cpu_atom/type"
#define PARANOID_MOST 2 /* above this, no user-level counting */
#define RDPMC_ALWAYS 2  /* rdpmc file: RDPMC allowed everywhere */

static const char *words(int err)
{
  switch (err) {
    case EACCES: return "EACCES: perf_event_paranoid too high; run cpucycles-open as root";
    case EPERM: return "EPERM: not permitted (paranoid setting or seccomp)";
    case ENOENT: return "ENOENT: no hardware cycle event (no PMU exposed, e.g. in a guest)";
    case ENODEV: return "ENODEV: no PMU for this event";
    case ENOSYS: return "ENOSYS: kernel without perf_event";
    case EOPNOTSUPP: return "EOPNOTSUPP: event not supported here";
    case EINVAL: return "EINVAL: event rejected by this kernel";
    case EMFILE: return "EMFILE: out of file descriptors";
    case EBUSY: return "EBUSY: counter in use by someone else";
  }
  return "failed";
}

/* An event the kernel said it does not have (ENOENT, ENODEV, ENOSYS)
   stays missing for the life of the process; remembering it spares the
   next perf counter the same refused system call. */
static struct {
  int known, err;
  unsigned int type;
  unsigned long long config, config1;
} missing;

/* Tries exclude_kernel/exclude_hv from most to least exclusive (count only
   this program where the PMU can).  Returns the fd, or -1 with *err. */
static int open_event(struct perf_event_attr *attr, int *err)
{
  int i;
  if (missing.known && missing.type == attr->type && missing.config == attr->config &&
      missing.config1 == attr->config1) {
    *err = missing.err;
    return -1;
  }
  *err = ENOSYS;
  for (i = 0; i < 4; ++i) {
    long fd;
    attr->exclude_kernel = i < 2;
    attr->exclude_hv = i == 0 || i == 2;
    fd = cpucycles_os_perf_event_open(attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0) return (int) fd;
    *err = errno;
    if (*err == ENOSYS || *err == ENOENT || *err == ENODEV) {
      missing.known = 1;
      missing.err = *err;
      missing.type = attr->type;
      missing.config = attr->config;
      missing.config1 = attr->config1;
      break;
    }
    if (*err == EMFILE) break; /* nor will the exclude bits change this */
  }
  return -1;
}

int cpucycles_perf_open_cycles(struct cpucycles_perf *p, unsigned long long config1,
                               struct cpucycles_probe *probe)
{
  struct perf_event_attr attr;
  long atom;
  int fd, err;

  p->fds = 0;
  p->page = 0;
  memset(&attr, 0, sizeof attr);
  attr.type = PERF_TYPE_HARDWARE;
  attr.size = sizeof attr;
  attr.config = PERF_COUNT_HW_CPU_CYCLES;
  attr.config1 = config1;
  fd = open_event(&attr, &err);
  if (fd < 0) {
    cpucycles_say(probe, "perf_event_open: %s", words(err));
    return 0;
  }
  p->fd[p->fds++] = fd;
  probe->per_thread = 1;
  cpucycles_say(probe, "follows only the thread that made the first call; measure from that thread");

  if (cpucycles_read_knob(ATOM_TYPE, &atom) && atom >= 0) {
    attr.type = (unsigned int) atom;
    attr.config = INTEL_RAW_CYCLES;
    fd = open_event(&attr, &err);
    if (fd >= 0)
      p->fd[p->fds++] = fd;
    else
      cpucycles_say(probe, "E-core PMU (type %ld) refused the cycles event (%s); counts stop on E-cores",
                    atom, words(err));
  }
  return 1;
}

int cpucycles_perf_map(struct cpucycles_perf *p, struct cpucycles_probe *probe)
{
  p->page = cpucycles_os_map_page(p->fd[0]);
  if (!p->page) cpucycles_say(probe, "cannot map the perf event page (mmap failed)");
  return p->page != 0;
}

long cpucycles_perf_rdpmc_knob(const char **path)
{
  static const char *const files[] = {
    "/sys/devices/cpu/rdpmc", "/sys/devices/cpu_core/rdpmc", "/sys/devices/cpu_atom/rdpmc",
  };
  long least = -1, value;
  unsigned int i;
  for (i = 0; i < sizeof files / sizeof files[0]; ++i)
    if (cpucycles_read_knob(files[i], &value) && (least < 0 || value < least)) {
      least = value;
      *path = files[i];
    }
  return least;
}

int cpucycles_perf_rdpmc_allowed(struct cpucycles_probe *probe, int page)
{
  const char *path;
  long value;
  if (!cpucycles_read_knob(PARANOID, &value)) {
    cpucycles_say(probe, "no %s: kernel without perf_event", PARANOID);
    return 0;
  }
  if (value > PARANOID_MOST) {
    cpucycles_say(probe, "perf_event_paranoid is %ld; run cpucycles-open as root", value);
    return 0;
  }
  value = cpucycles_perf_rdpmc_knob(&path);
  if (value < 0 && !page) {
    cpucycles_say(probe, "no /sys/devices/cpu/rdpmc: cannot tell whether RDPMC may run");
    return 0;
  }
  if (value >= 0 && value < RDPMC_ALWAYS) {
    cpucycles_say(probe, "%s is %ld, not 2; run cpucycles-open as root", path, value);
    return 0;
  }
  return 1;
}

int cpucycles_perf_user_counter(struct cpucycles_perf *p, unsigned long long config1,
                                struct cpucycles_probe *probe)
{
  long value;
  if (cpucycles_read_knob(CPUCYCLES_PERF_USER_ACCESS, &value) && value < 1) {
    cpucycles_say(probe, "perf_user_access is %ld; run cpucycles-open as root", value);
    return 0;
  }
  if (!cpucycles_perf_open_cycles(p, config1, probe)) return 0;
  if (cpucycles_perf_map(p, probe)) return 1;
  cpucycles_perf_close(p);
  return 0;
}

long long cpucycles_perf_sum(const struct cpucycles_perf *p, int toggle)
{
  long long sum = 0;
  int i;
  if (toggle)
    for (i = 0; i < p->fds; ++i) cpucycles_os_ioctl_fd(p->fd[i], PERF_EVENT_IOC_DISABLE, 0);
  for (i = 0; i < p->fds; ++i) {
    long long count;
    if (cpucycles_os_read_fd(p->fd[i], &count, sizeof count) != sizeof count) {
      sum = -1;
      break;
    }
    sum += count;
  }
  if (toggle)
    for (i = 0; i < p->fds; ++i) cpucycles_os_ioctl_fd(p->fd[i], PERF_EVENT_IOC_ENABLE, 0);
  return sum;
}

void cpucycles_perf_close(struct cpucycles_perf *p)
{
  int i;
  if (p->page) cpucycles_os_unmap_page((void *) p->page);
  p->page = 0;
  for (i = 0; i < p->fds; ++i) cpucycles_os_close_fd(p->fd[i]);
  p->fds = 0;
}

#else
typedef int cpucycles_perf_unused; /* ISO C wants something in a file */
#endif
