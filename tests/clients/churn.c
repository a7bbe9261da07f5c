/* Thread churn under a per-thread profiler, while the program closes fds
   (issue 37, row 8): built with the library under ThreadSanitizer by
   tests/integration/tsan.sh, which wants no report.  Linked with
   tests/fakeos.c: the cycles event is the task clock, so default-perfevent
   and the page reader of tests/fakepage.h really open, map, read and close
   events here.  Each short-lived thread arms a SIGPROF timer of its own
   whose handler reads both counters, reads them itself, and ends; the
   main thread closes the library's fds now and then (close_range), and
   gives back the page reader's events of every thread at the end.
   Prints "churn threads N handler_calls H backwards B" and exits 0, or
   "skip churn: WHY" and exits 2. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "check.h"
#include "internal.h"
#include "fakeos.h"
#include "perf.h"
#include "fakepage.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid /* glibc before 2.35 names no field */
#endif

static long long (*read_count)(void);
static volatile int handler_calls, backwards, stop;
static __thread long long seen;

static void note(long long c)
{
  if (c < seen) __atomic_add_fetch(&backwards, 1, __ATOMIC_RELAXED);
  if (c > seen) seen = c;
}

static void profiler(int sig)
{
  int saved = errno;
  (void) sig;
  read_count();
  paged_ticks();
  __atomic_add_fetch(&handler_calls, 1, __ATOMIC_RELAXED);
  errno = saved;
}

static void *life(void *unused)
{
  struct sigevent ev;
  struct itimerspec it;
  timer_t timer;
  int i, timed;
  (void) unused;
  memset(&ev, 0, sizeof ev);
  memset(&it, 0, sizeof it);
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = SIGPROF;
  ev.sigev_notify_thread_id = (pid_t) syscall(SYS_gettid);
  it.it_interval.tv_nsec = it.it_value.tv_nsec = 50000;
  timed = timer_create(CLOCK_MONOTONIC, &ev, &timer) == 0;
  if (timed) timer_settime(timer, 0, &it, 0);
  for (i = 0; i < 200; ++i) {
    note(read_count());
    paged_ticks();
  }
  if (timed) timer_delete(timer);
  return 0;
}

static void *churn(void *unused)
{
  pthread_t t;
  (void) unused;
  while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
    if (pthread_create(&t, 0, life, 0) == 0) pthread_join(t, 0);
  return 0;
}

int main(void)
{
  static struct cpucycles_counter table[2];
  static struct cpucycles_selection s;
  struct sigaction sa;
  struct timespec pause = { 0, 20000000 };
  pthread_t t[3];
  int i, made = 0, threads;
  if (!fake_perfevent_alone("churn", table, &s)) return 2;
  if (!page_reader()) {
    printf("skip churn: the fake page reader did not set up\n");
    return 2;
  }
  read_count = s.read;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = profiler;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGPROF, &sa, 0);
  for (i = 0; i < 3; ++i)
    if (pthread_create(&t[made], 0, churn, 0) == 0) ++made;
  for (i = 0; i < 50; ++i) {
    nanosleep(&pause, 0);
#ifdef SYS_close_range
    syscall(SYS_close_range, 700U, ~0U, 0); /* the library's fds sit high */
#endif
  }
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  for (i = 0; i < made; ++i) pthread_join(t[i], 0);
  threads = made;
  cpucycles_perf_close(&paged, &paged_mine);
  printf("churn threads %d handler_calls %d backwards %d\n", threads, handler_calls, backwards);
  return backwards != 0;
}
