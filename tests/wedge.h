/* What issue 37's programs share (tests/unit/perf-wedge.c on the fake OS,
   tests/system/wedge.c on a real kernel): a timer's handler that leaves a
   thread's first read, a seccomp filter that kills a thread at
   perf_event_open, and whether a new thread gets an event.  wedge_read is
   the read under test, set by the includer (its own, or cpucycles). */
#ifndef CPUCYCLES_TEST_WEDGE_H
#define CPUCYCLES_TEST_WEDGE_H

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include "perf-fds.h"

#ifndef SECCOMP_RET_KILL_THREAD
#define SECCOMP_RET_KILL_THREAD SECCOMP_RET_KILL /* its old name */
#endif
#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid /* glibc before 2.35 names no field */
#endif

static long long (*wedge_read)(void);

static long long now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void sleep_us(long us)
{
  struct timespec t;
  t.tv_sec = us / 1000000;
  t.tv_nsec = us % 1000000 * 1000;
  while (nanosleep(&t, &t) != 0 && errno == EINTR) continue;
}

static volatile long spin;

static void spin_us(long us)
{
  long long end = now_ns() + us * 1000LL;
  while (now_ns() < end) ++spin;
}

/* Whether a thread that reads now gets its own event: its read adds a
   perf fd, within a second of retries. */
static int got_event;
static void *new_thread(void *unused)
{
  long long end = now_ns() + 1000000000LL;
  int before = perf_fds();
  (void) unused;
  for (got_event = 0; !got_event && now_ns() < end; sleep_us(2000)) {
    wedge_read();
    got_event = perf_fds() > before;
  }
  return 0;
}

static int new_thread_counts(void)
{
  pthread_t t;
  if (pthread_create(&t, 0, new_thread, 0) != 0) return 0;
  pthread_join(t, 0);
  return got_event;
}

/* ---- row 1: a timer's handler leaves a thread's first read ---- */

static __thread sigjmp_buf jump;
static __thread volatile int armed;
static int by_exit; /* the handler calls pthread_exit rather than siglongjmp */
static volatile int frozen, left;

static void leave(int sig)
{
  (void) sig;
  if (!armed) return;
  armed = 0;
  __atomic_add_fetch(&left, 1, __ATOMIC_RELAXED);
  if (by_exit) pthread_exit(0);
  siglongjmp(jump, 1);
}

/* One worker (arg: its number): a one-shot SIGALRM timer of its own, 1 to
   40 us away, and its first read; then, whether or not the timer left
   that read, two reads around 200 us of work must differ. */
static void *worker(void *arg)
{
  struct sigevent ev;
  struct itimerspec it;
  timer_t timer;
  long long a, b;
  memset(&ev, 0, sizeof ev);
  memset(&it, 0, sizeof it);
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = SIGALRM;
  ev.sigev_notify_thread_id = (pid_t) syscall(SYS_gettid);
  if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0) return arg;
  it.it_value.tv_nsec = 1000 + (long) ((size_t) arg % 40) * 1000;
  if (!sigsetjmp(jump, 1)) {
    armed = 1;
    timer_settime(timer, 0, &it, 0);
    wedge_read();
    armed = 0;
  }
  timer_delete(timer);
  a = wedge_read();
  spin_us(200);
  b = wedge_read();
  if (b <= a) __atomic_add_fetch(&frozen, 1, __ATOMIC_RELAXED);
  return 0;
}

/* n workers, 8 at a time, with leave() on SIGALRM; how many were made */
static long workers(long n)
{
  struct sigaction sa;
  pthread_t t[8];
  long i, made = 0;
  int k;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = leave;
  sigaction(SIGALRM, &sa, 0);
  for (i = 0; i < n; i += 8) {
    for (k = 0; k < 8; ++k)
      if (pthread_create(&t[k], 0, worker, (void *) (size_t) (i + k)) == 0) ++made;
      else t[k] = pthread_self();
    for (k = 0; k < 8; ++k)
      if (!pthread_equal(t[k], pthread_self())) pthread_join(t[k], 0);
  }
  return made;
}

/* ---- row 3: a sandbox that kills a thread at perf_event_open ---- */

static int forbid_opens(void)
{
  struct sock_filter code[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_THREAD),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = { sizeof code / sizeof code[0], code };
  return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0;
}

/* A thread that dies in its first read, where the filter could be set. */
static volatile int sandboxed;
static void *sandboxed_worker(void *unused)
{
  (void) unused;
  if (!forbid_opens()) return 0;
  __atomic_add_fetch(&sandboxed, 1, __ATOMIC_RELAXED);
  wedge_read(); /* dies here */
  return 0;
}

#endif
