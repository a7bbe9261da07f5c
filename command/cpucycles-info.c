/* cpucycles-info: which counter was chosen, how it behaves, and why the
   others were not (SPEC 4 format, then our extra lines).  A plain client
   of the public API: what it says about the selection comes from
   cpucycles_tracesetup(). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include "cpucycles.h"

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

/* The value of the first /proc/cpuinfo line "KEY<blanks>: VALUE" with the
   first of keys that has one, into value. */
static int cpuinfo_value(const char *const *keys, char *value, size_t size)
{
  char line[512];
  int k, found = 0;
  for (k = 0; keys[k] && !found; ++k) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    size_t n = strlen(keys[k]);
    if (!f) return 0;
    while (!found && fgets(line, sizeof line, f)) {
      const char *v = line + n;
      if (strncmp(line, keys[k], n)) continue;
      v += strspn(v, " \t");
      if (*v++ != ':') continue;
      v += strspn(v, " \t");
      snprintf(value, size, "%.*s", (int) strcspn(v, "\n"), v);
      found = *value != 0;
    }
    fclose(f);
  }
  return found;
}

/* Our extra lines on the machine (the lines on the selection come from
   cpucycles_tracesetup). */
static void machine_lines(void)
{
  static const char *const model_keys[] = { "model name", "Model Name", "cpu model", "cpu",
                                            "uarch", "Processor", "vendor_id", 0 };
  static const char *const flag_keys[] = { "flags", 0 };
  char value[1024];
  int guest = cpuinfo_value(flag_keys, value, sizeof value) && strstr(value, " hypervisor");
  struct utsname u;
  FILE *f;

  if (cpuinfo_value(model_keys, value, sizeof value))
    printf("cpucycles machine cpu %s\n", value);
  else
    printf("cpucycles machine cpu unknown (no model line in /proc/cpuinfo)\n");
  if (uname(&u) == 0) printf("cpucycles machine os %s %s %s\n", u.sysname, u.release, u.machine);
  value[0] = 0;
  if ((f = fopen("/sys/class/dmi/id/product_name", "r"))) {
    if (!fgets(value, sizeof value, f)) value[0] = 0;
    fclose(f);
  }
  value[strcspn(value, "\n")] = 0;
  if (value[0] && (guest || strstr(value, "KVM") || strstr(value, "QEMU") || strstr(value, "VMware") ||
                   strstr(value, "Virtual")))
    printf("cpucycles machine hypervisor %s\n", value);
  else if (guest)
    printf("cpucycles machine hypervisor yes (CPU flag)\n");
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
  /* a full disk or a closed stdout is a failure, not a silent success */
  if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
    fprintf(stderr, "cpucycles-info: cannot write its output\n");
    return 1;
  }
  return 0;
}
