/* Per-call overhead of cpucycles() beside the raw instruction inline, in
   the same run: median and interquartile mean of back-to-back differences,
   and wall-clock nanoseconds per call over a long loop.  With the argument
   "monotonic" (and CPUCYCLES_IMPLEMENTATION=default-monotonic), the raw
   read is clock_gettime itself: the cost of a scaled read. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cpucycles.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define RAW_NAME "rdtsc (__rdtsc inline)"
static inline long long raw(void) { return (long long) __rdtsc(); }
#elif defined(__aarch64__)
#define RAW_NAME "mrs CNTVCT_EL0 inline"
static inline long long raw(void) { long long t; __asm__ __volatile__("mrs %0, CNTVCT_EL0" : "=r"(t)); return t; }
#else
#define RAW_NAME 0
static inline long long raw(void) { return 0; }
#endif

static int monotonic;
static long long raw_clock(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

#define N 4096
#define LOOP 1000000
#define ROUNDS 11 /* timed loops of each, alternating: the median ratio */

static int compare(const void *a, const void *b)
{
  long long x = *(const long long *) a, y = *(const long long *) b;
  return (x > y) - (x < y);
}

static void stats(long long *t, double *median, double *iqm)
{
  static long long d[N - 1];
  long long sum = 0;
  int i;
  for (i = 0; i < N - 1; ++i) d[i] = t[i + 1] - t[i];
  qsort(d, N - 1, sizeof d[0], compare);
  for (i = (N - 1) / 4; i < 3 * (N - 1) / 4; ++i) sum += d[i];
  *median = (double) d[(N - 1) / 2];
  *iqm = (double) sum / (3 * (N - 1) / 4 - (N - 1) / 4);
}

static int compare_double(const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double median_of(double *v)
{
  double sorted[ROUNDS];
  memcpy(sorted, v, sizeof sorted);
  qsort(sorted, ROUNDS, sizeof sorted[0], compare_double);
  return sorted[ROUNDS / 2];
}

static long long ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
  static long long t[N];
  double m1, q1, m2, q2, ns1, ns2, r, a[ROUNDS], b[ROUNDS], ratio[ROUNDS];
  volatile long long sink = 0;
  long long t0;
  int i, round;

  const char *raw_name = RAW_NAME;
  long long (*rawread)(void) = raw;
  if (argc > 1 && !strcmp(argv[1], "monotonic")) {
    monotonic = 1;
    raw_name = "clock_gettime(CLOCK_MONOTONIC)";
    rawread = raw_clock;
  }
  cpucycles(); /* selection happens here, not below */
  for (round = 0; round < 2; ++round) { /* first round warms up */
    for (i = 0; i < N; ++i) t[i] = cpucycles();
    stats(t, &m1, &q1);
    for (i = 0; i < N; ++i) t[i] = rawread();
    stats(t, &m2, &q2);
  }
  /* alternating short loops see the same load: a busy moment spoils
     one round's ratio, not the median */
  for (round = 0; round < ROUNDS; ++round) {
    t0 = ns();
    for (i = 0; i < LOOP; ++i) sink += cpucycles();
    a[round] = (double) (ns() - t0) / LOOP;
    t0 = ns();
    for (i = 0; i < LOOP; ++i) sink += rawread();
    b[round] = (double) (ns() - t0) / LOOP;
    ratio[round] = a[round] / b[round];
  }
  ns1 = median_of(a);
  ns2 = median_of(b);
  r = median_of(ratio);

  printf("implementation %s\n", cpucycles_implementation());
  printf("cpucycles() back-to-back: median %.0f iqm %.1f (cycles); %.2f ns per call (median of %d loops' means,"
         " preemption included)\n", m1, q1, ns1, ROUNDS);
  if (!raw_name) {
    printf("raw instruction: none known for this ISA\n");
    return 0;
  }
  printf("%s back-to-back: median %.0f iqm %.1f (ticks); %.2f ns per call (the same)\n", raw_name, m2, q2, ns2);
  if (monotonic) /* the two count different units: only the time per call compares */
    printf("ratio cpucycles()/raw: ns %.2f (median of %d alternating rounds)\n", r, ROUNDS);
  else
    printf("ratio cpucycles()/raw: median %.2f iqm %.2f ns %.2f (median of %d alternating rounds)\n", m1 / m2, q1 / q2, r,
           ROUNDS);
  return 0;
}
