/* cpucycles-info: which counter was chosen, how it behaves, and why the
   others were not (SPEC 4 format, then our extra lines). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include "cpucycles.h"
#include "cpuinfo.h"
#include "internal.h"
#include "os.h"

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
static volatile long sink; /* volatile: the busy loop must not be optimised away */

static void observed_lines(void)
{
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

/* The value of the first line of text with the first of keys there is,
   copied into value (size bytes at most). */
static int find_value(const char *text, const char *const *keys, char *value, size_t size)
{
  const char *line, *v;
  int k;
  for (k = 0; keys[k]; ++k)
    for (line = text; line; line = cpucycles_cpuinfo_next(line))
      if ((v = cpucycles_cpuinfo_value(line, keys[k]))) {
        size_t len = 0;
        while (v[len] && v[len] != '\n' && len + 1 < size) ++len;
        memcpy(value, v, len);
        value[len] = 0;
        return len > 0;
      }
  return 0;
}

/* Our extra lines: the machine, where persecond came from, and for every
   counter what happened to it in plain words. */
static void machine_lines(void)
{
  const char *cpuinfo = cpucycles_cpuinfo();
  static const char *const model_keys[] = { "model name", "Model Name", "cpu model", "cpu",
                                            "uarch", "Processor", "vendor_id", 0 };
  int guest = cpuinfo && strstr(cpuinfo, " hypervisor");
  char value[256];
  struct utsname u;

  if (find_value(cpuinfo, model_keys, value, sizeof value))
    printf("cpucycles machine cpu %s\n", value);
  else
    printf("cpucycles machine cpu unknown (no model line in /proc/cpuinfo)\n");
  if (uname(&u) == 0) printf("cpucycles machine os %s %s %s\n", u.sysname, u.release, u.machine);
  if (cpucycles_os.read_text("/sys/class/dmi/id/product_name", value, sizeof value) > 0 &&
      (guest || strstr(value, "KVM") || strstr(value, "QEMU") ||
       strstr(value, "VMware") || strstr(value, "Virtual"))) {
    value[strcspn(value, "\n")] = 0;
    printf("cpucycles machine hypervisor %s\n", value);
  } else if (guest) {
    printf("cpucycles machine hypervisor yes (CPU flag)\n");
  }
}

static void counter_lines(void)
{
  const struct cpucycles_selection *s = cpucycles_selection();
  const struct cpucycles_counter *table = cpucycles_counters;
  const struct cpucycles_trace *best = &s->trace[s->chosen];
  int i;

  printf("cpucycles persecond-source %s\n",
         s->persecond_source ? s->persecond_source : "not needed");
  if (s->wanted)
    printf("cpucycles wanted CPUCYCLES_IMPLEMENTATION=%s %s%s\n", s->wanted,
           s->wanted_refused ? "refused: " : "used", s->wanted_refused ? s->wanted_refused : "");
  for (i = 0; i < s->count; ++i) {
    const struct cpucycles_trace *t = &s->trace[i];
    printf("cpucycles counter %s ", table[i].name);
    if (i == s->chosen && t->precision)
      printf("chosen: precision %lld", t->precision);
    else if (i == s->chosen)
      printf("chosen as the last resort: nothing else worked");
    else if (t->precision)
      printf("not chosen: precision %lld, %s has %lld", t->precision, table[s->chosen].name,
             best->precision);
    else
      printf("dropped: %s", t->fail ? t->fail : "unknown");
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
  machine_lines();
  counter_lines();
  return 0;
}
