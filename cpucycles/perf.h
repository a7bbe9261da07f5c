/* perf_event for the counters that need it (Linux only: the counters that
   include this fail to compile elsewhere and are left out).

   Every thread counts with its own cycles event, opened by its first read:
   an event counts only the thread that opened it.  The events are pinned:
   one the kernel cannot keep on a counter is in error (read(2) gives
   nothing) rather than multiplexed, so a count is never an estimate.  A
   thread whose event cannot open or count counts time instead until it
   can (doc/counters.md).  perf.c holds the state machine of a thread's
   events; what a read needs of it is here. */
#ifndef CPUCYCLES_PERF_H
#define CPUCYCLES_PERF_H

#include <linux/perf_event.h>
#include "counter.h"
#include "cpucycles-config.h"

/* The cycles event on the core PMU and, on hybrid Intel, on the E-core PMU
   too: perf counts an event only on cores of its own PMU, so without the
   second fd counting stops while the thread runs on an E-core.  The counts
   of the fds add up to the thread's cycles. */
#define CPUCYCLES_PERF_FDS 2

typedef unsigned long long cpucycles_rdpmc(unsigned int counter);
typedef const volatile struct perf_event_mmap_page cpucycles_perf_page;

/* One perf counter: what its threads share. */
struct cpucycles_perf {
  unsigned long long config1; /* arm64 wants its 64-bit and user-access bits here */
  cpucycles_rdpmc *rdpmc; /* reads through the event's page with this */
  int toggle; /* read(2) between disable and enable (see perf.c) */
  double per_ns; /* cycles per ns seen at setup: a thread without an event */
  unsigned int ecore; /* the E-core PMU's perf type + 1, seen at setup; 0: not hybrid */
};

/* One thread's state for one counter: thread-local in the counter's file,
   touched by that thread and its signal handlers only (perf.c's table). */
struct cpucycles_perf_thread {
  cpucycles_perf_page *volatile page; /* published while ticks() may read it */
  long long base; /* added to the events' count: counts go on across a new event */
  int pid; /* the process the events are in: *cpucycles_perf_pid when opened */
  int slot; /* 1 + the index of its events in perf.c's table; 0: none */
  unsigned int word; /* the slot's word when this thread took it */
  unsigned int gen; /* odd while this thread changes its events */
  long long last; /* the highest count handed out by cpucycles_perf_read */
  long long last_ns; /* without an event: when last was handed out */
  long long retry_ns; /* without an event: when to try opening one again */
  long long wait_ns; /* and how long it waited last time */
};

/* This process's id in memory the kernel wipes in a child (0 there until
   the child's first read notices): a thread's events are read only while
   its pid is this, so no child touches its parent's page or fds. */
#ifdef __GNUC__
__attribute__((visibility("hidden"))) /* one load, not one through the GOT too */
#endif
extern int *cpucycles_perf_pid;

/* Setup: opens this thread's events into t (close-on-exec, pinned) and
   sees them count, learning c->toggle and c->per_ns.  Returns 1, or 0 with
   nothing left open after saying why.  Runs no instruction that may trap. */
CPUCYCLES_COLD int cpucycles_perf_setup(struct cpucycles_perf *c, struct cpucycles_perf_thread *t,
                                        struct cpucycles_probe *probe);

/* The thread's count by read(2): what default-perfevent reads, and the
   other counters' way when their page cannot say.  Opens the thread's
   events on its first read; reads only fds that are still its own events
   (the perf ioctl says so first: a pipe or eventfd that took the number
   is never read); counts time at c->per_ns while it has none, retrying
   now and then.  Never goes back within a thread. */
long long cpucycles_perf_read(const struct cpucycles_perf *c, struct cpucycles_perf_thread *t);

/* Gives back the events of every thread of counter c (the selection's
   losers, dlclose: no other thread reads c then), t being the calling
   thread's; each opens anew on its next read. */
CPUCYCLES_COLD void cpucycles_perf_close(const struct cpucycles_perf *c,
                                         struct cpucycles_perf_thread *t);

/* The smallest value of the existing /sys/devices/{cpu,cpu_core,cpu_atom}/rdpmc
   files (2: RDPMC allowed everywhere, 1: only with a mapped perf event,
   0: never) and that file's path, or -1 where there is none (no x86 PMU
   driver). */
CPUCYCLES_COLD long cpucycles_perf_rdpmc_knob(const char **path);

/* 1 if perf_event_paranoid is at most 2 and every rdpmc file is 2; else 0
   after saying which knob.  Without a page (no mapped event whose
   cap_user_rdpmc can tell) the files must also exist. */
CPUCYCLES_COLD int cpucycles_perf_rdpmc_allowed(struct cpucycles_probe *probe, int page);

/* What arm64-perfpmc and riscv*-perfrdcycle share: perf_user_access not 0,
   this thread's events set up and mapped (which is what makes these
   kernels let user code read the counter), and the page saying so
   (cap_user_rdpmc).  Returns 1, or 0 with nothing left open after saying why. */
CPUCYCLES_COLD int cpucycles_perf_user_counter(struct cpucycles_perf *c,
                                               struct cpucycles_perf_thread *t,
                                               struct cpucycles_probe *probe);

#define CPUCYCLES_PERF_BARRIER() __asm__ __volatile__("" ::: "memory")

/* The count of the event behind page, read in user space as the kernel
   documents in perf_event_mmap_page: under the page's seqlock, the hardware
   counter (index - 1) read by rdpmc, sign-extended from pmc_width bits,
   plus offset.  Returns 0 where the page cannot give the count: user reads
   off, the event on no counter (index 0: in error, disabled, or its thread
   gone), or, with want not 0, on another counter than want.  Inline so
   that a counter's ticks() inlines its own rdpmc; tests pass a fake one. */
static inline int cpucycles_perf_page_count(cpucycles_perf_page *pc, unsigned int want,
                                            cpucycles_rdpmc *rdpmc, long long *count)
{
  unsigned int seq, index, width;
  unsigned long long raw;
  do {
    seq = pc->lock;
    CPUCYCLES_PERF_BARRIER();
    index = pc->index;
    if (!index || !pc->cap_user_rdpmc || (want && index != want)) return 0;
    *count = pc->offset;
    raw = rdpmc(index - 1);
    width = pc->pmc_width;
    if (width > 0 && width < 64) /* a signed value of width bits */
      *count += (long long) (raw << (64 - width)) >> (64 - width);
    else
      *count += (long long) raw;
    CPUCYCLES_PERF_BARRIER();
  } while (pc->lock != seq);
  return 1;
}

/* ticks() of a counter that reads through the page: the page's count while
   the event sits on counter want (0: any), else read(2).  The page and the
   base must belong together: a handler that replaces the thread's event
   in between publishes a new page (at the other of the slot's two
   addresses: the old one stays mapped), and the read is made again.  A
   page of another process (a child's stale state) is never touched. */
static inline long long cpucycles_perf_ticks(const struct cpucycles_perf *c,
                                             struct cpucycles_perf_thread *t, unsigned int want,
                                             cpucycles_rdpmc *rdpmc)
{
  for (;;) {
    cpucycles_perf_page *page = t->page;
    long long base, count;
    CPUCYCLES_PERF_BARRIER();
    base = t->base;
    if (!page || t->pid != __atomic_load_n(cpucycles_perf_pid, __ATOMIC_RELAXED))
      return cpucycles_perf_read(c, t);
    if (!cpucycles_perf_page_count(page, want, rdpmc, &count)) return cpucycles_perf_read(c, t);
    CPUCYCLES_PERF_BARRIER();
    if (t->page == page) return base + count;
  }
}

#endif
