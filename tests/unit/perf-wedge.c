/* Issue 37's programs against the per-thread perf events, rows 1 to 6
   and 9 (row 7 is tests/integration/perf-key-late.sh, row 8
   tests/integration/tsan.sh, row 10 tests/unit/firstcall-errno.c).  As in
   perf-hostile.c, default-perfevent is chosen alone over the fake that
   swaps the cycles event for the thread's task clock, and the page
   reader reads that event through a fake page (tests/fakepage.h); each
   row runs in a child of its own under a watchdog, where a hang or a
   crash fails.  The asserts are counts: perf fds, pages, threads whose
   count stood still or who got no event.
   test: long (thousands of thread lifetimes). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include "check.h"
#include "internal.h"
#include "fakeos.h"
#include "perf-fds.h"

#ifndef __linux__
int main(void)
{
  skip("perf_wedge", "perf_event is Linux only");
  return 0;
}
#else
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/perf_event.h>
#include "perf.h"
#include "fakepage.h"
#include "wedge.h"

#define read_count wedge_read
static int emulated;

static long scaled(long n)
{
  return emulated && n >= 10 ? n / 10 : n;
}

static long long thread_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* scenario in a forked child under a watchdog of limit seconds: a hang or
   a death by a signal fails as name */
static void in_child(const char *name, void (*scenario)(void), int limit)
{
  long long deadline = now_ns() + limit * 1000000000LL;
  int status;
  pid_t pid, got;
  fflush(stdout);
  pid = fork();
  if (pid == 0) {
    forget_parents_pages();
    scenario();
    fflush(stdout);
    _exit(checks_failed());
  }
  while (pid > 0 && (got = waitpid(pid, &status, WNOHANG)) == 0 && now_ns() < deadline) sleep_us(10000);
  if (pid < 0) {
    check(0, name, "fork failed");
  } else if (got == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    check(0, name, "hung: still running after %d s, killed", limit);
  } else if (WIFSIGNALED(status)) {
    check(0, name, "died by signal %d", WTERMSIG(status));
  } else if (WEXITSTATUS(status)) {
    ++check_failures; /* the child said which */
  }
}

/* ---- row 1: a timer's handler leaves a thread's first read (wedge.h) ---- */

static void timer_leaves_first_read(void)
{
  long made;
  int fds;
  const char *how = by_exit ? "exit" : "longjmp";
  char name[96];
  read_count(); /* this thread's own event */
  made = workers(scaled(1000));
  read_count();
  fds = perf_fds();
  printf("info wedge_timer_%s: %ld threads, %d left their first read by the handler\n", how, made, left);
  snprintf(name, sizeof name, "wedge_timer_%s_never_frozen", how);
  check(!frozen, name, "%d of %ld threads' counts stood still after the handler left their first read", frozen,
        made);
  snprintf(name, sizeof name, "wedge_timer_%s_no_fd_leak", how);
  check(fds == 1, name, "%d perf fds after %ld threads joined (want this thread's 1)", fds, made);
  snprintf(name, sizeof name, "wedge_timer_%s_new_thread_counts", how);
  check(new_thread_counts(), name, "a new thread got no event after %ld threads", made);
}

static void timer_longjmp(void)
{
  by_exit = 0;
  timer_leaves_first_read();
}

static void timer_exit(void)
{
  by_exit = 1;
  timer_leaves_first_read();
}

/* ---- row 2: a child made without fork()'s handlers ---- */

#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
pid_t _Fork(void);
#define HAVE_FORK_WITHOUT_HANDLERS 1
#endif

/* In the child: status 0 where the page reader and default-perfevent
   both count the child's own task clock, 2 or 3 where one stood still. */
static int child_counts(void)
{
  long long a = paged_ticks(), b, c = read_count(), d;
  spin_us(20000);
  b = paged_ticks();
  d = read_count();
  if (b <= a) return 2;
  if (d <= c) return 3;
  return 0;
}

static void child_without_handlers(const char *how, pid_t pid)
{
  int status = -1;
  char name[96];
  if (pid == 0) _exit(child_counts());
  snprintf(name, sizeof name, "wedge_%s_child_counts_itself", how);
  if (pid < 0 || waitpid(pid, &status, 0) != pid) {
    skip(name, "no child was made");
    return;
  }
  check(WIFEXITED(status) && WEXITSTATUS(status) == 0, name,
        "the child %s (%d: 2 the page reader stood still, 3 default-perfevent did)",
        WIFSIGNALED(status) ? "died by a signal" : "exited", WIFSIGNALED(status) ? WTERMSIG(status)
                                                                                   : WEXITSTATUS(status));
}

static void fork_without_handlers(void)
{
  paged_ticks(); /* this thread's events, and their page */
  read_count();
#ifdef HAVE_FORK_WITHOUT_HANDLERS
  child_without_handlers("_Fork", _Fork());
#else
  skip("wedge__Fork_child_counts_itself", "no _Fork in this C library");
#endif
  child_without_handlers("clone", (pid_t) syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0));
}

/* A _Fork child of a process that holds no events (a fork() child gave
   its parent's back) must write its own pid too: else its own _Fork
   child takes the child's events, and their page that did not come
   along, for its own (it died reading the page, or stood still). */
static void fork_of_fork(void)
{
#ifdef HAVE_FORK_WITHOUT_HANDLERS
  int status = -1;
  pid_t g = _Fork();
  if (g == 0) {
    pid_t gg;
    paged_ticks(); /* this child's own events, and their page */
    read_count();
    gg = _Fork();
    if (gg == 0) _exit(child_counts());
    if (gg < 0 || waitpid(gg, &status, 0) != gg) _exit(4);
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 5);
  }
  check(g > 0 && waitpid(g, &status, 0) == g && WIFEXITED(status) && WEXITSTATUS(status) == 0,
        "wedge__Fork_of__Fork_child_counts_itself",
        "status %d (2: the page reader stood still, 3: default-perfevent did, 5 or -1: died)",
        WIFEXITED(status) ? WEXITSTATUS(status) : -1);
#else
  skip("wedge__Fork_of__Fork_child_counts_itself", "no _Fork in this C library");
#endif
}

/* ---- a given-up event's count, counted once ---- */

static int opened_fd = -1, opens_fail;
static long (*open_before)(void *, int, int, int, unsigned long);

static long failing_open(void *attr, int pid, int cpu, int group_fd, unsigned long flags)
{
  long fd;
  if (opens_fail) {
    errno = EMFILE;
    return -1;
  }
  fd = open_before(attr, pid, cpu, group_fd, flags);
  if (fd >= 0) opened_fd = (int) fd;
  return fd;
}

/* the page reader where its page never names the counter it wants:
   read(2), as amd64-perfpmcff where the NMI watchdog holds the counter */
static long long elsewhere_ticks(void)
{
  return cpucycles_perf_ticks(&paged, &paged_mine, 0x7fffffff, fake_rdpmc);
}

/* The program closes the event's fd and reopening fails for a while:
   the count goes on by time, the old event's count added once (it was
   added again at each retry, from the page kept for the next event). */
static void given_up_counted_once(void)
{
  long long start, a, b, took;
  open_before = fake_os.perf_event_open;
  fake_os.perf_event_open = failing_open;
  elsewhere_ticks(); /* this thread's events */
  spin_us(20000);
  a = elsewhere_ticks();
  start = now_ns();
  close(opened_fd);
  opens_fail = 1;
  while (now_ns() - start < 10000000LL) elsewhere_ticks(); /* a retry every ms, refused */
  opens_fail = 0;
  spin_us(5000);
  b = elsewhere_ticks();
  took = now_ns() - start;
  check(opened_fd >= 0 && b > a && (double) (b - a) < 3 * paged.per_ns * (double) took + 1000000,
        "wedge_given_up_counted_once", "%lld counted in %lld ns (%.3f a ns at setup)", b - a, took,
        paged.per_ns);
  fake_os.perf_event_open = open_before;
}

/* ---- row 3: threads killed by their seccomp filter in their first read ---- */

static void killed_in_first_read(void)
{
  pthread_t t;
  long n = scaled(300), i;
  int fds;
  read_count();
  for (i = 0; i < n; ++i)
    if (pthread_create(&t, 0, sandboxed_worker, 0) == 0) pthread_join(t, 0);
  if (!sandboxed) {
    skip("wedge_killed_new_thread_counts", "no seccomp filter here");
    return;
  }
  check(new_thread_counts(), "wedge_killed_new_thread_counts",
        "no new thread got an event after %d threads died in their first read", sandboxed);
  fds = perf_fds();
  check(fds == 1, "wedge_killed_no_fd_leak", "%d perf fds after %d threads died (want this thread's 1)", fds,
        sandboxed);
}

/* ---- row 4: more threads than slots, each reading every 10 ms ---- */

static volatile int stop;
static volatile long spent_ns, calls; /* long: 32-bit machines may lack 64-bit atomics */

static void *periodic(void *unused)
{
  long mine = 0, n = 0;
  (void) unused;
  while (!stop) {
    long long t0 = thread_ns();
    read_count();
    mine += (long) (thread_ns() - t0);
    ++n;
    sleep_us(10000);
  }
  __atomic_add_fetch(&spent_ns, mine, __ATOMIC_RELAXED);
  __atomic_add_fetch(&calls, n, __ATOMIC_RELAXED);
  return 0;
}

/* The thread CPU time of a call, in ns, with n threads reading; -1 where
   they could not all be made, or not within a second (an emulated
   machine, where such timings say nothing). */
static double per_call(int n)
{
  static pthread_t t[600];
  pthread_attr_t attr;
  long long start = now_ns();
  int made = 0, i;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  stop = 0;
  spent_ns = calls = 0;
  for (i = 0; i < n && now_ns() - start < 1000000000LL; ++i)
    if (pthread_create(&t[made], &attr, periodic, 0) == 0) ++made;
  sleep_us(1500000);
  stop = 1;
  for (i = 0; i < made; ++i) pthread_join(t[i], 0);
  return made < n || !calls ? -1 : (double) spent_ns / (double) calls;
}

static void past_the_slots(void)
{
  struct rlimit r;
  double few, many;
  if (getrlimit(RLIMIT_NOFILE, &r) != 0 || (r.rlim_max != RLIM_INFINITY && r.rlim_max < 4096)) {
    skip("wedge_past_slots_cost", "the hard fd limit is below 4096 (the fd budget would bind before the slots)");
    return;
  }
  r.rlim_cur = 4096;
  setrlimit(RLIMIT_NOFILE, &r);
  read_count();
  few = per_call(200);
  many = few > 0 ? per_call(600) : -1;
  printf("info wedge_past_slots_cost: %.0f ns a call with 200 threads, %.0f with 600\n", few, many);
  if (few <= 0 || many <= 0) {
    skip("wedge_past_slots_cost", "could not make 600 threads within a second here");
    return;
  }
  check(many <= 4 * few, "wedge_past_slots_cost", "a call costs %.1fx with 600 threads what it costs with 200 (%.0f ns, %.0f ns)",
        many / few, many, few);
}

/* ---- row 5: threads that unshare their fd table ---- */

static int unshare_how;

static void *unsharing(void *unused)
{
  (void) unused;
  read_count();
#ifdef SYS_close_range
  if (unshare_how) {
    syscall(SYS_close_range, ~0U, ~0U, 2 /* CLOSE_RANGE_UNSHARE */);
    read_count();
    return 0;
  }
#endif
  unshare(CLONE_FILES);
  read_count();
  return 0;
}

static void unshared_files(void)
{
  pthread_t t;
  long n = scaled(300), i;
  int fds, how;
  char name[96];
  read_count();
  for (how = 0; how < 2; ++how) {
    unshare_how = how;
    for (i = 0; i < n; ++i)
      if (pthread_create(&t, 0, unsharing, 0) == 0) pthread_join(t, 0);
    sleep_us(20000); /* pthread_join returns a moment before the kernel lets a thread go */
    read_count(); /* the next call of a thread sharing the process's fd table */
    fds = perf_fds();
    snprintf(name, sizeof name, "wedge_unshare_%s_no_fd_leak", how ? "close_range" : "files");
    check(fds == 1, name, "%d perf fds after %ld threads read and unshared their fd table (want this thread's 1)",
          fds, n);
  }
}

/* ---- row 6: fork() while other threads open their events ---- */

static void *read_once(void *unused)
{
  (void) unused;
  read_count();
  return 0;
}

static void *churn(void *unused)
{
  pthread_t t;
  (void) unused;
  while (!stop)
    if (pthread_create(&t, 0, read_once, 0) == 0) pthread_join(t, 0);
  return 0;
}

static void fork_while_opening(void)
{
  pthread_t t[3];
  long n = scaled(300), i;
  int made = 0, leaky = 0, most = 0, k;
  read_count();
  stop = 0;
  for (k = 0; k < 3; ++k)
    if (pthread_create(&t[made], 0, churn, 0) == 0) ++made;
  for (i = 0; i < n; ++i) {
    int status;
    pid_t pid = fork();
    if (pid == 0) _exit(perf_fds() & 127);
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) continue;
    if (WEXITSTATUS(status)) ++leaky;
    if (WEXITSTATUS(status) > most) most = WEXITSTATUS(status);
  }
  stop = 1;
  for (k = 0; k < made; ++k) pthread_join(t[k], 0);
  check(!leaky, "wedge_fork_while_opening_no_fd_in_child",
        "%d of %ld children began with perf fds of the parent's threads (up to %d)", leaky, n, most);
}

/* ---- row 9: an event in error, reopened again and again ---- */

static long in_error_read(int fd, void *buf, size_t size)
{
  unsigned long long id;
  if (ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0) return 0; /* a pinned event that lost its counter */
  return real_read_fd(fd, buf, size);
}

static void *reopening(void *unused)
{
  long long end = now_ns() + 300000000LL;
  (void) unused;
  while (now_ns() < end) {
    paged_ticks();
    sleep_us(100);
  }
  return 0;
}

static void parked_pages(void)
{
  pthread_t t;
  int most = 0;
  forget_parents_pages();
  page_index_zero = 1;
  fake_os.read_fd = in_error_read;
  if (pthread_create(&t, 0, reopening, 0) != 0) return;
  while (pthread_tryjoin_np(t, 0) != 0) {
    if (pages_live > most) most = pages_live;
    sleep_us(1000);
  }
  check(most <= 2, "wedge_reopen_pages_bounded", "%d pages mapped at once by one thread reopening its event", most);
}

int main(void)
{
  static struct cpucycles_counter table[2];
  static struct cpucycles_selection s;
  emulated = getenv("CPUCYCLES_TEST_EMULATED") != 0;
  if (!fake_perfevent_alone("perf_wedge", table, &s)) return 0;
  if (!page_reader()) {
    skip("perf_wedge", "the fake page reader did not set up");
    return 0;
  }
  read_count = s.read;
  in_child("wedge_timer_longjmp", timer_longjmp, 60);
  in_child("wedge_timer_exit", timer_exit, 60);
  in_child("wedge_fork_without_handlers", fork_without_handlers, 30);
  in_child("wedge_fork_of_fork", fork_of_fork, 30);
  in_child("wedge_given_up", given_up_counted_once, 30);
  /* a thread killed outright leaves AddressSanitizer's own thread
     records behind, which its next thread's start trips on */
  if (getenv("SANITIZE") && *getenv("SANITIZE"))
    skip("wedge_killed", "under the sanitizers (their runtime cannot lose a thread)");
  else
    in_child("wedge_killed", killed_in_first_read, 30);
  in_child("wedge_past_slots", past_the_slots, 60);
  in_child("wedge_unshare", unshared_files, 30);
  in_child("wedge_fork_while_opening", fork_while_opening, 60);
  in_child("wedge_reopen", parked_pages, 30);
  return checks_failed();
}
#endif
