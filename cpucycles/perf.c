/* perf_event done once for every counter that needs it: each thread's
   cycles event (with Intel's E-core twin), opened on the thread's first
   read and closed at its exit; the knobs that gate user-level reads; the
   read(2) path, which reads only fds that are still our events. */
#include "cpucycles-config.h"
#if defined(__linux__) && defined(CPUCYCLES_HAVE_PERF_EVENT)
#include <errno.h>
#include <pthread.h>
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
#define SETUP_SPIN 10000 /* the setup's busy loop, in steps */
#define RETRY_NS 1000000 /* a thread without an event tries again after 1 ms */

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

/* ---- every thread's open events, for closing them ---- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct cpucycles_perf_thread *open_events;
static pthread_key_t exit_key;
static int exit_key_made;

/* Which events go and how release() treats their page */
#define UNMAP 0  /* all: no other thread reads this counter now: selection, dlclose */
#define RETIRE 1 /* this thread's: others may be reading: unmap unless the counter must keep it */
#define FORGET 2 /* a forked child: the page is not there */

/* Gives back what t holds: the page (which keeps its event alive) and
   the fds that are still ours; t then has no event. */
static void release(struct cpucycles_perf_thread *t, int how)
{
  int i;
  if (t->page && (how == UNMAP || (how == RETIRE && !t->counter->keep_mapped)))
    cpucycles_os_unmap_page((void *) t->page);
  t->page = 0;
  for (i = 0; i < t->fds; ++i)
    if (cpucycles_os_perf_owned(t->fd[i], t->id[i])) cpucycles_os_close_fd(t->fd[i]);
  t->fds = 0;
}

/* Unlists the events of counter c (0: any) that go (how), under the lock,
   then releases them (the system calls outside the lock: close is a
   cancellation point). */
static void release_where(const struct cpucycles_perf *c, int how)
{
  struct cpucycles_perf_thread **p = &open_events, *picked = 0;
  if (!__atomic_load_n(&open_events, __ATOMIC_ACQUIRE)) return; /* the selection closes many that never opened */
  pthread_mutex_lock(&lock);
  while (*p) {
    struct cpucycles_perf_thread *t = *p;
    if ((!c || t->counter == c) && (how != RETIRE || pthread_equal((pthread_t) t->owner, pthread_self()))) {
      *p = t->next;
      t->next = picked;
      picked = t;
    } else {
      p = &t->next;
    }
  }
  pthread_mutex_unlock(&lock);
  while (picked) {
    struct cpucycles_perf_thread *t = picked;
    picked = t->next;
    release(t, how);
  }
}

static void thread_exit(void *unused)
{
  (void) unused;
  release_where(0, RETIRE);
}

void cpucycles_perf_close(const struct cpucycles_perf *c)
{
  release_where(c, UNMAP);
}

/* In a child of fork the pages are gone (perf maps them VM_DONTCOPY) and
   the fds count the parent's threads: close them; the child's threads open
   their own on their next read. */
static void fork_prepare(void) { pthread_mutex_lock(&lock); }
static void fork_parent(void) { pthread_mutex_unlock(&lock); }
static void fork_child(void)
{
  pthread_mutex_unlock(&lock);
  release_where(0, FORGET);
}

__attribute__((constructor)) static void perf_load(void)
{
  exit_key_made = pthread_key_create(&exit_key, thread_exit) == 0;
  pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* Unloaded, no thread may keep a destructor into unmapped code (the
   wrapper's own destructor has closed the chosen counter's events). */
__attribute__((destructor)) static void perf_unload(void)
{
  if (exit_key_made) pthread_key_delete(exit_key);
  exit_key_made = 0;
}

/* ---- opening ---- */

/* An event the kernel said it does not have (ENOENT, ENODEV, ENOSYS)
   stays missing for the life of the process; remembering it spares the
   next perf counter the same refused system call (err 0: none yet). */
static struct {
  int err;
  unsigned int type;
  unsigned long long config, config1;
} missing;

/* Tries exclude_kernel/exclude_hv from most to least exclusive (count only
   this program where the PMU can).  Returns the fd, or -1 with *err. */
static int open_event(struct perf_event_attr *attr, int *err)
{
  int i;
  if (missing.err && missing.type == attr->type && missing.config == attr->config &&
      missing.config1 == attr->config1) {
    *err = missing.err;
    return -1;
  }
  for (i = 0; i < 4; ++i) {
    long fd;
    attr->exclude_kernel = i < 2;
    attr->exclude_hv = i == 0 || i == 2;
    fd = cpucycles_os_perf_event_open(attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0) return (int) fd;
    *err = errno;
    if (*err == ENOSYS || *err == ENOENT || *err == ENODEV) {
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

/* One event into t, and its id. */
static int add_event(struct cpucycles_perf_thread *t, struct perf_event_attr *attr, int *err)
{
  int fd = open_event(attr, err);
  if (fd < 0) return 0;
  t->id[t->fds] = 0;
  if (cpucycles_os_ioctl_fd(fd, PERF_EVENT_IOC_ID, (unsigned long) &t->id[t->fds]) != 0) {
    *err = errno;
    cpucycles_os_close_fd(fd);
    return 0;
  }
  t->fd[t->fds++] = fd;
  return 1;
}

/* Opens this thread's events into t (and maps fd[0]'s page if c reads
   through it) and lists them.  Returns 1, or 0 with nothing left open,
   after saying why; an E-core refusal is only said: counting on P-cores
   goes on. */
static int open_thread(const struct cpucycles_perf *c, struct cpucycles_perf_thread *t, struct cpucycles_probe *probe)
{
  struct perf_event_attr attr;
  int err;
  long atom;
  t->fds = 0;
  t->page = 0;
  t->counter = c;
  memset(&attr, 0, sizeof attr);
  attr.type = PERF_TYPE_HARDWARE;
  attr.size = sizeof attr;
  attr.config = PERF_COUNT_HW_CPU_CYCLES;
  attr.config1 = c->config1;
  attr.pinned = 1;
  attr.read_format = PERF_FORMAT_ID;
  if (!add_event(t, &attr, &err)) {
    cpucycles_say(probe, "perf_event_open: %s", words(err));
    return 0;
  }
  if (c->rdpmc && !(t->page = cpucycles_os_map_page(t->fd[0]))) {
    release(t, UNMAP);
    cpucycles_say(probe, "cannot map the perf event page (mmap failed)");
    return 0;
  }
  if (cpucycles_read_knob(ATOM_TYPE, &atom) && atom >= 0) {
    attr.type = (unsigned int) atom;
    attr.config = INTEL_RAW_CYCLES;
    if (!add_event(t, &attr, &err))
      cpucycles_say(probe, "E-core PMU (type %ld) refused the cycles event (%s); counts stop on E-cores", atom,
                    words(err));
  }
  t->owner = (unsigned long) pthread_self();
  pthread_mutex_lock(&lock);
  t->next = open_events;
  __atomic_store_n(&open_events, t, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&lock);
  if (exit_key_made) pthread_setspecific(exit_key, t);
  return 1;
}

/* The sum of t's counts by read(2), each fd checked to be still the event
   we opened (its id); -1 if one is not, or is in error (a pinned event
   the kernel could not schedule reads as nothing). */
static long long sum(const struct cpucycles_perf *c, const struct cpucycles_perf_thread *t)
{
  unsigned long long got[2];
  long long total = 0;
  int i;
  if (!t->fds) return -1;
  if (c->toggle)
    for (i = 0; i < t->fds; ++i) cpucycles_os_ioctl_fd(t->fd[i], PERF_EVENT_IOC_DISABLE, 0);
  for (i = 0; i < t->fds; ++i) {
    if (cpucycles_os_read_fd(t->fd[i], got, sizeof got) != sizeof got || got[1] != t->id[i]) return -1;
    total += (long long) got[0];
  }
  if (c->toggle)
    for (i = 0; i < t->fds; ++i) cpucycles_os_ioctl_fd(t->fd[i], PERF_EVENT_IOC_ENABLE, 0);
  return total;
}

/* Gives back an event that no longer counts, keeping its count */
static void drop(const struct cpucycles_perf *c, struct cpucycles_perf_thread *t)
{
  long long count;
  if (t->page && !cpucycles_perf_page_count(t->page, 0, c->rdpmc, &count)) count = (long long) t->page->offset;
  if (t->page && t->base + count > t->last) t->last = t->base + count;
  release_where(c, RETIRE);
}

long long cpucycles_perf_read(const struct cpucycles_perf *c, struct cpucycles_perf_thread *t)
{
  long long count = sum(c, t), now;
  struct cpucycles_probe unheard; /* why a thread's event did not open: nobody asks */
  if (count >= 0) return t->last = t->base + count;
  now = cpucycles_os_nanoseconds();
  if (t->fds) {
    /* the event is gone (its fd closed or taken, its thread left) or in
       error: time counts from here until a new event does */
    drop(c, t);
    t->last_ns = t->retry_ns = now;
  }
  if (now - t->retry_ns >= 0) {
    if (open_thread(c, t, &unheard)) {
      t->base = t->last;
      count = sum(c, t);
      if (count >= 0) return t->last = t->base + count;
      drop(c, t);
    }
    t->retry_ns = now + RETRY_NS;
  }
  /* no event: time at the rate seen at setup, on from the last count */
  if (t->last_ns) t->last += (long long) ((double) (now - t->last_ns) * c->per_ns);
  t->last_ns = now;
  return t->last;
}

/* ---- setup ---- */

static volatile long spin; /* the setup test's work, kept by volatile */

/* Whether read(2) around some work sees counting, and the rate it saw.
   The clock is read first: its first read may fault its page in, which
   the count must not see without the time seeing it too. */
static int advances(struct cpucycles_perf *c, struct cpucycles_perf_thread *t)
{
  long long start = cpucycles_os_nanoseconds(), before = sum(c, t), after, now;
  long i;
  for (i = 0; i < SETUP_SPIN; ++i) spin += i;
  after = sum(c, t);
  now = cpucycles_os_nanoseconds();
  if (before < 0 || after <= before) return 0;
  c->per_ns = now > start ? (double) (after - before) / (double) (now - start) : 1;
  return 1;
}

int cpucycles_perf_setup(struct cpucycles_perf *c, struct cpucycles_perf_thread *t,
                         struct cpucycles_probe *probe)
{
#ifdef CPUCYCLES_NO_THREAD_LOCAL
  cpucycles_say(probe, "no thread-local storage: every thread would read one thread's event");
  return 0;
#endif
  if (!open_thread(c, t, probe)) return 0;
  t->base = t->last = t->last_ns = t->retry_ns = 0;
  /* A plain read is one system call; some kernels only bring a running
     event's count up to date when it stops, so only then pay for the
     disable and enable around each read. */
  c->toggle = 0;
  if (advances(c, t)) return 1;
  c->toggle = 1;
  if (advances(c, t)) {
    cpucycles_say(probe, "plain read of the count does not advance; reading between disable and enable");
    return 1;
  }
  cpucycles_say(probe, "perf cycle count does not advance, even between disable and enable");
  cpucycles_perf_close(c);
  return 0;
}

/* ---- knobs ---- */

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

int cpucycles_perf_user_counter(struct cpucycles_perf *c, struct cpucycles_perf_thread *t,
                                struct cpucycles_probe *probe)
{
  long value;
  if (cpucycles_read_knob(CPUCYCLES_PERF_USER_ACCESS, &value) && value < 1) {
    cpucycles_say(probe, "perf_user_access is %ld; run cpucycles-open as root", value);
    return 0;
  }
  if (!cpucycles_perf_setup(c, t, probe)) return 0;
  /* The page's cap_user_rdpmc follows the event's own flag (on arm64 and
     RISC-V alike), not perf_user_access: with the knob at 0 the kernel
     still says 1 and then keeps user reads off.  The knob was checked,
     but where it cannot be read (no /proc) the first read traps: it runs
     under the guard. */
  probe->may_trap = 1;
  if (!t->page->cap_user_rdpmc)
    cpucycles_say(probe, "perf says user counter reads are off (cap_user_rdpmc 0); run cpucycles-open as root");
  else if (!t->page->index)
    cpucycles_say(probe, "perf gives counter index 0: user reads are off; run cpucycles-open as root");
  else
    return 1;
  cpucycles_perf_close(c);
  return 0;
}

#else
typedef int cpucycles_perf_unused; /* ISO C wants something in a file */
#endif
