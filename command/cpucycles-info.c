/* cpucycles-info: which counter was chosen, how it behaves, and why the
   others were not (SPEC 4 format, then our extra lines). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include "cpucycles.h"
#include "internal.h"

#define DIFFERENCES 64
#define FIRST_LOOPS 1024
#define ENOUGH_MICROSECONDS 1000
#define MOST_LOOPS (1L << 30)

static int compare(const void *a, const void *b)
{
  long long x = *(const long long *) a, y = *(const long long *) b;
  return (x > y) - (x < y);
}

/* "iqm" line: the interquartile mean of 64 adjacent differences, then each
   difference minus it. */
static void iqm_line(void)
{
  long long t[DIFFERENCES + 1], d[DIFFERENCES], sorted[DIFFERENCES], sum = 0, iqm;
  int i;
  for (i = 0; i <= DIFFERENCES; ++i) t[i] = cpucycles();
  for (i = 0; i < DIFFERENCES; ++i) sorted[i] = d[i] = t[i + 1] - t[i];
  qsort(sorted, DIFFERENCES, sizeof sorted[0], compare);
  for (i = DIFFERENCES / 4; i < 3 * DIFFERENCES / 4; ++i) sum += sorted[i];
  iqm = sum / (DIFFERENCES / 2);
  printf("cpucycles iqm %lld ", iqm);
  for (i = 0; i < DIFFERENCES; ++i) printf("%+lld", d[i] - iqm);
  printf("\n");
}

static long long microseconds(void)
{
  struct timeval t;
  gettimeofday(&t, 0);
  return t.tv_sec * 1000000LL + t.tv_usec;
}

/* "observed persecond" lines: cycles over a busy loop against
   gettimeofday.  The window is within one microsecond of the measured
   interval at each end, so the rate lies between cycles/(us+1) and
   cycles/(us-1). */
static void observed_lines(void)
{
  static volatile long sink;
  long loops;
  for (loops = FIRST_LOOPS; loops <= MOST_LOOPS; loops *= 2) {
    long long us0 = microseconds(), c0 = cpucycles(), c1, us1, us;
    long i;
    for (i = 0; i < loops; ++i) sink += i;
    c1 = cpucycles();
    us1 = microseconds();
    us = us1 - us0;
    if (us < 2) continue;
    printf("cpucycles observed persecond %lld...%lld with %ld loops %lld microseconds\n",
           (c1 - c0) * 1000000 / (us + 1), (c1 - c0) * 1000000 / (us - 1), loops, us);
    if (us >= ENOUGH_MICROSECONDS) break;
  }
}

/* Our extra lines: where persecond came from, and each counter's story. */
static void doctor_lines(void)
{
  const struct cpucycles_selection *s = cpucycles_selection();
  const struct cpucycles_counter *table = cpucycles_table();
  int i;
  printf("cpucycles persecond-source %s\n", s->persecond_source);
  for (i = 0; i < s->count; ++i) {
    const struct cpucycles_trace *t = &s->trace[i];
    const char *verdict = i == s->chosen ? "chosen" : t->precision ? "not chosen: precision higher" : "dropped";
    printf("cpucycles counter %s %s", table[i].name, verdict);
    if (t->fail && !t->precision) printf("; %s", t->fail);
    if (t->says) printf("; %s", t->says);
    printf("\n");
  }
}

int main(void)
{
  printf("cpucycles version %s\n", cpucycles_version());
  cpucycles_tracesetup();
  printf("cpucycles persecond %lld\n", cpucycles_persecond());
  printf("cpucycles implementation %s\n", cpucycles_implementation());
  iqm_line();
  observed_lines();
  doctor_lines();
  return 0;
}
