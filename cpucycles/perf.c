/* perf_event done once for every counter that needs it: each thread's
   cycles event (with Intel's E-core twin), opened on the thread's first
   read and given back at its exit; the knobs that gate user-level reads;
   the read(2) path, which reads only fds that are still our events. */
#include "cpucycles-config.h"
#if defined(__linux__) && defined(CPUCYCLES_HAVE_PERF_EVENT)
#include <errno.h>
#include <pthread.h>
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

static const char *errno_text(int err)
{
  switch (err) {
    case EACCES: return "EACCES: perf_event_paranoid too high; run cpucycles-open as root";
    case EPERM: return "EPERM: not permitted (paranoid setting or seccomp)";
    case ENOENT: return "ENOENT: no hardware cycle event (no PMU exposed, e.g. in a guest)";
    case ENODEV: return "ENODEV: no PMU for this event";
    case ENOSYS: return "ENOSYS: no perf_event here (an old kernel, or an emulator such as qemu-user)";
    case EOPNOTSUPP: return "EOPNOTSUPP: event not supported here";
    case EINVAL: return "EINVAL: event rejected by this kernel";
    case EMFILE: return "EMFILE: out of file descriptors";
    case EBUSY: return "EBUSY: counter in use by someone else";
  }
  return "failed";
}

/* ---- the table of every thread's events ----

   A slot holds one thread's events, so that any thread can give them
   back: the selection and dlclose (every thread's events of a counter),
   a forked child (the parent's), a thread that finds them left by a dead
   one (no key destructor ran: the program used up the keys, or a seccomp
   filter killed the thread).  Slots change hands by compare-and-swap on a
   word that also counts the slot's uses, so nothing waits for a lock
   that a handler's own thread may hold, and a slot given back and taken
   again meanwhile is never mistaken for the one that was looked at.

   A page is unmapped only once no read can be using it: when its thread
   is gone, or by the selection and dlclose, when no other thread reads
   that counter.  A thread's own ticks() may be interrupted right inside
   its page by a handler that gives up the event, so a given-up or exiting
   thread's page stays mapped ("parked", its fds closed) until the thread
   is gone; on RISC-V that is also what keeps the other threads' counters
   readable (perfuser.h). */
#define SLOTS 256  /* threads with events, parked pages included */
/* A slot's kind, in the low two bits of its word: FREE; BUSY, being filled
   or given back by one thread; LIVE, a living thread's events; PARKED, a
   page whose thread may still be running (no fds). */
enum { FREE, BUSY, LIVE, PARKED };
#define GONE (-1)  /* take(): a thread that is gone */
#define RECORDS 8  /* perf counters one thread reads: three at most in a build */

/* A free slot has neither fds nor page. */
struct slot {
  unsigned int word; /* uses * 4 + kind */
  int tid, fds;
  const struct cpucycles_perf *counter;
  int fd[CPUCYCLES_PERF_FDS];
  unsigned long long id[CPUCYCLES_PERF_FDS];
  void *page;
};

static struct slot slots[SLOTS];
static int fds_held; /* the table's fds, against the fd budget */
static pthread_key_t exit_key;
static int exit_key_made;
static CPUCYCLES_THREAD struct cpucycles_perf_thread *records[RECORDS]; /* this thread's with a slot */
static CPUCYCLES_THREAD int keyed, exited; /* its key destructor set, run */

/* Takes s if its kind is one of kinds (1 << kind each; never BUSY), its
   counter c (0: any) and its thread tid (0: any; GONE: one that is gone).
   All that is looked at before the swap, which fails if the slot changed
   hands meanwhile: the word counts its uses. */
static int take(struct slot *s, unsigned int kinds, const struct cpucycles_perf *c, int tid)
{
  unsigned int word = __atomic_load_n(&s->word, __ATOMIC_ACQUIRE);
  return (kinds >> (word & 3) & 1) && (!c || s->counter == c) &&
         (!tid || (tid == GONE ? cpucycles_os_thread_gone(s->tid) : s->tid == tid)) &&
         __atomic_compare_exchange_n(&s->word, &word, (word & ~3u) | BUSY, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/* Hands on a taken slot as kind, one more use on its word. */
static void settle(struct slot *s, unsigned int kind)
{
  __atomic_store_n(&s->word, (s->word & ~3u) + 4 + kind, __ATOMIC_RELEASE);
}

/* Gives back a taken slot: its fds that are still ours (a number the
   program has taken over is left alone), and its page if unmap, else the
   page stays parked under the slot's thread. */
static void give_back(struct slot *s, int unmap)
{
  int i;
  for (i = 0; i < s->fds; ++i)
    if (cpucycles_os_perf_owned(s->fd[i], s->id[i])) cpucycles_os_close_fd(s->fd[i]);
  __atomic_sub_fetch(&fds_held, s->fds, __ATOMIC_RELAXED);
  s->fds = 0;
  if (s->page && unmap) cpucycles_os_unmap_page(s->page);
  if (unmap) s->page = 0;
  settle(s, s->page ? PARKED : FREE);
}

/* Gives back the slots of threads that are gone: the parked pages, and
   with all the live events a thread left without its key destructor. */
static void reap(int all)
{
  int i;
  for (i = 0; i < SLOTS; ++i)
    if (take(&slots[i], 1u << PARKED | (all ? 1u << LIVE : 0), 0, GONE)) give_back(&slots[i], 1);
}

/* A free slot, taken after reap(all); without one, it tries once more
   reaping all, and then gives 0. */
static struct slot *free_slot(int all)
{
  int i;
  reap(all);
  for (i = 0; i < SLOTS; ++i)
    if (take(&slots[i], 1u << FREE, 0, 0)) return &slots[i];
  return all ? 0 : free_slot(1);
}

/* Counts one more fd against the budget, a quarter of the fd limit (the
   rest is the program's, however many of its threads count): whether it
   fits, at once or after one reap; if not, *err is EMFILE.  The caller
   uncounts an fd it does not keep. */
static int reserve(int *err)
{
  long budget = cpucycles_os_fd_limit() / 4;
  if (__atomic_add_fetch(&fds_held, 1, __ATOMIC_RELAXED) <= budget) return 1;
  reap(1);
  *err = EMFILE;
  return __atomic_load_n(&fds_held, __ATOMIC_RELAXED) <= budget;
}

/* This thread's records, for the moments when all of them must forget
   their events at once (exit, fork); a pointer swap, safe from handlers. */
static void note(struct cpucycles_perf_thread *t, int on)
{
  int i;
  for (i = 0; i < RECORDS; ++i) {
    struct cpucycles_perf_thread *expected = on ? 0 : t;
    if (__atomic_compare_exchange_n(&records[i], &expected, on ? t : 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return;
  }
}

/* This thread's records of counter c (0: all) forget their events: their
   slots, and their pages unless park (a late handler may still read one). */
static void forget(const struct cpucycles_perf *c, int park)
{
  int i;
  for (i = 0; i < RECORDS; ++i) {
    struct cpucycles_perf_thread *t = records[i];
    if (t && (!c || (t->slot && slots[t->slot - 1].counter == c))) {
      if (!park) t->page = 0;
      t->slot = 0;
      records[i] = 0;
    }
  }
}

/* At its exit a thread gives back its fds and parks its pages, and opens
   no more events; its slot is found by its tid, as is any a dead thread
   of the same tid left. */
CPUCYCLES_COLD static void thread_exit(void *unused)
{
  int tid = cpucycles_os_thread_id(), i;
  (void) unused;
  exited = 1;
  forget(0, 1);
  for (i = 0; i < SLOTS; ++i)
    if (take(&slots[i], 1u << LIVE, 0, tid)) give_back(&slots[i], 0);
}

void cpucycles_perf_close(const struct cpucycles_perf *c)
{
  int i;
  forget(c, 0); /* this thread's own first: no read finds a page about to go */
  for (i = 0; i < SLOTS; ++i)
    if (take(&slots[i], 1u << LIVE | 1u << PARKED, c, 0)) give_back(&slots[i], 1);
}

/* In a child of fork the pages are gone (perf maps them VM_DONTCOPY) and
   the fds count the parent's threads: close them and forget the pages,
   whatever the slots' kinds (a parent's thread may have held one BUSY);
   the child's threads open their own on their next read. */
CPUCYCLES_COLD static void fork_child(void)
{
  int i;
  forget(0, 0);
  for (i = 0; i < SLOTS; ++i) {
    slots[i].page = 0;
    give_back(&slots[i], 0);
  }
}

__attribute__((constructor)) static void perf_load(void)
{
  exit_key_made = pthread_key_create(&exit_key, thread_exit) == 0;
  pthread_atfork(0, 0, fork_child);
}

/* Unloaded, no thread may keep a destructor into unmapped code (the
   wrapper's own destructor has given back the chosen counter's events). */
__attribute__((destructor)) static void perf_unload(void)
{
  if (exit_key_made) pthread_key_delete(exit_key);
  exit_key_made = 0;
}

/* ---- opening ---- */

/* Tries exclude_kernel/exclude_hv from most to least exclusive (count only
   this program where the PMU can).  Returns the fd, or -1 with *err. */
static int open_event(struct perf_event_attr *attr, int *err)
{
  long fd = -1;
  int i;
  for (i = 0; i < 4 && fd < 0; ++i) {
    attr->exclude_kernel = i < 2;
    attr->exclude_hv = i == 0 || i == 2;
    fd = cpucycles_os_perf_event_open(attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    *err = errno; /* stale after a success, and then unused */
    /* nor will the exclude bits change these */
    if (*err == ENOSYS || *err == ENOENT || *err == ENODEV || *err == EMFILE) break;
  }
  return (int) fd;
}

/* One event into s, and its id, within the fd budget. */
static int add_event(struct slot *s, struct perf_event_attr *attr, int *err)
{
  int fd = reserve(err) ? open_event(attr, err) : -1;
  if (fd >= 0 && cpucycles_os_ioctl_fd(fd, PERF_EVENT_IOC_ID, (unsigned long) &s->id[s->fds]) == 0) {
    s->fd[s->fds++] = fd;
    return 1;
  }
  if (fd >= 0) {
    *err = errno;
    cpucycles_os_close_fd(fd);
  }
  __atomic_sub_fetch(&fds_held, 1, __ATOMIC_RELAXED);
  return 0;
}

/* Opens this thread's events into a slot (and maps fd[0]'s page if c
   reads through it) and names it in t, page published last.  Returns 1,
   or 0 with nothing left open, after saying why; an E-core refusal is
   only said: counting on P-cores goes on. */
CPUCYCLES_COLD static int open_thread(const struct cpucycles_perf *c, struct cpucycles_perf_thread *t,
                                      struct cpucycles_probe *probe)
{
  struct perf_event_attr attr = { .type = PERF_TYPE_HARDWARE, .size = sizeof attr, .config = PERF_COUNT_HW_CPU_CYCLES,
                                  .config1 = c->config1, .pinned = 1, .read_format = PERF_FORMAT_ID };
  struct slot *s = free_slot(0);
  int err;
  if (!s) return cpucycles_say(probe, "all %d perf slots taken: this thread counts time", SLOTS);
  s->tid = cpucycles_os_thread_id();
  s->counter = c;
  if (!add_event(s, &attr, &err)) {
    settle(s, FREE);
    cpucycles_say(probe, "perf_event_open: %s", errno_text(err));
    probe->need = err == EACCES ? CPUCYCLES_NEED_OPEN : err == ENOENT ? CPUCYCLES_NEED_PMU : CPUCYCLES_NEED_NOTHING;
    return 0;
  }
  if (c->rdpmc && !(s->page = cpucycles_os_map_page(s->fd[0]))) {
    give_back(s, 1);
    return cpucycles_say(probe, "cannot map the perf event page (mmap failed)");
  }
  if (c->ecore) {
    attr.type = c->ecore - 1;
    attr.config = INTEL_RAW_CYCLES;
    if (!add_event(s, &attr, &err))
      cpucycles_say(probe, "E-core PMU (type %u) refused the cycles event (%s); counts stop on E-cores", c->ecore - 1,
                    errno_text(err));
  }
  settle(s, LIVE);
  t->slot = (int) (s - slots) + 1;
  note(t, 1);
  if (exit_key_made && !keyed) keyed = pthread_setspecific(exit_key, records) == 0;
  CPUCYCLES_PERF_BARRIER();
  t->page = s->page;
  return 1;
}

/* The sum of t's counts by read(2), each fd first checked to be still the
   event we opened (its id); -1 if one is not, or is in error (a pinned
   event the kernel could not schedule reads as nothing). */
static long long sum(const struct cpucycles_perf *c, const struct cpucycles_perf_thread *t)
{
  const struct slot *s;
  unsigned long long got[2];
  long long total = 0;
  int i;
  if (!t->slot) return -1;
  s = &slots[t->slot - 1];
  for (i = 0; i < s->fds; ++i)
    if (!cpucycles_os_perf_owned(s->fd[i], s->id[i])) return -1;
  if (c->toggle)
    for (i = 0; i < s->fds; ++i) cpucycles_os_ioctl_fd(s->fd[i], PERF_EVENT_IOC_DISABLE, 0);
  for (i = 0; i < s->fds; ++i) {
    if (cpucycles_os_read_fd(s->fd[i], got, sizeof got) != sizeof got || got[1] != s->id[i]) return -1;
    total += (long long) got[0];
  }
  if (c->toggle)
    for (i = 0; i < s->fds; ++i) cpucycles_os_ioctl_fd(s->fd[i], PERF_EVENT_IOC_ENABLE, 0);
  return s->fds ? total : -1;
}

/* Hands out count v: never below one handed out before by this thread,
   a handler's included (the swap, where the machine has one for 64 bits,
   keeps a handler's higher count from being overwritten). */
static long long handed(struct cpucycles_perf_thread *t, long long v)
{
#ifdef __GCC_HAVE_SYNC_COMPARE_AND_SWAP_8
  long long last = __atomic_load_n(&t->last, __ATOMIC_RELAXED);
  while (v > last && !__atomic_compare_exchange_n(&t->last, &last, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) continue;
  return v > last ? v : last;
#else
  if (v > t->last) t->last = v;
  return t->last;
#endif
}

/* t's last count: where it has a page (the one published, else the one
   being given up), the page's count on from its base, kept as handed
   out.  Page reads hand out counts that t->last does not hold, so a
   handler that lands while its thread changes its events reads the page
   once more rather than give a count below one the page gave. */
CPUCYCLES_COLD static long long last_count(const struct cpucycles_perf *c, struct cpucycles_perf_thread *t)
{
  const volatile struct perf_event_mmap_page *page = t->page ? t->page : t->giving;
  long long count;
  if (!page) return *(volatile long long *) &t->last;
  if (!cpucycles_perf_page_count(page, 0, c->rdpmc, &count)) count = (long long) page->offset;
  return handed(t, t->base + count);
}

/* Gives up t's events, keeping their count: the page is parked (a read
   below this one may be inside it), the fds closed.  The count is read
   once the page is no longer published, so no page read handed out more;
   meanwhile a handler reads it as the one being given up. */
CPUCYCLES_COLD static void give_up(const struct cpucycles_perf *c, struct cpucycles_perf_thread *t)
{
  t->giving = t->page;
  CPUCYCLES_PERF_BARRIER();
  t->page = 0;
  CPUCYCLES_PERF_BARRIER();
  last_count(c, t);
  CPUCYCLES_PERF_BARRIER();
  t->giving = 0;
  CPUCYCLES_PERF_BARRIER();
  if (t->slot) {
    struct slot *s = &slots[t->slot - 1];
    t->slot = 0;
    note(t, 0);
    if (take(s, 1u << LIVE, 0, 0)) give_back(s, 0);
  }
}

/* The slow path, with t's generation odd throughout: the event is gone
   (its fd closed or taken, its thread's page says no) or in error, or the
   thread has none yet.  Time counts from here until a new event does. */
CPUCYCLES_COLD static long long change(const struct cpucycles_perf *c, struct cpucycles_perf_thread *t)
{
  struct cpucycles_probe unheard = { 0 }; /* why a thread's event did not open: nobody asks */
  long long now, count, v;
  ++t->gen;
  CPUCYCLES_PERF_BARRIER();
  now = cpucycles_os_nanoseconds();
  if (t->slot || t->page) {
    give_up(c, t);
    t->last_ns = t->retry_ns = now;
  }
  if (!exited && now - t->retry_ns >= 0) {
    t->base = t->last;
    if (open_thread(c, t, &unheard) && (count = sum(c, t)) >= 0) {
      v = t->base + count;
      goto done;
    }
    give_up(c, t); /* opened but unreadable (a no-op if it did not open) */
    t->retry_ns = now + RETRY_NS;
  }
  /* no event: time at the rate seen at setup, on from the last count */
  if (t->last_ns) t->last += (long long) ((double) (now - t->last_ns) * c->per_ns);
  t->last_ns = now;
  v = t->last;
done:
  CPUCYCLES_PERF_BARRIER();
  ++t->gen;
  return handed(t, v);
}

/* errno is the program's: a handler may have interrupted code about to
   read it */
long long cpucycles_perf_read(const struct cpucycles_perf *c, struct cpucycles_perf_thread *t)
{
  int saved = errno;
  long long count;
  for (;;) {
    unsigned int gen = *(volatile unsigned int *) &t->gen;
    /* a handler inside this thread's own change: its last count again */
    if (gen & 1) return last_count(c, t);
    CPUCYCLES_PERF_BARRIER();
    count = sum(c, t);
    CPUCYCLES_PERF_BARRIER();
    if (*(volatile unsigned int *) &t->gen != gen) continue; /* a handler changed the events meanwhile */
    count = count >= 0 ? handed(t, t->base + count) : change(c, t);
    errno = saved;
    return count;
  }
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

int cpucycles_perf_setup(struct cpucycles_perf *c, struct cpucycles_perf_thread *t, struct cpucycles_probe *probe)
{
  long atom;
#ifdef CPUCYCLES_NO_THREAD_LOCAL
  return cpucycles_say(probe, "no thread-local storage: every thread would read one thread's event");
#endif
  c->ecore = cpucycles_read_knob(ATOM_TYPE, &atom) && atom >= 0 ? (unsigned int) atom + 1 : 0;
  t->base = t->last = t->last_ns = t->retry_ns = 0;
  if (!open_thread(c, t, probe)) return 0;
  /* A plain read is one system call; some kernels only bring a running
     event's count up to date when it stops, so only then pay for the
     disable and enable around each read. */
  c->toggle = 0; /* plain reads first: sum() reads toggle */
  c->toggle = !advances(c, t);
  if (c->toggle && !advances(c, t)) {
    cpucycles_say(probe, "perf cycle count does not advance, even between disable and enable");
    cpucycles_perf_close(c);
    return 0;
  }
  if (!probe->words[0]) /* an E-core refusal matters more */
    cpucycles_say(probe, c->toggle ? "plain read of the count does not advance; reading between disable and enable"
                                   : "one event per thread; past %d threads at once or %ld perf fds (a quarter of the fd limit) a thread counts time",
                  SLOTS, cpucycles_os_fd_limit() / 4);
  return 1;
}

/* ---- knobs ---- */

/* A refusal that cpucycles-open would lift. */
static int needs_open(struct cpucycles_probe *probe) { probe->need = CPUCYCLES_NEED_OPEN; return 0; }

long cpucycles_perf_rdpmc_knob(const char **path)
{
  static const char *const files[] = { "/sys/devices/cpu/rdpmc", "/sys/devices/cpu_core/rdpmc",
                                       "/sys/devices/cpu_atom/rdpmc" };
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
  if (!cpucycles_read_knob(PARANOID, &value)) return cpucycles_say(probe, "no %s: kernel without perf_event", PARANOID);
  if (value > PARANOID_MOST) {
    cpucycles_say(probe, "perf_event_paranoid is %ld; run cpucycles-open as root", value);
    return needs_open(probe);
  }
  value = cpucycles_perf_rdpmc_knob(&path);
  if (value < 0 && !page) return cpucycles_say(probe, "no /sys/devices/cpu/rdpmc: cannot tell whether RDPMC may run");
  if (value >= 0 && value < RDPMC_ALWAYS) {
    cpucycles_say(probe, "%s is %ld, not 2; run cpucycles-open as root", path, value);
    return needs_open(probe);
  }
  return 1;
}

int cpucycles_perf_user_counter(struct cpucycles_perf *c, struct cpucycles_perf_thread *t,
                                struct cpucycles_probe *probe)
{
  long value;
  int knob = cpucycles_read_knob(CPUCYCLES_PERF_USER_ACCESS, &value);
  if (knob && value < 1) {
    cpucycles_say(probe, "perf_user_access is %ld; run cpucycles-open as root", value);
    return needs_open(probe);
  }
  if (!cpucycles_perf_setup(c, t, probe)) return 0;
  /* The page's cap_user_rdpmc follows the event's own flag (on arm64 and
     RISC-V alike), not perf_user_access; with the knob read and allowing,
     the page's counter index says the rest and the first read needs no
     guard.  Without the knob (no /proc), nothing vouches for the read. */
  probe->may_trap = !knob;
  if (t->page->cap_user_rdpmc && t->page->index) return 1;
  cpucycles_say(probe, t->page->cap_user_rdpmc
                           ? "perf gives counter index 0: user reads are off; run cpucycles-open as root"
                           : "perf says user counter reads are off (cap_user_rdpmc 0); run cpucycles-open as root");
  cpucycles_perf_close(c);
  return needs_open(probe);
}

#else
typedef int cpucycles_perf_unused; /* ISO C wants something in a file */
#endif
