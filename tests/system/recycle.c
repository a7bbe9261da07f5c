/* make test-system: threads come and go as in a pool that recycles
   (issue 32, row 4: on riscv64 every ended thread kept its perf page
   mapped, until after 65,510 lifetimes pthread_create failed on the map
   count, and a normal user's new threads counted time once
   RLIMIT_MEMLOCK was spent).  Argument: the thread lifetimes (70000).
   The main thread makes the first call; then pool threads, each pinned
   to a CPU, start 4 workers at a time and join them (the workers inherit
   its CPU).  Argument 2: the pools (default one per CPU); with 1 the
   whole process stays on CPU 0.  Under TCG on a busy host a call across
   vCPUs (perf's mmap and munmap on riscv64 make one to every CPU the
   process ran on) costs milliseconds: 2,000 lifetimes took 4.5 s on one
   CPU, 8.4 s with two pools and 57 s with four.  Each worker reads
   cpucycles() four times (never backwards, and the count grows) and
   ends.  Every 1,000th lifetime is a
   probe instead, which spins 2 ms and then sleeps 2 ms between reads,
   three times: its own event stands still while it sleeps (the least of
   its three sleeping rates below a quarter of its spinning rate), where
   the fallback, time at a fixed rate, would not.  The main thread takes
   the map count (lines of /proc/self/maps) every 20 ms: the first look
   once 1,000 lifetimes are done is the reference.  Prints
     recycle IMPLEMENTATION lifetimes N create-failures C backwards B
       grew G own P/Q maps M at 1000, at most X, at end E; fds F before, A after
   (one line) and exits 1 unless C = 0, B = 0, G = N, P = Q > 0,
   X <= M + 16, E <= M + 16 and A = F.  On the way, every 10,000
   lifetimes:
     recycled N: maps M, T ms
   Argument 3 "bare" runs the same threads without cpucycles(), for
   what the threads cost alone (1.1 s for 2,000 on one CPU). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cpucycles.h"
#include "perf-fds.h"

#define POOLS_MAX 16 /* pools, at most */
#define BATCH 4 /* workers a pool has alive at once */
#define LOOK_NS 20000000 /* the map count every 20 ms */
#define EVERY 1000   /* a probe, and the map count, every so many lifetimes */
#define PROGRESS 10000 /* a line every so many lifetimes */
#define PROBE_NS 2000000LL
#define MAPS_SLACK 16
#define WATCHDOG_S 400

static long backwards, grew, probes, own;
static int bare; /* argument "bare": the same threads without cpucycles(), for their cost alone */

static long long now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int map_count(void)
{
  FILE *f = fopen("/proc/self/maps", "r");
  int c, n = 0;
  if (!f) return -1;
  while ((c = getc(f)) != EOF) n += c == '\n';
  fclose(f);
  return n;
}

static void *worker(void *arg)
{
  long long a, b, c, d;
  (void) arg;
  if (bare) {
    __atomic_add_fetch(&grew, 1, __ATOMIC_RELAXED);
    return 0;
  }
  a = cpucycles(), b = cpucycles(), c = cpucycles(), d = cpucycles();
  if (b < a || c < b || d < c) __atomic_add_fetch(&backwards, 1, __ATOMIC_RELAXED);
  if (d > a) __atomic_add_fetch(&grew, 1, __ATOMIC_RELAXED);
  return 0;
}

/* counts per ns while spinning, and while sleeping: a thread's own
   cycles stand still in its sleep */
static void *probe(void *arg)
{
  struct timespec nap = { 0, PROBE_NS };
  long long t0, c0, t1, c1, t2, c2, first;
  double spinning = 0, sleeping = -1;
  int k, ok = 1;
  (void) arg;
  first = cpucycles();
  c2 = first;
  for (k = 0; k < 3; ++k) {
    double r;
    t0 = now_ns();
    c0 = cpucycles();
    do t1 = now_ns(); while (t1 - t0 < PROBE_NS);
    c1 = cpucycles();
    nanosleep(&nap, 0);
    t2 = now_ns();
    if (c0 < c2) ok = 0;
    c2 = cpucycles();
    if (c1 < c0 || c2 < c1) ok = 0;
    r = (double) (c1 - c0) / (double) (t1 - t0);
    if (r > spinning) spinning = r;
    r = (double) (c2 - c1) / (double) (t2 - t1);
    if (sleeping < 0 || r < sleeping) sleeping = r;
  }
  if (!ok) __atomic_add_fetch(&backwards, 1, __ATOMIC_RELAXED);
  if (c2 > first) __atomic_add_fetch(&grew, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&probes, 1, __ATOMIC_RELAXED);
  if (spinning > 0 && sleeping < spinning / 4)
    __atomic_add_fetch(&own, 1, __ATOMIC_RELAXED);
  else
    printf("recycle probe: %.2f per ns spinning, %.2f sleeping\n", spinning, sleeping);
  return 0;
}

static long lifetimes, next, done, failures;
static int create_error;

/* pinned to its CPU: BATCH workers at a time, started and joined */
static void *pool(void *arg)
{
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET((int) ((long) arg % sysconf(_SC_NPROCESSORS_ONLN)), &set);
  (void) sched_setaffinity(0, sizeof set, &set);
  while (!__atomic_load_n(&failures, __ATOMIC_RELAXED)) {
    pthread_t t[BATCH];
    int i, made = 0, e = 0;
    for (i = 0; i < BATCH; ++i) {
      long k = __atomic_add_fetch(&next, 1, __ATOMIC_RELAXED);
      if (k > lifetimes) break;
      /* the lifetime that ends a thousand is a probe */
      e = pthread_create(&t[made], 0, k % EVERY == 0 && !bare ? probe : worker, 0);
      if (e) {
        create_error = e;
        __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
        break;
      }
      ++made;
    }
    for (i = 0; i < made; ++i) pthread_join(t[i], 0);
    __atomic_add_fetch(&done, made, __ATOMIC_RELAXED);
    if (made < BATCH || e) break;
  }
  return 0;
}

int main(int argc, char **argv)
{
  long pools = sysconf(_SC_NPROCESSORS_ONLN), i, made = 0, shown = 0;
  int fds, fds_after, first = -1, most = -1, end, e = 0;
  long long t0 = now_ns();
  struct timespec look = { 0, LOOK_NS };
  pthread_t t[POOLS_MAX];

  lifetimes = argc > 1 ? atol(argv[1]) : 70000;
  if (argc > 2 && atol(argv[2]) > 0) pools = atol(argv[2]);
  bare = argc > 3 && !strcmp(argv[3], "bare");
  if (pools == 1) {
    /* the whole process on one CPU, from its first call on */
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    (void) sched_setaffinity(0, sizeof set, &set);
  }
  if (pools < 1) pools = 1;
  if (pools > POOLS_MAX) pools = POOLS_MAX;
  alarm(WATCHDOG_S); /* a hang: killed by SIGALRM, which the host sees */
  (void) cpucycles(); /* the main thread selects */
  fds = perf_fds();
  for (i = 0; i < pools; ++i) {
    e = pthread_create(&t[made], 0, pool, (void *) i);
    if (e) {
      create_error = e;
      ++failures;
      break;
    }
    ++made;
  }
  for (;;) {
    long d = __atomic_load_n(&done, __ATOMIC_RELAXED);
    int m = map_count();
    if (d >= EVERY && first < 0) first = m;
    if (first >= 0 && m > most) most = m;
    if (d / PROGRESS > shown) {
      shown = d / PROGRESS;
      printf("recycled %ld: maps %d, %lld ms\n", d, m, (now_ns() - t0) / 1000000);
      fflush(stdout);
    }
    if (d >= lifetimes || __atomic_load_n(&failures, __ATOMIC_RELAXED)) break;
    nanosleep(&look, 0);
  }
  for (i = 0; i < made; ++i) pthread_join(t[i], 0);
  end = map_count();
  fds_after = perf_fds();
  e = create_error;
  printf("recycle %s lifetimes %ld create-failures %ld%s%s%s backwards %ld grew %ld own %ld/%ld maps %d at %d, at most %d, at end %d;"
         " fds %d before, %d after\n",
         cpucycles_implementation(), done, failures, e ? " (" : "", e ? strerror(e) : "", e ? ")" : "", backwards, grew,
         own, probes, first, EVERY, most, end, fds, fds_after);
  return !(failures == 0 && done == lifetimes && backwards == 0 && grew == done && probes > 0 && own == probes &&
           first > 0 && most <= first + MAPS_SLACK && end <= first + MAPS_SLACK && fds_after == fds && fds >= 0);
}
