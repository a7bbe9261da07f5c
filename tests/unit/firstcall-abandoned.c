/* A first call whose thread leaves it (issue 22, item 1): by siglongjmp
   from a timer's handler (the classic timeout), by pthread_exit in a
   handler, or killed outright (as a seccomp filter kills a thread).  Each
   case in a fresh process: later calls must finish, in every thread, and
   count with a real counter.  A watchdog ends a hung case (status 14).
   The first call is held open for a few milliseconds by the fake OS seam
   (its first getenv), so that the timer lands inside it.
   test: alone (timers leave the first call part way). */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "child.h"
#include "cpucycles.h"
#include "fakeos.h"

#define HOLD_NS 5000000L /* the first call lasts at least this long */
#define BOUND_S 20       /* a case this long is hung */

static void (*inside)(void); /* what happens inside the first call, once */
static int jobs; /* selections run */

static const char *held_getenv(const char *name)
{
  struct timespec t = { 0, HOLD_NS };
  void (*what)(void) = inside;
  if (!strcmp(name, "CPUCYCLES_IMPLEMENTATION")) __atomic_add_fetch(&jobs, 1, __ATOMIC_RELAXED);
  inside = 0;
  if (what) what();
  nanosleep(&t, 0);
  return getenv(name);
}

static void *watchdog(void *arg)
{
  (void) arg;
  sleep(BOUND_S);
  _exit(14);
}

static void start_watchdog(void)
{
  pthread_t w;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, 0); /* the watchdog takes no signal */
  pthread_create(&w, 0, watchdog, 0);
  pthread_sigmask(SIG_UNBLOCK, &all, 0);
}

static void timer_us(long us)
{
  struct itimerval t;
  memset(&t, 0, sizeof t);
  t.it_value.tv_usec = us;
  setitimer(ITIMER_REAL, &t, 0);
}

/* later calls in this thread and in a new one: a real counter that moves */
static void *later(void *arg)
{
  long long a = cpucycles(), b;
  int tries = 0;
  do b = cpucycles(); while (b == a && ++tries < 1000000);
  *(int *) arg = b > a && strcmp(cpucycles_implementation(), "default-zero") && cpucycles_persecond() > 0;
  return 0;
}

static int sane_everywhere(void)
{
  pthread_t t;
  int here = 0, there = 0;
  later(&here);
  if (pthread_create(&t, 0, later, &there) != 0 || pthread_join(t, 0) != 0) return 0;
  return here && there;
}

/* 1: the timer's handler jumps out of the first call */
static sigjmp_buf out;
static void jump_out(int sig)
{
  (void) sig;
  siglongjmp(out, 1);
}

static int longjmp_out(void)
{
  start_watchdog();
  signal(SIGALRM, jump_out);
  if (!sigsetjmp(out, 1)) {
    timer_us(100);
    cpucycles();
    pause(); /* the timer comes here, once the first call is done */
  }
  return sane_everywhere() ? 0 : 1;
}

/* 2: the handler ends the thread inside its first call */
static void end_thread(int sig)
{
  (void) sig;
  pthread_exit(0);
}

/* Thread t unblocks the timer's signal, sets the timer, makes its first
   call (or not) and waits for the handler to end it; the other threads
   block that signal, so it goes to t. */
static void *timer_then_pause(void *with_library)
{
  sigset_t alarm_only;
  sigemptyset(&alarm_only);
  sigaddset(&alarm_only, SIGALRM);
  pthread_sigmask(SIG_UNBLOCK, &alarm_only, 0);
  timer_us(100);
  if (with_library) cpucycles();
  pause();
  return 0;
}

static int thread_ended_by_handler(void *with_library)
{
  pthread_t t;
  sigset_t alarm_only;
  start_watchdog();
  signal(SIGALRM, end_thread);
  sigemptyset(&alarm_only);
  sigaddset(&alarm_only, SIGALRM);
  pthread_sigmask(SIG_BLOCK, &alarm_only, 0);
  pthread_create(&t, 0, timer_then_pause, with_library);
  pthread_join(t, 0);
  return !with_library || sane_everywhere() ? 0 : 1;
}

static int thread_exit_in_handler(void)
{
  return thread_ended_by_handler((void *) 1);
}

/* Whether pthread_exit from a handler works here at all, without the
   library: under qemu-ppc it aborts (the unwinder cannot cross qemu's
   signal frame), however the code around it is built. */
static int thread_exit_without_library(void)
{
  return thread_ended_by_handler(0);
}

static void nothing(void)
{
}

/* 3: the thread is killed inside its first call */
static void die_now(void)
{
  syscall(SYS_exit, 0); /* this thread only, nothing run on the way out */
}

static int killed_tid;

static void *first_call(void *arg)
{
  (void) arg;
  __atomic_store_n(&killed_tid, (int) syscall(SYS_gettid), __ATOMIC_RELEASE);
  cpucycles();
  return 0;
}

/* A thread ended by a raw exit cannot be joined with musl (its join
   waits for what pthread_exit would have said): wait for it to be gone */
static int killed_inside(void)
{
  pthread_t t;
  struct timespec ms = { 0, 1000000 };
  int tid;
  start_watchdog();
  inside = die_now;
  pthread_create(&t, 0, first_call, 0);
  while (!(tid = __atomic_load_n(&killed_tid, __ATOMIC_ACQUIRE)) || syscall(SYS_tgkill, (int) getpid(), tid, 0) == 0)
    nanosleep(&ms, 0);
  return sane_everywhere() ? 0 : 1;
}

/* 4: the thread that ran the first call ends as soon as it is done,
   while the others still sleep: nobody may take that for a thread killed
   inside it and select again */
#define RACERS 16
static void *first_call_and_end(void *arg)
{
  (void) arg;
  cpucycles();
  return 0;
}

static int ended_after_finishing(void)
{
  pthread_t t[RACERS];
  int i;
  start_watchdog();
  for (i = 0; i < RACERS; ++i) pthread_create(&t[i], 0, first_call_and_end, 0);
  for (i = 0; i < RACERS; ++i) pthread_join(t[i], 0);
  return jobs == 1 && sane_everywhere() ? 0 : 1;
}

static void hold(void)
{
  fake_os.getenv = held_getenv;
}

#define ROUNDS 10

/* whether the kernel keeps this thread's robust futex list, which is
   what hands a dead thread's lock on (qemu-user cannot) */
static int kernel_releases_robust_locks(void)
{
#if defined(__linux__) && defined(SYS_get_robust_list)
  void *head = 0;
  size_t len = 0;
  return syscall(SYS_get_robust_list, 0, &head, &len) == 0 && head;
#else
  return 0;
#endif
}

static void repeat(int (*test)(void), const char *name)
{
  int i, bad = 0, worst = 0, r;
  for (i = 0; i < ROUNDS; ++i)
    if ((r = fresh_status(hold, test)) != 0) ++bad, worst = r;
  check(!bad, name, "%d of %d processes failed (last status %d; 14: hung, 1: a later call gave 0 or default-zero, or a second selection ran)",
        bad, ROUNDS, worst);
}

int main(void)
{
  repeat(longjmp_out, "first_call_left_by_siglongjmp_later_calls_sane");
  if (fresh_status(nothing, thread_exit_without_library) != 0)
    skip("first_call_left_by_pthread_exit_later_calls_sane",
         "pthread_exit from a signal handler fails here even without the library (qemu-ppc aborts)");
  else
    repeat(thread_exit_in_handler, "first_call_left_by_pthread_exit_later_calls_sane");
  if (!kernel_releases_robust_locks())
    skip("first_call_thread_killed_later_calls_sane",
         "no robust futex lists here (qemu-user answers set_robust_list with ENOSYS): a thread killed inside the "
         "first call is not noticed (doc/api.md)");
  else
    repeat(killed_inside, "first_call_thread_killed_later_calls_sane");
  repeat(ended_after_finishing, "first_call_thread_ending_after_it_is_done_selects_once");
  return checks_failed();
}
