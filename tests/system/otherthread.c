/* make test-system: every thread counts its own cycles.  Thread A makes
   the first call; then, in cycles per microsecond of CLOCK_MONOTONIC over
   50 ms of spinning: A alone, B while A sleeps, B while A spins, each the
   median of 5 rounds (an emulated guest's vCPUs share the host's cores
   with everything else).  B's figure while A sleeps near A's own is B's
   own count; near 0 would be A's, which stood still.  Prints
     otherthread IMPLEMENTATION alone X sleeping Y spinning Z */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include "cpucycles.h"

#define SPIN_NS 50000000LL
#define ROUNDS 5

static long long now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* cycles per microsecond while this thread spins */
static double spin_rate(void)
{
  long long t0 = now_ns(), c0 = cpucycles(), t1, c1;
  do t1 = now_ns(); while (t1 - t0 < SPIN_NS);
  c1 = cpucycles();
  return (double) (c1 - c0) * 1000 / (double) (t1 - t0);
}

static volatile int a_spins, stop;
static double b_rate;

static void *thread_b(void *arg)
{
  (void) arg;
  b_rate = spin_rate();
  stop = 1;
  return 0;
}

static double with_b(int spin)
{
  pthread_t t;
  stop = 0;
  a_spins = spin;
  if (pthread_create(&t, 0, thread_b, 0) != 0) return -1;
  if (spin)
    while (!stop) continue;
  pthread_join(t, 0);
  return b_rate;
}

static double median(double *v)
{
  int i, j;
  for (i = 1; i < ROUNDS; ++i)
    for (j = i; j > 0 && v[j] < v[j - 1]; --j) {
      double t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  return v[ROUNDS / 2];
}

int main(void)
{
  double alone[ROUNDS], sleeping[ROUNDS], spinning[ROUNDS];
  int r;
  (void) cpucycles(); /* thread A makes the first call */
  for (r = 0; r < ROUNDS; ++r) {
    alone[r] = spin_rate();
    sleeping[r] = with_b(0);
    spinning[r] = with_b(1);
  }
  printf("otherthread %s alone %.1f sleeping %.1f spinning %.1f\n", cpucycles_implementation(), median(alone),
         median(sleeping), median(spinning));
  return 0;
}
