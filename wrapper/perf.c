/* perf_event done once, for every counter that needs it: opening the
   cycles event (with Intel's E-core twin), the knobs that gate user-level
   reads, mapping the event's page, reading and closing. */
#ifdef __linux__
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "counter.h"
#include "os.h"
#include "perf.h"

#ifndef PERF_FLAG_FD_CLOEXEC
#define PERF_FLAG_FD_CLOEXEC 0 /* old headers: nothing to ask for */
#endif

/* Intel's architectural "unhalted core cycles" event (event 0x3c, umask
   0), what cycles means on a raw Intel PMU such as cpu_atom. */
#define INTEL_RAW_CYCLES 0x3c

#define PARANOID "/proc/sys/kernel/perf_event_paranoid"
#define USER_ACCESS "/proc/sys/kernel/perf_user_access"
#define ATOM_TYPE "/sys/bus/event_source/devices/cpu_atom/type"
#define PARANOID_MOST 2    /* above this, no user-level counting */
#define RDPMC_ALWAYS 2     /* rdpmc file: RDPMC allowed everywhere */

static const char *const rdpmc_files[] = {
  "/sys/devices/cpu/rdpmc", "/sys/devices/cpu_core/rdpmc", "/sys/devices/cpu_atom/rdpmc",
};

/* Room for the formatted reasons of one selection: each counter says at
   most a couple of things, and a trace keeps pointers to them.  The room
   is taken from the heap when the first one is said: such reasons are
   rare (an old PMU, a paranoid setting), and 4 KB of static text would
   push the selection's own state onto one more page, a page fault that
   costs over 10 microseconds in a virtual machine. */
#define SAYS_SLOTS 32
#define SAYS_SIZE 128
static char *says_text;
static unsigned int says_next;

void cpucycles_perf_says(const char *format, ...)
{
  char *text;
  va_list ap;
  if (!says_text) says_text = malloc(SAYS_SLOTS * SAYS_SIZE);
  if (!says_text) {
    cpucycles_counter_says(format); /* the words without their numbers */
    return;
  }
  text = says_text + (says_next++ % SAYS_SLOTS) * SAYS_SIZE;
  va_start(ap, format);
  vsnprintf(text, SAYS_SIZE, format, ap);
  va_end(ap);
  cpucycles_counter_says(text);
}

/* A table of pointers, which loading relocates: a switch would become a
   jump table in .rodata, a page the first call otherwise never reads
   (doc/selection.md, "First-call time"). */
static const struct { int err; const char *words; } perf_words[] = {
  { EACCES, "perf_event_open: EACCES: perf_event_paranoid too high; run cpucycles-open as root" },
  { EPERM, "perf_event_open: EPERM: not permitted (paranoid setting or seccomp)" },
  { ENOENT, "perf_event_open: ENOENT: no hardware cycle event (no PMU exposed, e.g. in a guest)" },
  { ENODEV, "perf_event_open: ENODEV: no PMU for this event" },
  { ENOSYS, "perf_event_open: ENOSYS: kernel without perf_event" },
  { EOPNOTSUPP, "perf_event_open: EOPNOTSUPP: event not supported here" },
  { EINVAL, "perf_event_open: EINVAL: event rejected by this kernel" },
  { EMFILE, "perf_event_open: EMFILE: out of file descriptors" },
  { EBUSY, "perf_event_open: EBUSY: counter in use by someone else" },
};

const char *cpucycles_perf_words(int err)
{
  unsigned int i;
  for (i = 0; i < sizeof perf_words / sizeof perf_words[0]; ++i)
    if (perf_words[i].err == err) return perf_words[i].words;
  return "perf_event_open failed";
}

/* An event the kernel said it does not have (ENOENT, ENODEV, ENOSYS,
   and no more) stays missing for the life of the process; remembering it
   saves the next perf counter the same refused system call. */
static struct {
  int known;
  unsigned int type;
  unsigned long long config, config1;
  int err;
} missing;

static int permanent(int err)
{
  return err == ENOSYS || err == ENOENT || err == ENODEV;
}

void cpucycles_perf_forget(void)
{
  missing.known = 0;
}

/* The four exclude combinations; *err is the last errno on failure. */
static int open_quietly(struct perf_event_attr *attr, int *err)
{
  int i;
  *err = ENOSYS;
  if (missing.known && missing.type == attr->type && missing.config == attr->config &&
      missing.config1 == attr->config1) {
    *err = missing.err;
    return -1;
  }
  /* preferring exclusion: count only this program where the PMU can;
     i = 0, 1, 2, 3 excludes kernel and hypervisor, kernel, hypervisor,
     nothing (bits, not a table in .rodata: doc/selection.md, "First-call
     time") */
  for (i = 0; i < 4; ++i) {
    long fd;
    attr->exclude_kernel = i < 2;
    attr->exclude_hv = !(i & 1);
    fd = cpucycles_os.perf_event_open(attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0) return (int) fd;
    *err = errno;
    if (permanent(*err)) {
      missing.known = 1;
      missing.type = attr->type;
      missing.config = attr->config;
      missing.config1 = attr->config1;
      missing.err = *err;
      break;
    }
    /* nor will this change with the exclude bits */
    if (*err == EMFILE) break;
  }
  return -1;
}

int cpucycles_perf_open(struct perf_event_attr *attr)
{
  int err;
  int fd = open_quietly(attr, &err);
  if (fd < 0) cpucycles_counter_says(cpucycles_perf_words(err));
  return fd;
}

/* A whole-number knob; 0 if the file is missing or holds no number. */
static int read_knob(const char *path, long *value)
{
  char text[64], *end;
  if (cpucycles_os.read_text(path, text, sizeof text) <= 0) return 0;
  *value = strtol(text, &end, 10);
  return end != text;
}

int cpucycles_perf_rdpmc_allowed(void)
{
  long value;
  unsigned int i;
  if (!read_knob(PARANOID, &value)) {
    cpucycles_counter_says("no " PARANOID ": kernel without perf_event");
    return 0;
  }
  if (value > PARANOID_MOST) {
    cpucycles_perf_says("perf_event_paranoid is %ld; run cpucycles-open as root", value);
    return 0;
  }
  for (i = 0; i < sizeof rdpmc_files / sizeof rdpmc_files[0]; ++i)
    if (read_knob(rdpmc_files[i], &value) && value < RDPMC_ALWAYS) {
      cpucycles_perf_says("%s is %ld, not 2; run cpucycles-open as root", rdpmc_files[i], value);
      return 0;
    }
  return 1;
}

int cpucycles_perf_user_access(void)
{
  long value;
  if (read_knob(USER_ACCESS, &value) && value < 1) {
    cpucycles_perf_says("perf_user_access is %ld; run cpucycles-open as root", value);
    return 0;
  }
  return 1;
}

long cpucycles_perf_atom_type(void)
{
  long value;
  return read_knob(ATOM_TYPE, &value) && value >= 0 ? value : -1;
}

int cpucycles_perf_open_cycles(struct cpucycles_perf *p, unsigned long long config1)
{
  struct perf_event_attr attr;
  long atom;
  int fd, err;

  p->fds = 0; /* fd[i] means something only for i < fds */
  p->page = 0;
  memset(&attr, 0, sizeof attr);
  attr.type = PERF_TYPE_HARDWARE;
  attr.size = sizeof attr;
  attr.config = PERF_COUNT_HW_CPU_CYCLES;
  attr.config1 = config1;
  fd = cpucycles_perf_open(&attr);
  if (fd < 0) return 0;
  p->fd[p->fds++] = fd;
  /* the event belongs to this thread (doc/counters.md, threads and fork) */
  cpucycles_counter_says("follows only the thread that made the first call; measure from that thread");

  atom = cpucycles_perf_atom_type();
  if (atom >= 0) {
    attr.type = (unsigned int) atom;
    attr.config = INTEL_RAW_CYCLES;
    fd = open_quietly(&attr, &err);
    if (fd >= 0)
      p->fd[p->fds++] = fd;
    else
      cpucycles_perf_says("E-core PMU (type %ld) refused the cycles event (%s); counts stop on E-cores",
                          atom, cpucycles_perf_words(err));
  }
  return 1;
}

int cpucycles_perf_map(struct cpucycles_perf *p)
{
  p->page = cpucycles_os.map_page(p->fd[0]);
  if (!p->page) cpucycles_counter_says("cannot map the perf event page (mmap failed)");
  return p->page != 0;
}

int cpucycles_perf_user_counter(struct cpucycles_perf *p, unsigned long long config1)
{
  if (!cpucycles_perf_user_access()) return 0;
  if (!cpucycles_perf_open_cycles(p, config1)) return 0;
  if (cpucycles_perf_map(p)) return 1;
  cpucycles_perf_close(p);
  return 0;
}

long long cpucycles_perf_sum(const struct cpucycles_perf *p, int toggle)
{
  long long sum = 0;
  int i;
  if (toggle)
    for (i = 0; i < p->fds; ++i) cpucycles_os.ioctl_fd(p->fd[i], PERF_EVENT_IOC_DISABLE, 0);
  for (i = 0; i < p->fds; ++i) {
    long long count;
    if (cpucycles_os.read_fd(p->fd[i], &count, sizeof count) != sizeof count) {
      sum = -1;
      break;
    }
    sum += count;
  }
  if (toggle)
    for (i = 0; i < p->fds; ++i) cpucycles_os.ioctl_fd(p->fd[i], PERF_EVENT_IOC_ENABLE, 0);
  return sum;
}

void cpucycles_perf_close(struct cpucycles_perf *p)
{
  int i;
  if (p->page) cpucycles_os.unmap_page((void *) p->page);
  p->page = 0;
  for (i = 0; i < p->fds; ++i) cpucycles_os.close_fd(p->fd[i]);
  p->fds = 0;
}

#else
typedef int cpucycles_perf_unused; /* ISO C wants something in a file */
#endif
