/* Per-call cost of the perf counters' reads with per-thread events, beside
   the read each made before (one event for the process), in the same run,
   on a machine without a PMU:
   - read(2): default-perfevent on the task clock (a software event) against
     a plain read(2) of 8 bytes from a task-clock fd of our own;
   - the page: cpucycles_perf_ticks() (this thread's event, its page, the
     base) against the page read alone, and against the bare instruction
     (amd64-perfpmcff read the fixed counter bare), over one fake page
     whose "counter" is read by RDTSC (or the monotonic clock off x86);
   - a counter that needs no event: the cpucycles pointer against the raw
     instruction is make bench's overhead line.
   Prints the median of 11 alternating timed loops as ns per call and
   their ratio.  Then a thread's first read (issue 38): the events opened
   and the page mapped, for a page reader on the task clock, against its
   floor (the signal-mask pair, one perf_event_open, the page's mmap),
   each in fresh threads, alternating; medians and their ratio. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "internal.h"
#include "fakeos.h"
#ifdef __linux__
#include <sys/syscall.h>
#include "perf.h"

#define LOOP 200000
#define SYSCALL_LOOP 20000
#define ROUNDS 11

static long long ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static volatile long long sink;

/* ns per call of each of two reads, alternating, and their ratio */
static void compare(const char *label, long long (*ours)(void), long long (*before)(void), long loop)
{
  double a[ROUNDS], b[ROUNDS], r[ROUNDS];
  int k;
  long i;
  for (k = 0; k < ROUNDS; ++k) {
    long long t0 = ns(), s = 0;
    for (i = 0; i < loop; ++i) s += before();
    b[k] = (double) (ns() - t0) / (double) loop;
    t0 = ns();
    for (i = 0; i < loop; ++i) s += ours();
    a[k] = (double) (ns() - t0) / (double) loop;
    r[k] = a[k] / b[k];
    sink = s;
  }
  qsort(a, ROUNDS, sizeof a[0], by_value);
  qsort(b, ROUNDS, sizeof b[0], by_value);
  qsort(r, ROUNDS, sizeof r[0], by_value);
  printf("%s: %.2f ns per call, before %.2f ns: ratio %.3f (median of %d)\n", label, a[ROUNDS / 2], b[ROUNDS / 2],
         r[ROUNDS / 2], ROUNDS);
}

/* read(2) */
static int own_fd;
static long long (*perfevent)(void);
static long long plain_read(void)
{
  long long v = 0;
  if (read(own_fd, &v, sizeof v) != sizeof v) return -1;
  return v;
}

/* the page */
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static unsigned long long fake_counter(unsigned int counter)
{
  (void) counter;
  return __rdtsc();
}
#else
static unsigned long long fake_counter(unsigned int counter)
{
  (void) counter;
  return (unsigned long long) ns();
}
#endif
static struct perf_event_mmap_page page;
static struct cpucycles_perf counter = { 0, fake_counter, 0, 0, 0 };
static CPUCYCLES_THREAD struct cpucycles_perf_thread mine;
#define INDEX 3

static long long page_before(void)
{
  long long count = 0;
  cpucycles_perf_page_count(&page, INDEX, fake_counter, &count);
  return count;
}

static long long bare(void)
{
  return (long long) fake_counter(INDEX - 1);
}

static long long page_now(void)
{
  return cpucycles_perf_ticks(&counter, &mine, INDEX, fake_counter);
}


#include <sys/mman.h>

/* a page reader on the task clock: its page says no (a software event),
   so its first read opens, maps and reads by read(2) */
static struct cpucycles_perf task_clock = { 0, fake_counter, 0, 0, 0 };
static CPUCYCLES_THREAD struct cpucycles_perf_thread task_mine;
static int flooring;
static long long took[2][100];

static void floor_of_first_read(void)
{
  struct perf_event_attr attr;
  sigset_t all, old;
  long fd;
  void *page;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.pinned = 1;
  attr.exclude_kernel = 1;
  fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  page = fd >= 0 ? mmap(0, 4096, PROT_READ, MAP_SHARED, (int) fd, 0) : MAP_FAILED;
  pthread_sigmask(SIG_SETMASK, &old, 0);
  if (page != MAP_FAILED) munmap(page, 4096);
  if (fd >= 0) close((int) fd);
}

static void *first_read(void *arg)
{
  long long t0 = ns();
  if (flooring) floor_of_first_read();
  else sink = cpucycles_perf_ticks(&task_clock, &task_mine, 0, fake_counter);
  *(long long *) arg = ns() - t0;
  return 0;
}

static long long median_of(long long *v, int n)
{
  int i, j;
  for (i = 1; i < n; ++i)
    for (j = i; j > 0 && v[j - 1] > v[j]; --j) {
      long long x = v[j];
      v[j] = v[j - 1];
      v[j - 1] = x;
    }
  return v[n / 2];
}

static void thread_first_read(void)
{
  struct cpucycles_probe probe;
  pthread_t t;
  int k;
  memset(&probe, 0, sizeof probe);
  if (!cpucycles_perf_setup(&task_clock, &task_mine, &probe)) {
    printf("a thread's first read: not measured (%s)\n", probe.words);
    return;
  }
  for (k = 0; k < 200; ++k) {
    flooring = k & 1;
    if (pthread_create(&t, 0, first_read, &took[flooring][k / 2]) == 0) pthread_join(t, 0);
  }
  printf("a thread's first read (page reader on the task clock): median %.2f us, its floor %.2f us: ratio %.2f\n",
         median_of(took[0], 100) / 1000.0, median_of(took[1], 100) / 1000.0,
         (double) median_of(took[0], 100) / (double) median_of(took[1], 100));
  cpucycles_perf_close(&task_clock, &task_mine);
}

int main(void)
{
  struct perf_event_attr attr;
  static struct cpucycles_counter table[2];
  static struct cpucycles_selection s;
  int i, n = 0;

  page.cap_user_rdpmc = 1;
  page.index = INDEX;
  page.pmc_width = 48;
  mine.page = &page;
  compare("page read, this thread's event (arm64-perfpmc, riscv*-perfrdcycle, amd64-perfpmc) against the page read",
          page_now, page_before, LOOP);
  /* amd64-perfpmcff read the fixed counter bare, and now reads it through
     its page (its offset, and read(2) where the event sits elsewhere) */
  compare("page read, this thread's event (amd64-perfpmcff) against the bare instruction", page_now, bare, LOOP);

  fake_os.perf_event_open = fake_software_cycles;
  for (i = 0; i < cpucycles_counter_count; ++i)
    if (!strcmp(cpucycles_counters[i].name, "default-perfevent") || i == cpucycles_counter_count - 1)
      table[n++] = cpucycles_counters[i];
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.exclude_kernel = 1;
  own_fd = (int) syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
  cpucycles_select(table, n, 0, &s);
  if (n != 2 || s.chosen != 0 || own_fd < 0) {
    printf("read(2) (default-perfevent): not measured (no software perf events here)\n");
    return 0;
  }
  perfevent = s.read;
  compare("read(2) (default-perfevent on the task clock)", perfevent, plain_read, SYSCALL_LOOP);
  thread_first_read();
  return 0;
}
#else
int main(void)
{
  printf("perf reads: not measured (Linux only)\n");
  return 0;
}
#endif
