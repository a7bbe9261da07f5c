/* Where cpucycles_persecond() comes from: the estimate (SPEC 3 step 1),
   where the first source that yields a sane value wins, and where the OS
   states no rate, a working core cycle counter's rate, timed against the
   clock (most arm64 machines have no cpufreq).  Numbers are parsed
   exactly, as integers.  The estimate writes no shared state and
   allocates nothing, so a signal handler may call it (the re-entered
   first call does); no source runs a program. */
#include <string.h>
#include "internal.h"

#ifdef CPUCYCLES_HAVE_SYSCTLBYNAME
#include <sys/types.h>
#include <sys/sysctl.h>
#endif

#define PERSECOND_DEFAULT 2399987654LL
#define PERSECOND_MIN 1000000LL       /* below 1 MHz: not a real CPU clock */
#define PERSECOND_MAX 1000000000000LL /* above 1 THz: garbage */
/* One buffer on the stack serves every source: a whole rate file (one
   longer is not a number), or /proc/cpuinfo a piece at a time. */
#define TEXT_BYTES 4096
/* /proc/cpuinfo is read no further than this: past the "cpu MHz static"
   line of s390x with thousands of CPUs, and a bound on a hostile file.
   Its first piece is shorter: x86, POWER and LoongArch name the rate
   within the first CPU's lines, and the kernel makes only the lines a
   read asks for (each CPU's cost more on a machine with many). */
#define CPUINFO_MOST 4194304L
#define CPUINFO_FIRST 1024

#define SYSFS_CPU0 "/sys/devices/system/cpu/cpu0/"

#define SANE(hz) ((hz) >= PERSECOND_MIN && (hz) <= PERSECOND_MAX)
#define BLANK(c) ((c) == ' ' || (c) == '\t' || (c) == '\r' || (c) == '\n')

/* Text of n bytes that is one number (times 10^exp10) with white space
   around it, or 0.  A NUL inside the text is junk, not its end.  The
   byte after the text must not continue a number (a NUL at a file's or
   the environment's end, the blank or "MHz" cut off a cpuinfo line). */
static long long one_number(const char *text, size_t n, int exp10, int exponent)
{
  const char *end = text + n;
  long long hz;
  while (text < end && BLANK(*text)) ++text;
  text = cpucycles_decimal(text, exp10, exponent, &hz);
  if (!text) return 0;
  while (text < end && BLANK(*text)) ++text;
  return text == end && SANE(hz) ? hz : 0;
}

/* A file that is one number.  Up to TEXT_BYTES is read; a file that
   fills the buffer is asked whether it ends there: a longer one is not a
   rate (and its number is never taken from a piece of it). */
static long long from_file(const char *path, char *text, size_t size, int exp10, int exponent)
{
  char more[2];
  long n = cpucycles_os_read_text(path, 0, text, size);
  if (n <= 0) return 0;
  if (n == (long) size - 1 && cpucycles_os_read_text(path, n, more, sizeof more) != 0) return 0;
  return one_number(text, (size_t) n, exp10, exponent);
}

/* /proc/cpuinfo keys, all in decimal MHz: x86 "cpu MHz", LoongArch
   "CPU MHz", s390x "cpu MHz static", PowerPC "clock" (value ends in MHz). */
static const char *const cpuinfo_keys[] = { "cpu MHz", "CPU MHz", "cpu MHz static", "clock", 0 };
static const char *const cpuinfo_words[] = { "cpuinfo /proc/cpuinfo cpu MHz", "cpuinfo /proc/cpuinfo CPU MHz",
                                              "cpuinfo /proc/cpuinfo cpu MHz static", "cpuinfo /proc/cpuinfo clock" };
/* the value is one number, perhaps followed by "MHz": one_number() once that
   and the blanks after it are cut off */
static long long cpuinfo_mhz(const char *s, const char *eol)
{
  while (eol > s && BLANK(eol[-1])) --eol;
  if (eol - s >= 3 && !strncmp(eol - 3, "MHz", 3)) eol -= 3;
  return one_number(s, (size_t) (eol - s), 6, 0);
}

static long long from_sysctl(void)
{
#ifdef CPUCYCLES_HAVE_SYSCTLBYNAME
  /* macOS: the CPU's nominal rate in Hz */
  union { unsigned long long u64; unsigned int u32; } value;
  size_t size = sizeof value;
  long long hz;
  value.u64 = 0;
  if (sysctlbyname("hw.cpufrequency", &value, &size, 0, 0) != 0) return 0;
  hz = size == sizeof value.u32 ? (long long) value.u32 : (long long) value.u64;
  return SANE(hz) ? hz : 0;
#else
  return 0;
#endif
}

/* The reference's order: the administrator's file; cpufreq's fixed speed
   (the userspace governor), then its cap (scaling_max_freq: what a
   benchmarking machine with boost turned off runs at; cpuinfo_max_freq,
   the hardware's maximum with boost, is not read); SPARC's clock_tick;
   /proc/cpuinfo; macOS's sysctl; the environment. */
long long cpucycles_persecond_estimate(const char **source)
{
  char text[TEXT_BYTES + 1];
  const char *env = cpucycles_os_getenv(CPUCYCLES_PERSECOND_ENV);
  long long hz;
  int key;
  if ((hz = from_file("/etc/cpucyclespersecond", text, sizeof text, 0, 1))) {
    *source = "file /etc/cpucyclespersecond";
  } else if ((hz = from_file(SYSFS_CPU0 "cpufreq/scaling_setspeed", text, sizeof text, 3, 0))) {
    *source = "sysfs cpufreq scaling_setspeed";
  } else if ((hz = from_file(SYSFS_CPU0 "cpufreq/scaling_max_freq", text, sizeof text, 3, 0))) {
    *source = "sysfs cpufreq scaling_max_freq";
  } else if ((hz = from_file(SYSFS_CPU0 "clock_tick", text, sizeof text, 0, 0))) {
    *source = "sysfs clock_tick";
  } else if ((hz = cpucycles_cpuinfo(cpuinfo_keys, cpuinfo_mhz, text, sizeof text, CPUINFO_FIRST + 1, CPUINFO_MOST, &key))) {
    *source = cpuinfo_words[key];
  } else if ((hz = from_sysctl())) {
    *source = "sysctl hw.cpufrequency";
  } else if (env && (hz = one_number(env, strlen(env), 0, 1))) {
    *source = CPUCYCLES_PERSECOND_FROM_ENV;
  } else {
    hz = PERSECOND_DEFAULT;
    *source = "default";
  }
  return hz;
}

/* ---- rates timed against the monotonic clock ---- */

#define RATE_WINDOW_NS 1000000LL /* a window is 1 ms */
#define ENDPOINT_SLACK_NS 5000   /* an endpoint read this long is retried ... */
#define ENDPOINT_TRIES 8         /* ... a few times */

/* A read of ticks bracketed by the clock; a preemption between the clock
   reads shows as a wide bracket. */
static void endpoint(long long (*ticks)(void), long long *value, long long *ns)
{
  long long before = 0;
  int try;
  for (try = 0; try < ENDPOINT_TRIES; ++try) {
    before = cpucycles_os_nanoseconds();
    *value = ticks();
    *ns = cpucycles_os_nanoseconds();
    if (*ns - before <= ENDPOINT_SLACK_NS) break;
  }
  *ns -= (*ns - before) / 2;
}

static double window_hz(long long (*ticks)(void), int only32)
{
  long long t0, r0, r1, t1, moved;
  endpoint(ticks, &r0, &t0);
  do t1 = cpucycles_os_nanoseconds(); while (t1 - t0 < RATE_WINDOW_NS);
  endpoint(ticks, &r1, &t1);
  moved = only32 ? (long long) ((unsigned long long) (r1 - r0) & 0xffffffffULL) : r1 - r0;
  return moved > 0 ? (double) moved * 1e9 / (double) (t1 - t0) : 0;
}

void cpucycles_rates(long long (*ticks)(void), int only32, double hz[CPUCYCLES_RATE_WINDOWS])
{
  double v;
  int i, j;
  for (i = 0; i < CPUCYCLES_RATE_WINDOWS; ++i) {
    hz[i] = window_hz(ticks, only32);
    for (j = i; j > 0 && hz[j] < hz[j - 1]; --j) v = hz[j], hz[j] = hz[j - 1], hz[j - 1] = v;
  }
}

long long cpucycles_rate(const struct cpucycles_counter *table, struct cpucycles_selection *s, int k)
{
  double hz[CPUCYCLES_RATE_WINDOWS];
  if (!s->candidate[k].measured_hz) {
    cpucycles_rates(table[k].ticks, s->candidate[k].only32, hz);
    s->candidate[k].measured_hz = (long long) hz[CPUCYCLES_RATE_WINDOWS / 2];
  }
  return s->candidate[k].measured_hz;
}

int cpucycles_persecond_settle(const struct cpucycles_counter *table, struct cpucycles_selection *s, int from, int to)
{
  if (!s->persecond) s->persecond = cpucycles_persecond_estimate(&s->persecond_source);
  for (; from < to && !strcmp(s->persecond_source, "default"); ++from) {
    const struct cpucycles_candidate *t = &s->candidate[from];
    long long hz;
    /* a core cycle counter that passed its precision test */
    if (!t->precision || (t->setup != CPUCYCLES_CYCLECOUNTER && t->setup != CPUCYCLES_EXTEND32)) continue;
    hz = cpucycles_rate(table, s, from);
    if (!SANE(hz)) continue;
    s->persecond = hz;
    s->persecond_source = "measured";
    s->persecond_counter = from;
    return from;
  }
  return -1;
}
