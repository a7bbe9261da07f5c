/* perf_event for the counters that need it (Linux only: the counters that
   include this fail to compile elsewhere and are left out). */
#ifndef CPUCYCLES_PERF_H
#define CPUCYCLES_PERF_H

#include <linux/perf_event.h>
#include "counter.h"

/* The cycles event of this thread, on the core PMU and, on hybrid Intel,
   also on the E-core PMU: perf counts an event only on cores of its own
   PMU, so without the second fd counting stops while the thread runs on
   an E-core.  The counts of the fds add up to the thread's cycles. */
#define CPUCYCLES_PERF_FDS 2
struct cpucycles_perf {
  int fd[CPUCYCLES_PERF_FDS];
  int fds;                                          /* fd[i] is open for i < fds */
  const volatile struct perf_event_mmap_page *page; /* of fd[0], or 0 */
};

/* Opens the cycles fds, close-on-exec, with config1 (arm64 wants its 64-bit
   and user-access bits there; 0 elsewhere).  Returns 1, or 0 with nothing
   left open after saying why.  Marks the probe per_thread. */
int cpucycles_perf_open_cycles(struct cpucycles_perf *p, unsigned long long config1,
                               struct cpucycles_probe *probe);

/* Maps fd[0]'s perf_event_mmap_page into p->page.  Returns 1 or 0 (said). */
int cpucycles_perf_map(struct cpucycles_perf *p, struct cpucycles_probe *probe);

/* The smallest value of the existing /sys/devices/{cpu,cpu_core,cpu_atom}/rdpmc
   files (2: RDPMC allowed everywhere, 1: only with a mapped perf event,
   0: never) and that file's path, or -1 where there is none (no x86 PMU
   driver). */
long cpucycles_perf_rdpmc_knob(const char **path);

/* 1 if perf_event_paranoid is at most 2 and every rdpmc file is 2; else 0
   after saying which knob.  Without a page (no mapped event whose
   cap_user_rdpmc can tell) the files must also exist. */
int cpucycles_perf_rdpmc_allowed(struct cpucycles_probe *probe, int page);

/* What arm64-perfpmc and riscv*-perfrdcycle share: perf_user_access not 0,
   the cycles fds opened with config1, and the page mapped (which is what
   makes these kernels let user code read the counter).  Returns 1, or 0
   with nothing left open after saying why. */
int cpucycles_perf_user_counter(struct cpucycles_perf *p, unsigned long long config1,
                                struct cpucycles_probe *probe);

/* A counter read straight from the hardware (arm64-perfpmc, RISC-V's
   perfrdcycle) may be read so only in the thread that opened the event,
   whose perf context holds it: in any other thread the kernel keeps user
   reads off and mrs PMCCNTR_EL0 traps (SIGILL; seen on Debian's arm64
   kernel, make test-system).  Those counters remember their opener in
   thread-local storage, and every other thread reads the count with
   read(2): the opener's count, as default-perfevent gives every thread.
   Without thread-local storage they cannot tell, and skip. */
#include "cpucycles-config.h"
#ifdef CPUCYCLES_NO_THREAD_LOCAL
#define CPUCYCLES_PERF_OPENER_UNKNOWN "no thread-local storage: other threads could not be kept from trapping"
#endif

/* Sum of the fds' counts, read plainly or, with toggle, between a disable
   and an enable of every fd (for kernels whose plain read of a running
   event does not advance).  -1 if a read fails. */
long long cpucycles_perf_sum(const struct cpucycles_perf *p, int toggle);

/* Unmaps and closes everything; p is left empty. */
void cpucycles_perf_close(struct cpucycles_perf *p);

#define CPUCYCLES_PERF_EMPTY { { -1, -1 }, 0, 0 }

#define CPUCYCLES_PERF_BARRIER() __asm__ __volatile__("" ::: "memory")

/* The count of the event behind page, read in user space as the kernel
   documents in perf_event_mmap_page: under the page's seqlock, the hardware
   counter (index - 1) read by rdpmc, sign-extended from pmc_width bits,
   plus offset; with index 0 (event not on a counter just now) the count is
   offset alone.  With want not 0, rdpmc reaches only the counter the
   page numbers want: if the event sits on another (another perf user took
   that one), nothing is read and the result is 0.  Inline so that a
   counter's ticks() inlines its own rdpmc; tests pass a fake one. */
static inline int cpucycles_perf_page_count(const volatile struct perf_event_mmap_page *pc, unsigned int want,
                                            unsigned long long (*rdpmc)(unsigned int counter), long long *count)
{
  unsigned int seq, index, width;
  do {
    seq = pc->lock;
    CPUCYCLES_PERF_BARRIER();
    index = pc->index;
    *count = pc->offset;
    if (want && index && index != want) return 0;
    if (pc->cap_user_rdpmc && index) {
      unsigned long long raw = rdpmc(index - 1);
      width = pc->pmc_width;
      if (width > 0 && width < 64) {
        unsigned int shift = 64 - width; /* a signed value of width bits */
        *count += (long long) (raw << shift) >> shift;
      } else {
        *count += (long long) raw;
      }
    }
    CPUCYCLES_PERF_BARRIER();
  } while (pc->lock != seq);
  return 1;
}

static inline long long cpucycles_perf_page_read(const volatile struct perf_event_mmap_page *pc,
                                                 unsigned long long (*rdpmc)(unsigned int counter))
{
  long long count;
  cpucycles_perf_page_count(pc, 0, rdpmc, &count);
  return count;
}

/* The read of a counter whose instruction reaches one hardware counter
   (arm64-perfpmc, riscv*-perfrdcycle): the thread that opened the event
   (opener) counts from the page while the event sits on counter want;
   any other thread, and the opener while the event sits elsewhere, reads
   the count with read(2).  The fence orders that after this thread's
   plain load of the cpucycles pointer, which the selection published with
   release after setting up the fds. */
static inline long long cpucycles_perf_user_read(const struct cpucycles_perf *p, int opener, unsigned int want,
                                                 unsigned long long (*rdpmc)(unsigned int counter))
{
  long long count;
  if (opener && cpucycles_perf_page_count(p->page, want, rdpmc, &count)) return count;
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  return cpucycles_perf_sum(p, 0);
}

#endif
