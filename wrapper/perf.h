/* Shared perf_event helpers for the perf-based counters (Linux only; the
   counters that include this fail to compile elsewhere and are left out).
   Every system call and file read goes through the cpucycles_os seam. */
#ifndef CPUCYCLES_PERF_H
#define CPUCYCLES_PERF_H

#include <linux/perf_event.h>

/* Opens attr for this thread on any CPU, close-on-exec, trying the four
   exclude_kernel/exclude_hv combinations from most to least exclusive.
   Returns the fd, or -1 after telling the counter why (errno in words). */
int cpucycles_perf_open(struct perf_event_attr *attr);

/* Forgets which events the kernel said it does not have (for tests that
   play another machine). */
void cpucycles_perf_forget(void);

/* Plain words for a perf_event_open errno. */
const char *cpucycles_perf_words(int err);

/* Like cpucycles_counter_says, with printf formatting; the text stays
   valid for the whole selection. */
void cpucycles_perf_says(const char *format, ...);

/* 1 if perf_event_paranoid is at most 2 and every existing
   /sys/devices/{cpu,cpu_core,cpu_atom}/rdpmc is at least 2, which user-level
   RDPMC on a perf counter needs; else 0 after saying which knob is wrong. */
int cpucycles_perf_rdpmc_allowed(void);

/* 1 unless /proc/sys/kernel/perf_user_access exists and is 0 (arm64 and
   riscv: user reads of the cycle counter need it at 1); else 0, said. */
int cpucycles_perf_user_access(void);

/* The PMU type of Intel's E-cores from
   /sys/bus/event_source/devices/cpu_atom/type, or -1 (not a hybrid). */
long cpucycles_perf_atom_type(void);

/* The cycles event of this thread, on the core PMU and, on hybrid Intel,
   also on the E-core PMU: perf counts an event only on cores of its own
   PMU, so without the second fd counting stops while the thread runs on
   an E-core.  The counts of the fds add up to the thread's cycles. */
#define CPUCYCLES_PERF_FDS 2
struct cpucycles_perf {
  int fd[CPUCYCLES_PERF_FDS];
  int fds;
  const volatile struct perf_event_mmap_page *page; /* of fd[0], or 0 */
};

/* Opens the cycles fds with config1 (arm64 wants its 64-bit and
   user-access bits there; 0 elsewhere).  Returns 1, or 0 with nothing
   left open after saying why. */
int cpucycles_perf_open_cycles(struct cpucycles_perf *p, unsigned long long config1);

/* Maps fd[0]'s perf_event_mmap_page into p->page.  Returns 1 or 0 (said). */
int cpucycles_perf_map(struct cpucycles_perf *p);

/* What arm64-perfpmc and riscv*-perfrdcycle share: perf_user_access
   allowed, the cycles fds opened with config1, and the page mapped (which
   is what makes these kernels let user code read the counter).  Returns
   1, or 0 with nothing left open after saying why. */
int cpucycles_perf_user_counter(struct cpucycles_perf *p, unsigned long long config1);

/* Sum of the fds' counts, read plainly or, with toggle, between a
   disable and an enable of every fd (for kernels whose plain read of a
   running event does not advance).  -1 if a read fails. */
long long cpucycles_perf_sum(const struct cpucycles_perf *p, int toggle);

/* Unmaps and closes everything, and leaves p empty (no fds). */
void cpucycles_perf_close(struct cpucycles_perf *p);

/* An empty p, for a counter's static state before setup. */
#define CPUCYCLES_PERF_EMPTY { { -1, -1 }, 0, 0 }

#define CPUCYCLES_PERF_BARRIER() __asm__ __volatile__("" ::: "memory")

/* The count of the event behind page, read in user space the way the
   kernel documents in perf_event_mmap_page: under the page's seqlock, the
   hardware counter (index - 1), read by rdpmc, sign-extended from
   pmc_width bits, plus offset; with index 0 (event not on a counter just
   now) the count is offset alone.  Lives in the header so a counter's
   ticks() inlines it with its own rdpmc instruction; tests pass a fake. */
static inline long long cpucycles_perf_page_read(const volatile struct perf_event_mmap_page *pc,
                                                 unsigned long long (*rdpmc)(unsigned int counter))
{
  unsigned int seq, index, width;
  long long count;
  do {
    seq = pc->lock;
    CPUCYCLES_PERF_BARRIER();
    index = pc->index;
    count = pc->offset;
    if (pc->cap_user_rdpmc && index) {
      unsigned long long raw = rdpmc(index - 1);
      width = pc->pmc_width;
      if (width > 0 && width < 64) {
        /* the hardware counter is width bits of a signed value */
        unsigned int shift = 64 - width;
        count += (long long) (raw << shift) >> shift;
      } else {
        count += (long long) raw;
      }
    }
    CPUCYCLES_PERF_BARRIER();
  } while (pc->lock != seq);
  return count;
}

#endif
