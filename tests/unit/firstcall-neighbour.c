/* The first call beside what a program may do meanwhile, through the real
   API, each case in a fresh process (the parent never calls the library):
   a fork by another thread during the first call, a pthread_cancel of the
   selecting thread, a signal handler that asks for persecond inside the
   first call, and a forked child of a program whose counter follows one
   thread (a perf event).  The OS seam (tests/fakeos.h) slows the first call
   down at a known point, where selection asks for CPUCYCLES_IMPLEMENTATION,
   so that each case happens inside it every time.
   test: alone (a timer must fire within a bound). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cpucycles.h>
#include "check.h"
#include "child.h"
#include "cpucycles-config.h" /* CPUCYCLES_THREAD, as the library has it */
#include "fakeos.h"
#include "handlers.h"

#define SLOW_NS 200000000L /* the first call takes this long at the hook */
#define BOUND_SECONDS 10   /* a case that takes longer is hung */

static volatile int started;
static void (*at_hook)(void);

static void pause_ns(long ns)
{
  struct timespec t;
  t.tv_sec = ns / 1000000000L;
  t.tv_nsec = ns % 1000000000L;
  while (nanosleep(&t, &t) != 0) continue;
}

static const char *hooked_getenv(const char *name)
{
  if (!strcmp(name, "CPUCYCLES_IMPLEMENTATION")) {
    started = 1;
    if (at_hook) at_hook();
  }
  return getenv(name);
}

static void slow(void)
{
  pause_ns(SLOW_NS);
}

static void *first_call(void *arg)
{
  (void) arg;
  cpucycles();
  return 0;
}

static void wait_started(void)
{
  while (!started) pause_ns(1000000);
}

/* counts advance and the library says what it chose */
static int sane(void)
{
  long long a = cpucycles(), b;
  pause_ns(1000000);
  b = cpucycles();
  return cpucycles_persecond() > 0 && cpucycles_implementation()[0] &&
         (b > a || !strcmp(cpucycles_implementation(), "default-zero"));
}


/* 5a: another thread forks while the first call runs; the child's own
   first call must finish */
static int fork_during_first_call(void)
{
  pthread_t t;
  pid_t pid;
  int status;
  at_hook = slow;
  pthread_create(&t, 0, first_call, 0);
  wait_started();
  pid = fork();
  if (pid == 0) {
    alarm(BOUND_SECONDS);
    _exit(sane() && handlers_back() ? 0 : 1);
  }
  pthread_join(t, 0);
  if (waitpid(pid, &status, 0) != pid) return 2;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 3;
}

/* 5a at the start: a fork already under way when the first call starts.
   fork holds the lock pthread_atfork takes from its prepare handlers
   until the child exists; a fork handler registered by the first call
   waited there, so the child inherited a selection no thread would
   finish, with no handler to start it afresh (the library's handler now
   goes in when it is loaded).  A slow prepare handler of ours holds the
   fork open while the first call begins. */
#define PREPARE_NS 50000000L
static volatile int forking;
static pid_t early_child;

static void prepare_slowly(void)
{
  forking = 1;
  pause_ns(PREPARE_NS);
}

static void *early_forker(void *arg)
{
  (void) arg;
  early_child = fork();
  if (early_child == 0) {
    alarm(BOUND_SECONDS);
    _exit(sane() && handlers_back() ? 0 : 1);
  }
  return 0;
}

static int fork_under_way_as_first_call_starts(void)
{
  pthread_t t;
  int status;
  at_hook = slow;
  pthread_atfork(prepare_slowly, 0, 0);
  pthread_create(&t, 0, early_forker, 0);
  while (!forking) pause_ns(100000);
  cpucycles();
  pthread_join(t, 0);
  if (early_child < 0 || waitpid(early_child, &status, 0) != early_child) return 2;
  if (WIFSIGNALED(status)) return WTERMSIG(status) == SIGALRM ? 4 : 5;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 3;
}

/* 5b: the selecting thread is cancelled inside the first call.  A perf
   counter (every one has "perf" in its name) counts that thread, which
   is gone, so its count stands still (make test-system saw it on a real
   kernel, where default-perfevent wins): later calls must finish and
   say what was chosen, and only another counter must advance. */
static int cancel_during_first_call(void)
{
  pthread_t t;
  long long a, b;
  at_hook = slow;
  pthread_create(&t, 0, first_call, 0);
  wait_started();
  pthread_cancel(t);
  pthread_join(t, 0);
  alarm(BOUND_SECONDS);
  if (strstr(cpucycles_implementation(), "perf")) {
    a = cpucycles();
    b = cpucycles();
    return b >= a && cpucycles_persecond() > 0 && handlers_back() ? 0 : 1;
  }
  return sane() && handlers_back() ? 0 : 1;
}

/* 7: a handler interrupts the first call and asks for persecond */
static volatile long long reentered = -1;

static void on_usr1(int sig)
{
  (void) sig;
  reentered = cpucycles_persecond();
}

static void interrupt(void)
{
  raise(SIGUSR1);
}

static int persecond_from_handler(void)
{
  signal(SIGUSR1, on_usr1);
  at_hook = interrupt;
  alarm(BOUND_SECONDS);
  cpucycles();
  return reentered > 0 ? 0 : 1;
}

/* 7 under a fast timer: a profiler-like timer interrupts the first call
   every TIMER_US wherever it is (also between the state going RUNNING
   and this thread's mark, where a handler once waited for its own
   thread), and each handler asks for persecond.  Every answer must be
   positive and the first call must end (the handler must not spend its
   whole interval reading files). */
#define TIMER_US 20
#define TIMER_ROUNDS 20
#define TIMER_BOUND_S 3 /* a first call this long is hung */
/* Emulated (qemu-user, or the TCG guest of make test-system), delivering
   one signal takes longer than 20 us: a timer that fast would starve any
   program.  There the timer is slower and the bound longer. */
#define TIMER_US_EMULATED 1000
#define TIMER_BOUND_S_EMULATED 30
static long timer_us = TIMER_US;
static unsigned int timer_bound_s = TIMER_BOUND_S;
static volatile int timed_call;
static volatile long long timed_smallest = -1;

static void on_timer(int sig)
{
  long long v;
  (void) sig;
  if (!timed_call) return;
  v = cpucycles_persecond();
  if (timed_smallest < 0 || v < timed_smallest) timed_smallest = v;
}

static void *watchdog(void *arg)
{
  unsigned int left = timer_bound_s;
  (void) arg;
  while ((left = sleep(left)) > 0) continue;
  _exit(14); /* hung */
}

/* A second thread that takes no SIGALRM (a watchdog, or the probe's
   other thread), then handler on an ITIMER_REAL every us microseconds:
   the timer's signals land in this thread. */
static void timer_beside(void *(*thread)(void *), void (*handler)(int), long us)
{
  struct itimerval it;
  pthread_t t;
  sigset_t alrm;
  sigemptyset(&alrm);
  sigaddset(&alrm, SIGALRM);
  pthread_sigmask(SIG_BLOCK, &alrm, 0);
  pthread_create(&t, 0, thread, 0);
  pthread_sigmask(SIG_UNBLOCK, &alrm, 0);
  signal(SIGALRM, handler);
  memset(&it, 0, sizeof it);
  it.it_interval.tv_usec = it.it_value.tv_usec = us;
  setitimer(ITIMER_REAL, &it, 0);
}

/* The library marks, per thread (thread-local), which of its jobs this
   thread runs, so a handler inside them does not wait for itself.  That
   needs a thread to keep its own thread-local storage across a signal.
   qemu-i386 7.2 breaks it: with a second thread alive, the main thread
   comes back from its first timer handler with the other thread's storage
   (the second handler and the main thread then read the other thread's
   value; natively they read their own).  There the fast-timer case tests
   the emulator, not the library.  Returns 0 if the storage is kept, 1 if
   not, 2 if the timer did not fire twice within the bound. */
static CPUCYCLES_THREAD int own_mark;
static volatile int marks_seen, mark_wrong;

static void note_mark(int sig)
{
  (void) sig;
  if (own_mark != 1) mark_wrong = 1;
  ++marks_seen;
}

static void *other_thread(void *arg)
{
  own_mark = 2;
  (void) arg;
  for (;;) pause();
  return 0;
}

static int thread_storage_kept_across_signals(void)
{
  struct timespec now;
  long long end;
  own_mark = 1;
  timer_beside(other_thread, note_mark, 1000);
  clock_gettime(CLOCK_MONOTONIC, &now);
  end = now.tv_sec + BOUND_SECONDS;
  do clock_gettime(CLOCK_MONOTONIC, &now);
  while (marks_seen < 2 && now.tv_sec < end);
  if (own_mark != 1) mark_wrong = 1;
  return marks_seen < 2 ? 2 : mark_wrong;
}

static int persecond_from_fast_timer(void)
{
  struct itimerval stop;
  timed_call = 1;
  timer_beside(watchdog, on_timer, timer_us);
  cpucycles();
  timed_call = 0;
  memset(&stop, 0, sizeof stop);
  setitimer(ITIMER_REAL, &stop, 0);
  return timed_smallest != 0 && cpucycles_persecond() > 0 ? 0 : 1;
}

/* 8: default-perfevent counts this thread; a forked child's counts must
   advance with its own work while the parent waits */
static volatile long sink;

static int perf_counter_in_child(void)
{
  pid_t pid;
  int status;
  fake_os.perf_event_open = fake_software_cycles;
  setenv("CPUCYCLES_IMPLEMENTATION", "default-perfevent", 1);
  cpucycles();
  if (strcmp(cpucycles_implementation(), "default-perfevent")) return 77;
  pid = fork();
  if (pid == 0) {
    long long a, b;
    long i;
    alarm(BOUND_SECONDS);
    a = cpucycles();
    for (i = 0; i < 10000000; ++i) sink += i;
    b = cpucycles();
    _exit(b > a && !strcmp(cpucycles_implementation(), "default-perfevent") ? 0 : 1);
  }
  if (waitpid(pid, &status, 0) != pid) return 2;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
}

/* exit: a thread still counting while the process exits must see no
   count go backwards and no second selection (nothing is taken back at
   exit).  This destructor runs after the library's (static link order)
   and gives the thread 50 ms to look. */
static volatile int exit_case, exit_bad, perf_opens;

static long counting_open(void *attr, int pid, int cpu, int group_fd, unsigned long flags)
{
  ++perf_opens;
  return fake_software_cycles(attr, pid, cpu, group_fd, flags);
}

static void *counting(void *arg)
{
  long long previous = cpucycles(), now;
  int opens = perf_opens;
  (void) arg;
  for (;;) {
    now = cpucycles();
    if (now < previous || perf_opens != opens) exit_bad = 1;
    previous = now;
  }
  return 0;
}

__attribute__((destructor)) static void after_library(void)
{
  if (!exit_case) return;
  pause_ns(50000000);
  _exit(exit_bad ? 1 : 0);
}

static int counting_through_exit(void)
{
  pthread_t t;
  fake_os.perf_event_open = counting_open;
  setenv("CPUCYCLES_IMPLEMENTATION", "default-perfevent", 1);
  cpucycles();
  if (strcmp(cpucycles_implementation(), "default-perfevent")) return 77;
  pthread_create(&t, 0, counting, 0);
  pause_ns(10000000);
  exit_case = 1;
  exit(0);
}

/* each case in a fresh process; its exit status is the verdict */
static void hook(void)
{
  fake_os.getenv = hooked_getenv;
}

static int fresh(int (*test)(void))
{
  return fresh_status(hook, test);
}

int main(void)
{
  int r, i, rounds, bad, worst = 0;
  note_handlers();
  r = fresh(fork_during_first_call);
  check(r == 0, "fork_during_first_call_child_finishes", "status %d (1014: hung, killed by SIGALRM)", r);
  r = fresh(fork_under_way_as_first_call_starts);
  check(r == 0, "fork_under_way_as_first_call_starts_child_finishes", "status %d (4: the child hung, 3: its counts were wrong)", r);
  r = fresh(cancel_during_first_call);
  check(r == 0, "cancel_during_first_call_later_calls_finish", "status %d (1014: hung)", r);
  r = fresh(persecond_from_handler);
  check(r == 0, "persecond_from_handler_inside_first_call_positive", "status %d", r);
  rounds = TIMER_ROUNDS;
  if (getenv("CPUCYCLES_TEST_EMULATED")) {
    rounds = TIMER_ROUNDS / 10;
    timer_us = TIMER_US_EMULATED;
    timer_bound_s = TIMER_BOUND_S_EMULATED;
  }
#ifndef CPUCYCLES_NO_THREAD_LOCAL
  r = fresh(thread_storage_kept_across_signals);
  if (r == 1 || r == 2) rounds = 0;
#endif
  for (i = 0, bad = 0; i < rounds; ++i) {
    r = fresh(persecond_from_fast_timer);
    if (r) ++bad, worst = r;
  }
  if (!rounds)
    skip("persecond_from_fast_timer_handlers_positive_and_first_call_ends",
         r == 1 ? "a thread here comes back from a signal handler with another thread's thread-local storage (qemu-i386 7.2 does this)"
                : "the timer did not fire twice within the bound");
  else
    check(!bad, "persecond_from_fast_timer_handlers_positive_and_first_call_ends",
        "%d of %d processes failed (last status %d; 14: hung, 1: an answer was 0)", bad, rounds, worst);
  r = fresh(perf_counter_in_child);
  if (r == 77)
    skip("fork_child_counts_own_work_with_perf_counter", "the kernel refused software perf events here");
  else
    check(r == 0, "fork_child_counts_own_work_with_perf_counter", "status %d (1: counts did not advance)", r);
  r = fresh(counting_through_exit);
  if (r == 77)
    skip("thread_counting_through_exit_unharmed", "the kernel refused software perf events here");
  else
    check(r == 0, "thread_counting_through_exit_unharmed", "status %d (1: backwards or selected again)", r);
  return checks_failed();
}
