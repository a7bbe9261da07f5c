/* cpucycles-info: which counter was chosen, how it behaves, and why the
   others were not (SPEC 4 format, then our extra lines, ending with what
   the counts mean).  A plain client of the public API: what it says about
   the selection comes from cpucycles_tracesetup(). */
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
#define LINE_BYTES 1024 /* a trace line; longer ones are read in pieces */
#define NAME_BYTES 64
#define FLAGS_BYTES 4096 /* the x86 flags line of /proc/cpuinfo is ~1500 */

/* What the summary needs from the trace (doc/api.md has its format). */
struct summary {
  int captured;
  char chosen[NAME_BYTES];
  char kind[NAME_BYTES]; /* the class line: core, core32, offcore, maybecore, none */
  char rate[NAME_BYTES]; /* offcore: ticks per second, or "measured" */
  int wanted_used;       /* CPUCYCLES_IMPLEMENTATION chose the counter */
  char no_pmu[LINE_BYTES]; /* "NAME: WORDS" of the first counter that says so */
  char locked[LINE_BYTES]; /* ... that says cpucycles-open would open it */
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

/* Our extra lines on the machine (the lines on the selection come from
   cpucycles_tracesetup).  Returns 1 on a guest of a hypervisor. */
static int machine_lines(void)
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
  value[0] = 0;
  if ((f = open_regular("/sys/class/dmi/id/product_name"))) {
    if (!fgets(value, sizeof value, f)) value[0] = 0;
    fclose(f);
  }
  value[strcspn(value, "\n")] = 0;
  if (value[0] && (guest || strstr(value, "KVM") || strstr(value, "QEMU") || strstr(value, "VMware") ||
                   strstr(value, "Virtual"))) {
    printf("cpucycles machine hypervisor %s\n", value);
    return 1;
  }
  if (guest) printf("cpucycles machine hypervisor yes (CPU flag)\n");
  return guest;
}

/* One trace line into the summary.  The words that tell what would open
   a core cycle counter are the counters' own (in cpucycles/); doc/api.md
   promises these two phrases. */
static void note(struct summary *s, const char *line)
{
  static const char dropped[] = "cpucycles counter ";
  char name[NAME_BYTES], kind[NAME_BYTES], rate[NAME_BYTES];
  const char *words;
  size_t n = strcspn(line, "\n");
  int fields = sscanf(line, "cpucycles class %63s %63s rate %63s", name, kind, rate);

  if (fields >= 2) {
    strcpy(s->chosen, name);
    strcpy(s->kind, kind);
    strcpy(s->rate, fields == 3 ? rate : "");
  }
  if (!strncmp(line, "cpucycles wanted ", 17) && n >= 5 && !strncmp(line + n - 5, " used", 5)) s->wanted_used = 1;
  if (strncmp(line, dropped, sizeof dropped - 1) || !strstr(line, " dropped: ") || !(words = strstr(line, "; ")))
    return;
  line += sizeof dropped - 1;
  if (!s->no_pmu[0] && strstr(words, "no PMU exposed"))
    snprintf(s->no_pmu, sizeof s->no_pmu, "%.*s: %.*s", (int) strcspn(line, " "), line,
             (int) strcspn(words + 2, "\n"), words + 2);
  if (!s->locked[0] && strstr(words, "run cpucycles-open as root"))
    snprintf(s->locked, sizeof s->locked, "%.*s: %.*s", (int) strcspn(line, " "), line,
             (int) strcspn(words + 2, "\n"), words + 2);
}

/* The trace: cpucycles_tracesetup() prints through stdout, so its lines
   go to a temporary file first, are copied out unchanged and read for the
   summary.  Without a temporary file they are printed directly. */
static void trace_lines(struct summary *s)
{
  char line[LINE_BYTES];
  FILE *f = tmpfile();
  int out = -1;

  fflush(stdout);
  if (f && (out = dup(1)) >= 0 && dup2(fileno(f), 1) < 0) {
    close(out);
    out = -1;
  }
  cpucycles_tracesetup();
  (void) cpucycles_implementation(); /* the first call: it prints the trace */
  fflush(stdout);
  if (out >= 0) {
    dup2(out, 1);
    close(out);
    rewind(f);
    s->captured = 1;
    while (fgets(line, sizeof line, f)) {
      fputs(line, stdout);
      note(s, line);
    }
  }
  if (f) fclose(f);
}

/* Our last lines: what the chosen counter counts, what that means for the
   numbers, and what would give core cycles here. */
static void summary_lines(const struct summary *s, long long persecond, int guest)
{
  static const char *const flag_keys[] = { "flags", 0 };
  static const char differ[] = "the core's own cycles differ from the count whenever the core runs at another "
                               "rate (turbo, power saving, thermal limits, another kind of core)";
  char flags[FLAGS_BYTES];
  const char *c = s->chosen;
  int core = !strcmp(s->kind, "core") || !strcmp(s->kind, "core32");

  if (!s->captured || !s->kind[0]) {
    printf("cpucycles counts unknown: the trace could not be read back (no temporary file)\n");
    return;
  }
  if (core) {
    printf("cpucycles counts core cycles: %s counts the cycles the core runs, at whatever rate it runs%s\n", c,
           strcmp(s->kind, "core32") ? "" : " (32 bits, extended to 64 by the library)");
    printf("cpucycles meaning a count is work in core cycles, not time: seconds are cycles over the rate the core "
           "really ran at, which the persecond line only estimates\n");
    printf("cpucycles corecycles yes: %s is a core cycle counter\n", c);
    return;
  }
  if (!strcmp(s->kind, "offcore") && strcmp(s->rate, "measured")) {
    printf("cpucycles counts an off-core clock: %s ticks %s times a second whatever the core does, multiplied "
           "into cycles at persecond\n", c, s->rate);
    printf("cpucycles meaning a count is elapsed time in units of 1/%lld second; %s\n", persecond, differ);
  } else if (!strcmp(s->kind, "offcore")) {
    printf("cpucycles counts an off-core clock: %s ticks at a fixed rate whatever the core does, scaled to "
           "persecond by a ratio the library measured\n", c);
    printf("cpucycles meaning a count is elapsed time in units of 1/%lld second; %s\n", persecond, differ);
  } else if (!strcmp(s->kind, "maybecore")) {
    if (cpuinfo_value(flag_keys, flags, sizeof flags) && strstr(flags, " constant_tsc"))
      printf("cpucycles counts an off-core clock: %s reads the time-stamp counter, which ticks at a fixed rate "
             "whatever the core does (the kernel reports constant_tsc); its ticks are used as cycles, unscaled\n", c);
    else
      printf("cpucycles counts maybe core cycles, more likely an off-core clock: %s reads a time-stamp counter "
             "whose rate nobody stated, used unscaled; on current x86 CPUs it ticks at a fixed rate\n", c);
    printf("cpucycles meaning a count is elapsed time in ticks of that clock (the observed lines above "
           "measure their rate); %s\n", differ);
  } else {
    printf("cpucycles counts nothing: no counter worked, and %s always returns 0\n", c);
    printf("cpucycles meaning every count is 0: nothing can be timed with this library here\n");
  }
  if (s->wanted_used)
    printf("cpucycles corecycles CPUCYCLES_IMPLEMENTATION chose %s: unset it and run again to let the library "
           "choose\n", c);
  else if (s->no_pmu[0])
    printf("cpucycles corecycles not here: no PMU is exposed to this %s, so no core cycle counter can work and "
           "cpucycles-open cannot change that (%s)%s\n", guest ? "guest" : "machine", s->no_pmu,
           guest ? "; a guest whose hypervisor exposes the PMU, or the bare machine, counts core cycles" : "");
  else if (s->locked[0])
    printf("cpucycles corecycles run cpucycles-open as root, then cpucycles-info again: a kernel setting keeps a "
           "core cycle counter locked (%s); cpucycles-open(1) says what that opens to every user\n", s->locked);
  else
    printf("cpucycles corecycles none of the core cycle counters compiled in works here; the counter lines say "
           "why\n");
}

int main(int argc, char **argv)
{
  struct summary s;
  long long persecond;
  if (argc > 1) {
    int help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");
    if (!help) fprintf(stderr, "cpucycles-info: unknown argument '%s'\n", argv[1]);
    fputs("usage: cpucycles-info\n"
          "Prints which cycle counter libcpucycles chooses on this machine, why, and what\n"
          "its counts mean (cpucycles-info(1)); it takes no options.\n", help ? stdout : stderr);
    return help ? 0 : 2;
  }
  memset(&s, 0, sizeof s);
  printf("cpucycles version %s\n", cpucycles_version());
  trace_lines(&s);
  persecond = cpucycles_persecond();
  printf("cpucycles persecond %lld\n", persecond);
  printf("cpucycles implementation %s\n", cpucycles_implementation());
  iqm_line();
  observed_lines();
  summary_lines(&s, persecond, machine_lines());
  /* a full disk or a closed stdout is a failure, not a silent success */
  if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
    fprintf(stderr, "cpucycles-info: cannot write its output\n");
    return 1;
  }
  return 0;
}
