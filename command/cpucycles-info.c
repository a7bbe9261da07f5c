/* cpucycles-info: which counter was chosen, why the others were not, and
   what its counts mean (SPEC 4 format, with our extra lines).  A plain
   client of the public API: what it says about the selection is the
   library's own trace (cpucycles_tracesetup(), with the reasons the
   environment asks for); it adds how the chosen counter behaves, what
   the machine is, and a last line that says it all in words. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "cpucycles.h"

#define DIFFERENCES 64
#define FIRST_LOOPS 1024
#define ENOUGH_MICROSECONDS 1000
#define MOST_LOOPS (1L << 30)
#define FLAGS_BYTES 4096 /* the x86 flags line of /proc/cpuinfo is ~1500 */
#define KIND_BYTES 64
#define NEXT_BYTES 512

/* What each class of the trace's class line means for a count; %lld is
   persecond. */
static const char *const meanings[][2] = {
  { "core", "the core's cycles (about %lld a second)" },
  { "core32", "the core's cycles (32 bits that the library extends; about %lld a second)" },
  { "maybecore", "a time-stamp counter's ticks at %lld a second: the core's cycles "
                 "only while the core runs at that rate" },
  { "offcore", "a clock's ticks scaled to %lld a second: time, not the core's cycles" },
  { "none", "nothing: every count is 0" },
};

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
    long long us = microseconds(), c0 = cpucycles(), c1;
    long i;
    for (i = 0; i < loops; ++i) sink += i;
    c1 = cpucycles();
    us = microseconds() - us;
    if (us < 2) continue;
    printf("cpucycles observed persecond %lld...%lld with %ld loops %lld microseconds\n",
           (c1 - c0) * 1000000 / (us + 1), (c1 - c0) * 1000000 / (us - 1), loops, us);
    if (us >= ENOUGH_MICROSECONDS) break;
  }
}

/* path as a stream if it is a regular file: a FIFO or a device put in
   its place would block the open or every read. */
static FILE *open_regular(const char *path)
{
  struct stat st;
  FILE *f;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return 0;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
    close(fd);
    return 0;
  }
  return f;
}

/* The value of the first /proc/cpuinfo line "KEY<blanks>: VALUE" with the
   first of keys that has one, into value. */
static int cpuinfo_value(const char *const *keys, char *value, size_t size)
{
  char line[FLAGS_BYTES];
  int k, found = 0;
  for (k = 0; keys[k] && !found; ++k) {
    FILE *f = open_regular("/proc/cpuinfo");
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

/* The library's trace, passed on through a temporary file (stdout
   back as it was after the first call), its class and corecycles lines
   kept for the summary.  Without a temporary file it goes straight out. */
static void trace_lines(char kind[KIND_BYTES], char next[NEXT_BYTES])
{
  char line[FLAGS_BYTES];
  FILE *f = tmpfile();
  int out = f ? dup(1) : -1;
  setenv("CPUCYCLES_TRACE_REASONS", "1", 1);
  cpucycles_tracesetup();
  fflush(stdout);
  if (out >= 0 && dup2(fileno(f), 1) < 0) {
    close(out);
    out = -1;
  }
  (void) cpucycles_implementation(); /* the first call: it prints the trace */
  fflush(stdout);
  if (out >= 0) {
    dup2(out, 1);
    close(out);
    rewind(f);
    while (fgets(line, sizeof line, f)) {
      fputs(line, stdout);
      if (!strncmp(line, "cpucycles class ", 16))
        snprintf(kind, KIND_BYTES, "%s", line + 17 + strcspn(line + 16, " "));
      if (!strncmp(line, "cpucycles corecycles ", 21))
        snprintf(next, NEXT_BYTES, "%.*s", (int) strcspn(line + 21, "\n"), line + 21);
    }
  }
  if (f) fclose(f);
}

/* The last line: which counter, what a count is, at what rate, what next. */
static void summary_line(const char *kind, const char *next)
{
  size_t n = strcspn(kind, " \n");
  size_t i;
  printf("cpucycles summary %s counts ", cpucycles_implementation());
  for (i = 0; i < sizeof meanings / sizeof meanings[0]; ++i)
    if (strlen(meanings[i][0]) == n && !strncmp(kind, meanings[i][0], n)) break;
  if (i < sizeof meanings / sizeof meanings[0]) printf(meanings[i][1], cpucycles_persecond());
  else printf("what its trace could not say (no temporary file?)");
  if (!strncmp(next, "yes:", 4)) printf("; good for benchmarking as it is\n");
  else printf("; %s\n", next[0] ? next : "cpucycles-info(1) says more");
}

/* Our extra lines on the machine (the lines on the selection come from
   cpucycles_tracesetup). */
static void machine_lines(void)
{
  static const char *const model_keys[] = { "model name", "Model Name", "cpu model", "cpu",
                                            "uarch", "Processor", "vendor_id", 0 };
  static const char *const flag_keys[] = { "flags", 0 };
  char value[FLAGS_BYTES];
  int guest = cpuinfo_value(flag_keys, value, sizeof value) && strstr(value, " hypervisor");
  struct utsname u;
  FILE *f;

  if (cpuinfo_value(model_keys, value, sizeof value))
    printf("cpucycles machine cpu %s\n", value);
  else
    printf("cpucycles machine cpu unknown (no model line in /proc/cpuinfo)\n");
  if (uname(&u) == 0) printf("cpucycles machine os %s %s %s\n", u.sysname, u.release, u.machine);
  if (!(f = open_regular("/sys/class/dmi/id/product_name")) || !fgets(value, sizeof value, f))
    value[0] = 0;
  if (f) fclose(f);
  value[strcspn(value, "\n")] = 0;
  if (value[0] && (guest || strstr(value, "KVM") || strstr(value, "QEMU") ||
                   strstr(value, "VMware") || strstr(value, "Virtual")))
    printf("cpucycles machine hypervisor %s\n", value);
  else if (guest)
    printf("cpucycles machine hypervisor yes (CPU flag)\n");
}

int main(int argc, char **argv)
{
  char kind[KIND_BYTES] = "", next[NEXT_BYTES] = "";
  if (argc == 2 && !strcmp(argv[1], "--version")) {
    printf("cpucycles-info %s\n", cpucycles_version());
    return fflush(stdout) != 0;
  }
  if (argc > 1) {
    /* an option it knows, followed by another argument: that one is named */
    int known =
        !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--version");
    int help = known && argc == 2;
    if (!help) fprintf(stderr, "cpucycles-info: unknown argument '%s'\n", argv[known ? 2 : 1]);
    fputs("usage: cpucycles-info\n"
          "Prints which cycle counter libcpucycles chooses on this machine, why, and what\n"
          "its counts mean (cpucycles-info(1)); --version prints the version.\n",
          help ? stdout : stderr);
    return help ? fflush(stdout) != 0 || ferror(stdout) : 2;
  }
  printf("cpucycles version %s\n", cpucycles_version());
  trace_lines(kind, next);
  printf("cpucycles persecond %lld\n", cpucycles_persecond());
  printf("cpucycles implementation %s\n", cpucycles_implementation());
  iqm_line();
  observed_lines();
  machine_lines();
  summary_line(kind, next);
  /* a full disk or a closed stdout is a failure, not a silent success */
  if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
    fprintf(stderr, "cpucycles-info: cannot write its output\n");
    return 1;
  }
  return 0;
}
