/* make test-system: threads start and end while a timer's signal handler
   calls cpucycles() (issue 32, row 1: a profiler's or a watchdog's
   handler).  Arguments: the timer's interval in microseconds (10000 for
   100 Hz, 200) and the thread lifetimes (300).  The main thread makes the
   first call and blocks the signal; the workers, a few at a time (one per
   CPU), unblock it first thing, so that the process-directed signal lands
   in them: in their first read (which opens their events), in their
   reads, and on their way out (which gives the events back).  Each
   worker reads in a loop for LIFE_MS, and at least MIN_READS times; in
   the loop and in the handler no count may be below one the thread was
   handed before that read began, and the thread's count must grow.
   The perf fds are counted after each batch is joined: none may be left
   over the main thread's own.  A watchdog (alarm) kills a hung run.
   Prints
     handlers IMPLEMENTATION every U us lifetimes N handled H reads R
       decreases D grew G fds F before, at most M after joins
   (one line; before it, a "handlers stuck" line for each thread whose
   count did not grow) and exits 1 unless H > 0, D = 0, G = N and M = F. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cpucycles.h"
#include "perf-fds.h"

#define LIFE_MS 20   /* each worker reads this long */
#define MIN_READS 100 /* and this often, at least */
#define BATCH_MAX 16 /* workers alive at once, at most */
#define WATCHDOG_S 120

static long handled, decreases, reads, grew;
static __thread long long last; /* the highest count this thread was handed */

static long long now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* One read: never below what the thread was handed before it began (a
   handler's count inside this read may be higher than this read's). */
static void one_read(void)
{
  long long before = last, v = cpucycles();
  if (v < before) __atomic_add_fetch(&decreases, 1, __ATOMIC_RELAXED);
  if (v > last) last = v;
}

static void handler(int sig)
{
  int saved = errno;
  (void) sig;
  one_read();
  __atomic_add_fetch(&handled, 1, __ATOMIC_RELAXED);
  errno = saved;
}

static void *worker(void *arg)
{
  sigset_t s;
  long long t0, first, n = 0;
  (void) arg;
  sigemptyset(&s);
  sigaddset(&s, SIGPROF);
  pthread_sigmask(SIG_UNBLOCK, &s, 0);
  t0 = now_ns();
  one_read();
  first = last;
  /* at least MIN_READS: under TCG a thread may get no CPU for its whole
     LIFE_MS (its first read, which opens its events, included) */
  while (n < MIN_READS || now_ns() - t0 < LIFE_MS * 1000000LL) {
    one_read();
    ++n;
  }
  __atomic_add_fetch(&reads, n + 1, __ATOMIC_RELAXED);
  if (last > first)
    __atomic_add_fetch(&grew, 1, __ATOMIC_RELAXED);
  else
    printf("handlers stuck: %lld reads over %lld ns, first %lld last %lld\n", n + 1, now_ns() - t0, first, last);
  return 0;
}

int main(int argc, char **argv)
{
  long interval_us = argc > 1 ? atol(argv[1]) : 10000, lifetimes = argc > 2 ? atol(argv[2]) : 300, done = 0;
  long batch = sysconf(_SC_NPROCESSORS_ONLN);
  int fds, most, failed = 0;
  pthread_t t[BATCH_MAX];
  struct sigaction sa;
  struct sigevent ev;
  struct itimerspec it;
  timer_t timer;
  sigset_t s;

  if (batch < 1) batch = 1;
  if (batch > BATCH_MAX) batch = BATCH_MAX;
  alarm(WATCHDOG_S); /* a hang: killed by SIGALRM, which the host sees */
  (void) cpucycles(); /* the main thread selects */
  fds = most = perf_fds();

  sigemptyset(&s);
  sigaddset(&s, SIGPROF);
  pthread_sigmask(SIG_BLOCK, &s, 0); /* the workers inherit it, and unblock it */
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGPROF, &sa, 0);
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_SIGNAL;
  ev.sigev_signo = SIGPROF;
  if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0) {
    printf("handlers timer_create: %s\n", strerror(errno));
    return 1;
  }
  it.it_interval.tv_sec = it.it_value.tv_sec = interval_us / 1000000;
  it.it_interval.tv_nsec = it.it_value.tv_nsec = interval_us % 1000000 * 1000;
  timer_settime(timer, 0, &it, 0);

  while (done < lifetimes && !failed) {
    long i, n = lifetimes - done < batch ? lifetimes - done : batch, made = 0;
    for (i = 0; i < n; ++i) {
      int e = pthread_create(&t[i], 0, worker, 0);
      if (e) {
        printf("handlers pthread_create: %s\n", strerror(e));
        failed = 1;
        break;
      }
      ++made;
    }
    for (i = 0; i < made; ++i) pthread_join(t[i], 0);
    done += made;
    if (done % (batch * 10) == 0 || done >= lifetimes) {
      int f = perf_fds();
      if (f > most) most = f;
    }
  }
  timer_delete(timer);

  printf("handlers %s every %ld us lifetimes %ld handled %ld reads %ld decreases %ld grew %ld fds %d before, at most %d after joins\n",
         cpucycles_implementation(), interval_us, done, handled, reads, decreases, grew, fds, most);
  return !(!failed && handled > 0 && decreases == 0 && grew == done && most == fds && fds >= 0);
}
