/* perf_event done once for every counter that needs it: each thread's
   cycles event (with Intel's E-core twin), the table that holds them, the
   knobs that gate user-level reads, and the read(2) path, which reads only
   fds that are still our events. */
#include "cpucycles-config.h"
#if defined(__linux__) && defined(CPUCYCLES_HAVE_PERF_EVENT)
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
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
#define RDPMC_ALWAYS 2 /* rdpmc file: RDPMC allowed everywhere */
#define SETUP_SPIN 10000 /* the setup's busy loop, in steps */
#define RETRY_NS 1000000 /* a thread without an event tries again after 1 ms; */
#define RETRY_MOST 100000000 /* without a slot, twice as long each time, up to 100 ms */
#define RECLAIM_SHIFT 27 /* a look for gone threads' slots every 2^27 ns (134 ms) at most */
#define FORK_WAIT_NS 1000000000LL /* fork() waits at most 1 s for an open under way */

static const char *errno_text(int err)
{
  switch (err) {
    case EACCES: return "EACCES: perf_event_paranoid too high; run cpucycles-open as root";
    case EPERM: return "EPERM: not permitted (paranoid setting or seccomp)";
    case ENOENT: return "ENOENT: no hardware cycle event (no PMU exposed, e.g. in a guest)";
    case ENODEV: return "ENODEV: no PMU for this event";
    case ENOSYS:
      return "ENOSYS: no perf_event here (an old kernel, or an emulator such as qemu-user)";
    case EOPNOTSUPP: return "EOPNOTSUPP: event not supported here";
    case EINVAL: return "EINVAL: event rejected by this kernel";
    case EMFILE: return "EMFILE: out of file descriptors";
    case EBUSY: return "EBUSY: counter in use by someone else";
  }
  return "failed";
}

/* ---- the state machine of every thread's events ----

   The table holds each thread's events, so that any thread can give them
   back: the selection and dlclose (a counter's), a child after fork (the
   parent's), anyone who finds a thread gone (however it ended).  A slot's
   word is tid << HOLDER_SHIFT | uses << 2 | kind (a tid fits in 22 bits:
   Linux's pid_max is at most 2^22), changed only by compare-and-swap:
   taking a slot names its holder in the same instruction, and the uses
   keep a slot given back and taken again from passing for the one that
   was looked at.  Nothing waits for anything but fork(), for an open.

   kind   fds and page                    next   who moves it
   FREE   none                            BUSY   claim(): a thread for its events
   BUSY   changed by the holder alone     LIVE   keep(): the holder, events open or not
                                          GIVEN  hand_on(): the holder at its exit
                                          FREE   empty(): the holder
   LIVE   the holder's events (0 fds      BUSY   take(): the holder (reopen, give up, exit);
          once given up) and its page            close() of its counter (GIVEN too)
   GIVEN  fds closed by the exiting              (and every kind but FREE:)
          holder, still recorded (a      BUSY   reclaim() once the holder is gone (a child:
          copy may stay in the process's        its parent's), whatever it left
          fd table, after unshare(CLONE_FILES)); its page

   What a reader relies on:
   - fds counts the fd[] entries held against the fd budget (fds_held),
     counted before the open: an fd is -1 until it is open, and a thread
     that dies meanwhile leaves its count to reclaim(); an fd is closed
     only while it is still the event of its id;
   - a slot's page stays mapped while its thread may read it: a new
     event's page is mapped over the one before the current one (spare),
     so a read inside the current page finds it no longer published, and a
     thread keeps two pages at most; a page is unmapped only by reclaim()
     (its thread gone) and close() (nobody reads that counter), never in a
     child (not there); an event given up while its thread lives is
     disabled first, so its page gives no more;
   - an fd opens, and a record of one goes, only while no fork() copies
     the table (fork_prepare(), frozen()).

   A thread's own state (struct cpucycles_perf_thread, perf.h):
   slot 0            no slot: counts time, claims one at retry_ns
   slot k, no fds    its events given up: counts time, opens at retry_ns
   slot k, fds       its events, their page published
   gen odd           renew() at work, the asynchronous signals held back;
                     a call that finds it so is a synchronous signal's
                     handler inside renew(), or came after one that left it
                     for good: the thread starts over without a slot, and
                     what renew() held goes back at exit or by reclaim. */
#define SLOTS 256 /* threads with events at once */
enum { FREE, BUSY, LIVE, GIVEN };
#define HOLDER_SHIFT 10
#define USES_MASK ((1u << HOLDER_SHIFT) - 4)
#define HOLDER(word) ((int) ((word) >> HOLDER_SHIFT))
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define PID LOAD(*cpucycles_perf_pid) /* this process's id, as the table knows it */

struct slot {
  unsigned int word;
  const struct cpucycles_perf *counter;
  int fds;
  int fd[CPUCYCLES_PERF_FDS];
  unsigned long long id[CPUCYCLES_PERF_FDS];
  void *page, *spare; /* the current page, and the one before it */
};

static struct slot slots[SLOTS];
static int fds_held; /* against the fd budget, a quarter of the fd limit */
static int exits, exits_seen, reclaim_tick; /* when reclaim() may find slots */
static int given; /* GIVEN slots */
static int forking; /* fork()s under way */
static pthread_key_t exit_key;
static int exit_key_usable;
static CPUCYCLES_THREAD int keyed, exited; /* its exit destructor armed, run */
static int held; /* slots not FREE: while none, nothing walks the table or asks the pid */
static int no_process; /* until a setup opens an event: then a wiped page */
int *cpucycles_perf_pid = &no_process;

/* The word of a slot that changes hands to tid as kind. */
static unsigned int handed_to(int tid, unsigned int word, unsigned int kind)
{
  return (unsigned int) tid << HOLDER_SHIFT | ((word + 4) & USES_MASK) | kind;
}

/* Takes s, whose word was seen as word, for tid (BUSY); fails if it
   changed meanwhile. */
static int take(struct slot *s, unsigned int word, int tid)
{
  unsigned int busy = handed_to(tid, word, BUSY);
  return __atomic_compare_exchange_n(&s->word, &word, busy, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

/* Hands on a slot its caller holds, as kind; returns the new word. */
static unsigned int hand_on(struct slot *s, unsigned int kind)
{
  unsigned int word = LOAD(s->word);
  word = handed_to(HOLDER(word), word, kind);
  __atomic_store_n(&s->word, word, __ATOMIC_RELEASE);
  return word;
}

/* Closes the fds of a held slot that are still our events (a number the
   program took over is left alone); with forget, the slot forgets them,
   each event disabled first where a page stays mapped (on RISC-V,
   unmapping the page of an event that is on a counter takes that counter
   from every thread: perfuser.h).  Without, at a thread's exit, its page
   counts on for a late handler until the thread is gone, when the event
   is on no counter. */
static void drop_events(struct slot *s, int forget)
{
  int i;
  for (i = 0; i < s->fds; ++i) {
    if (s->fd[i] < 0 || !cpucycles_os_perf_owned(s->fd[i], s->id[i])) continue;
    if (s->page && forget) cpucycles_os_ioctl_fd(s->fd[i], PERF_EVENT_IOC_DISABLE, 0);
    cpucycles_os_close_fd(s->fd[i]);
  }
  if (!forget) return;
  __atomic_sub_fetch(&fds_held, s->fds, __ATOMIC_RELAXED);
  s->fds = 0;
}

/* Gives back slot s, just taken from word, its page unmapped where unmap
   (not in a child). */
static void empty(struct slot *s, unsigned int word, int unmap)
{
  if ((word & 3) == GIVEN) __atomic_sub_fetch(&given, 1, __ATOMIC_RELAXED);
  if (!unmap) s->page = s->spare = 0; /* its events not disabled: they are the parent's */
  drop_events(s, 1);
  if (s->page) cpucycles_os_unmap_page(s->page);
  if (s->spare) cpucycles_os_unmap_page(s->spare);
  s->page = s->spare = 0;
  hand_on(s, FREE);
  __atomic_sub_fetch(&held, 1, __ATOMIC_RELAXED);
}

/* Whether a fork() is under way, checked once s is taken from word: then
   s is put back as it was.  fork() copies the fd table early and memory
   later, so while it runs no record of an fd may go: the child would
   keep the fd and find no record of it. */
static int frozen(struct slot *s, unsigned int word)
{
  if (!__atomic_load_n(&forking, __ATOMIC_SEQ_CST)) return 0;
  __atomic_store_n(&s->word, word, __ATOMIC_RELEASE);
  return 1;
}

/* Gives back the slots of threads that are gone, whatever they left. */
static void reclaim(int tid, int unmap)
{
  int i;
  for (i = 0; i < SLOTS; ++i) {
    unsigned int word = LOAD(slots[i].word);
    if ((word & 3) == FREE || !cpucycles_os_thread_gone(PID, HOLDER(word))) continue;
    if (!take(&slots[i], word, tid)) continue;
    if (frozen(&slots[i], word)) return;
    empty(&slots[i], word, unmap);
  }
}

/* Whether reclaim() may find something: a thread exited since the last
   look, or 2^RECLAIM_SHIFT ns went by (threads that ended without their
   exit destructor: a thread killed, a program that used up the keys; an
   exited thread that was not yet gone at the last look). */
static int due(long long now)
{
  int seen = LOAD(exits);
  int tick = (int) (now >> RECLAIM_SHIFT);
  if (seen == LOAD(exits_seen) && tick == LOAD(reclaim_tick)) return 0;
  __atomic_store_n(&exits_seen, seen, __ATOMIC_RELAXED);
  __atomic_store_n(&reclaim_tick, tick, __ATOMIC_RELAXED);
  return 1;
}

/* A free slot taken for tid, or 0: a thread past the table pays a scan of
   it, and now and then a reclaim(). */
static struct slot *claim(int tid, long long now)
{
  int pass, i;
  for (pass = 0; pass < 2; ++pass) {
    for (i = 0; i < SLOTS; ++i) {
      unsigned int word = LOAD(slots[i].word);
      if ((word & 3) != FREE || !take(&slots[i], word, tid)) continue;
      __atomic_add_fetch(&held, 1, __ATOMIC_RELAXED);
      return &slots[i];
    }
    if (!due(now)) break;
    reclaim(tid, 1);
  }
  return 0;
}

/* Whether the table is this process's.  A child made without fork()'s
   handlers (_Fork, clone) finds the pid wiped: it writes its own, also
   where it holds nothing (or its own child would take its events for
   its own), and gives back its parent's slots; a process sharing our
   memory (a vfork child) gets 0 and must leave everything as it is. */
static int ours(int tid)
{
  int pid, none = 0;
  if (!LOAD(held) && cpucycles_perf_pid == &no_process) return 1; /* no events yet, anyone's */
  pid = cpucycles_os_process_id();
  if (__atomic_compare_exchange_n(cpucycles_perf_pid, &none, pid, 0, __ATOMIC_SEQ_CST,
                                  __ATOMIC_RELAXED) &&
      LOAD(held))
    reclaim(tid, 0);
  return PID == pid;
}

/* At its exit a thread closes its fds and opens no more events; its
   pages stay mapped (a late handler may read one), and the fds recorded
   (its fd table may not be the process's), until reclaim() finds it gone.
   Its slots are found by its tid, as are any a dead thread of the same
   tid left, and any it left BUSY itself. */
CPUCYCLES_COLD static void thread_exit(void *unused)
{
  int tid = cpucycles_os_thread_id();
  int i;
  (void) unused;
  exited = 1;
  for (i = 0; i < SLOTS; ++i) {
    unsigned int word = LOAD(slots[i].word);
    unsigned int kind = word & 3;
    if (kind == FREE || kind == GIVEN || HOLDER(word) != tid) continue; /* GIVEN: a dead one's */
    if (!take(&slots[i], word, tid)) continue;
    drop_events(&slots[i], 0);
    hand_on(&slots[i], GIVEN);
    __atomic_add_fetch(&given, 1, __ATOMIC_RELAXED);
  }
  __atomic_add_fetch(&exits, 1, __ATOMIC_RELAXED);
}

/* Whether s is being filled by another living thread, which fork() waits
   for: the child would get an fd that its table does not name. */
static int opening(struct slot *s, int tid)
{
  unsigned int word = __atomic_load_n(&s->word, __ATOMIC_SEQ_CST);
  if ((word & 3) != BUSY || HOLDER(word) == tid) return 0;
  return !cpucycles_os_thread_gone(PID, HOLDER(word));
}

CPUCYCLES_COLD static void fork_prepare(void)
{
  long long end = cpucycles_os_nanoseconds() + FORK_WAIT_NS;
  int tid = cpucycles_os_thread_id();
  int i;
  __atomic_add_fetch(&forking, 1, __ATOMIC_SEQ_CST);
  if (!LOAD(held)) return;
  for (i = 0; i < SLOTS; ++i)
    while (opening(&slots[i], tid) && cpucycles_os_nanoseconds() < end) sched_yield();
}

CPUCYCLES_COLD static void fork_parent(void) { __atomic_sub_fetch(&forking, 1, __ATOMIC_SEQ_CST); }

/* In a child the parent's fds are copies, and its pages are not there
   (perf maps them VM_DONTCOPY): its slots are given back, no page
   unmapped; this thread's own state is stale by its pid. */
CPUCYCLES_COLD static void fork_child(void)
{
  __atomic_store_n(&forking, 0, __ATOMIC_RELAXED);
  __atomic_store_n(cpucycles_perf_pid, cpucycles_os_process_id(), __ATOMIC_RELAXED);
  if (LOAD(held)) reclaim(cpucycles_os_thread_id(), 0);
}

/* The exit destructor's key, usable only where arming it from a handler
   cannot allocate: glibc allocates for a key index of 32 or more. */
__attribute__((constructor)) static void perf_load(void)
{
  exit_key_usable = pthread_key_create(&exit_key, thread_exit) == 0;
#ifdef __GLIBC__
  if (exit_key_usable && (unsigned long) exit_key >= 32) exit_key_usable = 0;
#endif
  pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* Unloaded, no thread may keep a destructor into unmapped code (the
   wrapper's own destructor has given back the chosen counter's events). */
__attribute__((destructor)) static void perf_unload(void)
{
  if (exit_key_usable) pthread_key_delete(exit_key);
  exit_key_usable = 0;
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

/* One more event into held slot s, within the fd budget of limit / 4. */
static int add_event(struct slot *s, struct perf_event_attr *attr, long limit, int *err)
{
  int n = s->fds;
  s->fd[n] = -1;
  s->fds = n + 1;
  *err = EMFILE;
  if (__atomic_add_fetch(&fds_held, 1, __ATOMIC_RELAXED) <= limit / 4)
    s->fd[n] = open_event(attr, err);
  if (s->fd[n] >= 0 &&
      cpucycles_os_ioctl_fd(s->fd[n], PERF_EVENT_IOC_ID, (unsigned long) &s->id[n]) == 0)
    return 1;
  if (s->fd[n] >= 0) {
    *err = errno;
    cpucycles_os_close_fd(s->fd[n]);
  }
  s->fds = n;
  __atomic_sub_fetch(&fds_held, 1, __ATOMIC_RELAXED);
  return 0;
}

/* Opens the calling thread's events into held slot s (no fds yet) and
   maps fd[0]'s page if c reads through it, over the slot's old page.
   Returns 1, or 0 after saying why; an E-core refusal is only said:
   counting on P-cores goes on. */
/* What a selection (probe->round) learned in its perf counters' setups, for
   the next ones: the fd limit, a refusal that holds for every cycles
   event (no PMU, no perf_event, not allowed), the E-core PMU's type (-1:
   none).  Only the selecting thread writes it; a thread's later open
   (round 0) asks for itself. */
static struct {
  unsigned int round, atom_round;
  long limit, atom;
  int refused;
} learned;

/* Says why the cycles event did not open (err); returns 0. */
static int refused(int err, struct cpucycles_probe *probe)
{
  if (err == EACCES) probe->need = CPUCYCLES_NEED_OPEN;
  if (err == ENOENT) probe->need = CPUCYCLES_NEED_PMU;
  return cpucycles_say(probe, "perf_event_open: %s", errno_text(err));
}

/* What probe's selection learned so far: its first perf setup asks the
   fd limit. */
static void learn(const struct cpucycles_probe *probe)
{
  if (!probe->round || probe->round == learned.round) return;
  learned.round = probe->round;
  learned.limit = cpucycles_os_fd_limit();
  learned.refused = 0;
}

/* The fd limit for probe's opens: the selection's, asked once; a thread's
   own open after it (round 0) asks as the limit is now. */
static long fd_limit(const struct cpucycles_probe *probe)
{
  return probe->round ? learned.limit : cpucycles_os_fd_limit();
}

CPUCYCLES_COLD static int open_events(const struct cpucycles_perf *c, struct slot *s,
                                      struct cpucycles_probe *probe)
{
  struct perf_event_attr attr = { .type = PERF_TYPE_HARDWARE,
                                  .size = sizeof attr,
                                  .config = PERF_COUNT_HW_CPU_CYCLES,
                                  .config1 = c->config1,
                                  .pinned = 1,
                                  .read_format = PERF_FORMAT_ID };
  long limit = fd_limit(probe);
  int err;
  void *page;
  if (__atomic_load_n(&forking, __ATOMIC_SEQ_CST)) return 0; /* after the fork, by a retry */
  __atomic_store_n(&s->counter, c, __ATOMIC_RELAXED);
  if (s->fds) goto twin; /* the core event is open: only the E-core twin (setup) */
  if (!add_event(s, &attr, limit, &err)) {
    if (probe->round && (err == ENOENT || err == ENODEV || err == ENOSYS || err == EACCES))
      learned.refused = err;
    return refused(err, probe);
  }
  if (c->rdpmc) {
    page = cpucycles_os_map_page(s->fd[0], s->spare);
    if (!page && s->spare) s->spare = 0; /* a failed mapping over it may have taken it */
    if (!page) return cpucycles_say(probe, "cannot map the perf event page (mmap failed)");
    s->spare = s->page;
    s->page = page;
  }
twin:
  if (!c->ecore) return 1;
  attr.type = c->ecore - 1;
  attr.config = INTEL_RAW_CYCLES;
  if (!add_event(s, &attr, limit, &err))
    cpucycles_say(probe,
                  "E-core PMU (type %u) refused the cycles event (%s); counts stop on E-cores",
                  c->ecore - 1, errno_text(err));
  return 1;
}

/* t's slot, if t holds one in this process that is still t's; else 0. */
static struct slot *slot_of(const struct cpucycles_perf_thread *t)
{
  struct slot *s = &slots[t->slot ? t->slot - 1 : 0];
  return t->slot && t->pid == PID && LOAD(s->word) == t->word ? s : 0;
}

/* The sum of t's counts by read(2), each fd first checked to be still the
   event we opened (its id); -1 if t has no events in this process, if one
   fd is not ours, or is in error (a pinned event the kernel could not
   schedule reads as nothing). */
static long long sum(const struct cpucycles_perf *c, const struct cpucycles_perf_thread *t)
{
  const struct slot *s = slot_of(t);
  unsigned long long got[2];
  long long total = 0;
  int i;
  if (!s || !s->fds) return -1;
  for (i = 0; i < s->fds; ++i) {
    if (!cpucycles_os_perf_owned(s->fd[i], s->id[i])) return -1;
    if (c->toggle) cpucycles_os_ioctl_fd(s->fd[i], PERF_EVENT_IOC_DISABLE, 0);
  }
  for (i = 0; i < s->fds; ++i) {
    if (cpucycles_os_read_fd(s->fd[i], got, sizeof got) != sizeof got || got[1] != s->id[i])
      return -1;
    total += (long long) got[0];
  }
  if (c->toggle)
    for (i = 0; i < s->fds; ++i) cpucycles_os_ioctl_fd(s->fd[i], PERF_EVENT_IOC_ENABLE, 0);
  return total;
}

/* Hands out count v: never below one handed out before by this thread,
   a handler's included (the swap, where the machine has one for 64 bits,
   keeps a handler's higher count from being overwritten). */
static long long handed(struct cpucycles_perf_thread *t, long long v)
{
#ifdef __GCC_HAVE_SYNC_COMPARE_AND_SWAP_8
  long long last = __atomic_load_n(&t->last, __ATOMIC_RELAXED);
  while (v > last &&
         !__atomic_compare_exchange_n(&t->last, &last, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    continue;
  return v > last ? v : last;
#else
  if (v > t->last) t->last = v;
  return t->last;
#endif
}

/* The count of t's events, by read(2) or else from their page (its slot's
   while it has events: a page kept after they were given up holds a
   count already in t->base; or the one an exited thread still publishes),
   kept as handed out (a page read hands out counts that t->last does not
   hold); t->last where neither can say. */
static long long events_count(const struct cpucycles_perf *c, struct cpucycles_perf_thread *t)
{
  const struct slot *s = slot_of(t);
  cpucycles_perf_page *page = s ? (s->fds ? s->page : 0) : t->pid == PID ? t->page : 0;
  long long count = sum(c, t);
  if (count >= 0) return handed(t, t->base + count);
  if (!page) return t->last;
  if (!cpucycles_perf_page_count(page, 0, c->rdpmc, &count))
    count = (long long) page->offset; /* where the event stopped */
  return handed(t, t->base + count);
}

/* Without events: time at the rate seen at setup, on from base at last_ns. */
static long long timed(const struct cpucycles_perf *c, struct cpucycles_perf_thread *t,
                       long long now)
{
  if (!t->last_ns) t->last_ns = now;
  return handed(t, t->base + (long long) ((double) (now - t->last_ns) * c->per_ns));
}

/* Whether t holds events (they may have stopped counting). */
static int has_events(const struct cpucycles_perf_thread *t)
{
  const struct slot *s = slot_of(t);
  return s && s->fds;
}

/* t stops naming its events, keeping the count: unpublished first, so
   that no page read below this call gives more than the last read here
   (or the time counted so far, where it had none); counting goes on from
   that count at now.  Returns the slot t named, if still t's. */
static struct slot *stop(const struct cpucycles_perf *c, struct cpucycles_perf_thread *t,
                         long long now)
{
  struct slot *s = slot_of(t);
  if (!s || !s->fds) timed(c, t, now);
  t->page = 0;
  CPUCYCLES_PERF_BARRIER();
  events_count(c, t);
  t->slot = 0;
  t->base = t->last;
  t->last_ns = now;
  return s;
}

/* stop(), and t's events given up: the fds closed (the event disabled
   first, so its page gives no more), the page kept.  Returns t's slot,
   held, or 0 where it is no longer t's (closed, or a vfork child's). */
CPUCYCLES_COLD static struct slot *give_up(const struct cpucycles_perf *c,
                                           struct cpucycles_perf_thread *t, int tid, long long now)
{
  struct slot *s = stop(c, t, now);
  if (!s || !take(s, t->word, tid)) return 0;
  if (frozen(s, t->word)) {
    t->slot = (int) (s - slots) + 1; /* still t's: given up after the fork */
    return 0;
  }
  drop_events(s, 1);
  return s;
}

/* Names held slot s in t as t's, its page published if it has one event:
   a hybrid's E-core twin is not on the page, so only read(2) sums both. */
static void keep(struct cpucycles_perf_thread *t, struct slot *s)
{
  t->word = hand_on(s, LIVE);
  t->slot = (int) (s - slots) + 1;
  t->pid = PID;
  if (exit_key_usable && !keyed) keyed = pthread_setspecific(exit_key, &keyed) == 0;
  CPUCYCLES_PERF_BARRIER();
  t->page = s->fds == 1 ? s->page : 0;
}

/* Gives back t's slot, if it holds one. */
static void let_go(struct cpucycles_perf_thread *t)
{
  struct slot *s = slot_of(t);
  t->page = 0;
  t->slot = 0;
  if (s && take(s, t->word, HOLDER(t->word))) empty(s, t->word, 1); /* its holder: this thread */
}

/* Gives up t's events if any, and where it is time, opens new ones in
   t's slot, claimed on its first try; with the asynchronous signals held
   back throughout (hold: setup runs in the first call, which holds them
   already).  Returns the count, or -1 where the thread counts time. */
CPUCYCLES_COLD static long long renew(const struct cpucycles_perf *c,
                                      struct cpucycles_perf_thread *t, long long now,
                                      struct cpucycles_probe *probe, int hold)
{
  int tid = cpucycles_os_thread_id();
  long long count = -1;
  struct slot *s;
  unsigned int gen;
  sigset_t held;
  if (hold) cpucycles_os_hold_signals(&held);
  gen = ++t->gen;
  CPUCYCLES_PERF_BARRIER();
  if (!ours(tid)) goto done;
  if (LOAD(given) && due(now)) reclaim(tid, 1); /* the fds an exited thread may have left */
  s = give_up(c, t, tid, now);
  if (!s && t->slot) goto done; /* a fork is under way: after it */
  if (exited || now - t->retry_ns < 0) {
    if (s) keep(t, s);
    goto done;
  }
  if (!s && !(s = claim(tid, now))) {
    if (!t->wait_ns)
      cpucycles_say(probe, "all %d perf slots taken: this thread counts time", SLOTS);
  } else {
    if (!open_events(c, s, probe)) drop_events(s, 1);
    keep(t, s);
    count = sum(c, t);
    if (count < 0 && (s = give_up(c, t, tid, now))) keep(t, s); /* opened but unreadable */
  }
  t->wait_ns = count >= 0 || s ? 0 : t->wait_ns ? t->wait_ns * 2 : RETRY_NS;
  if (t->wait_ns > RETRY_MOST) t->wait_ns = RETRY_MOST;
  if (count < 0) t->retry_ns = now + (t->wait_ns ? t->wait_ns : RETRY_NS);
done:
  CPUCYCLES_PERF_BARRIER();
  if (t->gen == gen) t->gen = gen + 1;
  if (hold) cpucycles_os_release_signals(&held);
  return count < 0 ? count : t->base + count;
}

/* The slow path: the thread has no events, or they are gone (an fd closed
   or taken, the page saying no), in error, or in another process. */
CPUCYCLES_COLD static long long change(const struct cpucycles_perf *c,
                                       struct cpucycles_perf_thread *t)
{
  struct cpucycles_probe unheard = { 0 }; /* why a thread's event did not open: nobody asks */
  long long now = cpucycles_os_nanoseconds();
  long long count = -1;
  if (t->gen & 1) {
    stop(c, t, now);
    ++t->gen;
    t->retry_ns = now + RETRY_NS;
  } else if (has_events(t) || (!exited && now - t->retry_ns >= 0)) {
    count = renew(c, t, now, &unheard, 1);
  } else if (t->page) {
    events_count(c, t); /* an exited thread's page counts on */
  }
  return count >= 0 ? handed(t, count) : timed(c, t, now);
}

/* reclaim() where it may find something, with the asynchronous signals
   held back: one left half-way would hold a slot until this thread is
   gone. */
CPUCYCLES_COLD static void collect(void)
{
  sigset_t held;
  if (!due(cpucycles_os_nanoseconds())) return;
  cpucycles_os_hold_signals(&held);
  reclaim(cpucycles_os_thread_id(), 1);
  cpucycles_os_release_signals(&held);
}

/* errno is the program's: a handler may have interrupted code about to
   read it */
long long cpucycles_perf_read(const struct cpucycles_perf *c, struct cpucycles_perf_thread *t)
{
  int saved = errno;
  long long count, base;
  for (;;) {
    unsigned int gen = *(volatile unsigned int *) &t->gen;
    base = t->base;
    count = gen & 1 ? -1 : sum(c, t);
    CPUCYCLES_PERF_BARRIER();
    if (*(volatile unsigned int *) &t->gen == gen) break; /* else a handler changed the events */
  }
  count = count >= 0 ? handed(t, base + count) : change(c, t);
  if (LOAD(given)) collect(); /* the fds an exited thread may have left */
  errno = saved;
  return count;
}

void cpucycles_perf_close(const struct cpucycles_perf *c, struct cpucycles_perf_thread *t)
{
  int tid, i;
  t->page = 0; /* this thread's own first: no read finds a page about to go */
  t->slot = 0;
  if (!LOAD(held)) return;
  tid = cpucycles_os_thread_id();
  if (!ours(tid)) return;
  for (i = 0; i < SLOTS; ++i) {
    unsigned int word = LOAD(slots[i].word);
    if ((word & 3) < LIVE || LOAD(slots[i].counter) != c || !take(&slots[i], word, tid)) continue;
    empty(&slots[i], word, 1); /* an exited thread's too: nobody reads c now */
  }
}

/* ---- setup ---- */

static volatile long spin; /* the setup test's work, kept by volatile */

/* Whether read(2) around some work sees counting, and the rate it saw.
   The clock is read first: its first read may fault its page in, which
   the count must not see without the time seeing it too. */
static int advances(struct cpucycles_perf *c, struct cpucycles_perf_thread *t)
{
  long long start = cpucycles_os_nanoseconds();
  long long before = sum(c, t);
  long long after, now;
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
  static const struct cpucycles_perf_thread fresh;
  struct slot *s;
  int *page;
  long atom;
#ifdef CPUCYCLES_NO_THREAD_LOCAL
  return cpucycles_say(probe,
                       "no thread-local storage: every thread would read one thread's event");
#endif
  learn(probe);
  if (probe->round && learned.refused) return refused(learned.refused, probe);
  c->ecore = 0;
  c->toggle = 0; /* plain reads first: sum() reads toggle */
  c->per_ns = 0;
  if (t->slot) cpucycles_perf_close(c, t);
  *t = fresh;
  /* time 0: a fresh thread state needs no clock (advances() reads it), and
     a first call whose event does not open has not faulted the clock in */
  if (renew(c, t, 0, probe, 0) < 0) {
    let_go(t);
    return 0;
  }
  /* a hybrid's E-core PMU, asked once a cycles event opened (once a
     selection): then its twin of the event */
  if (!probe->round || probe->round != learned.atom_round)
    learned.atom = cpucycles_read_knob(ATOM_TYPE, &atom) && atom >= 0 ? atom : -1;
  learned.atom_round = probe->round;
  c->ecore = (unsigned int) (learned.atom + 1);
  s = c->ecore ? slot_of(t) : 0;
  if (s && take(s, t->word, cpucycles_os_thread_id())) {
    open_events(c, s, probe);
    keep(t, s);
  }
  if (cpucycles_perf_pid == &no_process && (page = cpucycles_os_private_page()))
    cpucycles_perf_pid = page;
  if (!PID) t->pid = *cpucycles_perf_pid = cpucycles_os_process_id(); /* first events */
  /* A plain read is one system call; some kernels only bring a running
     event's count up to date when it stops, so only then pay for the
     disable and enable around each read. */
  c->toggle = !advances(c, t);
  if (c->toggle && !advances(c, t)) {
    cpucycles_say(probe, "perf cycle count does not advance, even between disable and enable");
    cpucycles_perf_close(c, t);
    return 0;
  }
  if (probe->words[0]) return 1; /* an E-core refusal matters more */
  if (c->toggle)
    cpucycles_say(probe,
                  "plain read of the count does not advance; reading between disable and enable");
  else if (c->rdpmc && !t->page) /* keep() publishes no page for two events */
    cpucycles_say(probe, "an event for P-cores and one for E-cores: read(2) of both, not the page");
  else
    cpucycles_say(probe,
                  "one event per thread; past %d threads at once or %ld perf fds "
                  "(a quarter of the fd limit) a thread counts time",
                  SLOTS, fd_limit(probe) / 4);
  return 1;
}

/* ---- knobs ---- */

/* A refusal that cpucycles-open would lift. */
static int needs_open(struct cpucycles_probe *probe)
{
  probe->need = CPUCYCLES_NEED_OPEN;
  return 0;
}

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
  if (!cpucycles_read_knob(PARANOID, &value))
    return cpucycles_say(probe, "no %s: kernel without perf_event", PARANOID);
  if (value > PARANOID_MOST) {
    cpucycles_say(probe, "perf_event_paranoid is %ld; run cpucycles-open as root", value);
    return needs_open(probe);
  }
  value = cpucycles_perf_rdpmc_knob(&path);
  if (value < 0 && !page)
    return cpucycles_say(probe, "no /sys/devices/cpu/rdpmc: cannot tell whether RDPMC may run");
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
  cpucycles_say(
      probe,
      t->page->cap_user_rdpmc
          ? "perf gives counter index 0: user reads are off; run cpucycles-open as root"
          : "perf says user counter reads are off (cap_user_rdpmc 0); run cpucycles-open as root");
  cpucycles_perf_close(c, t);
  return needs_open(probe);
}

#else
typedef int cpucycles_perf_unused; /* ISO C wants something in a file */
#endif
