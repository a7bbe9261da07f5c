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
/* One buffer on the stack serves every source: a whole rate file of up
   to this many bytes (one longer is not a number), or /proc/cpuinfo a
   piece of up to this many at a time. */
#define TEXT_BYTES 4096
/* /proc/cpuinfo is read no further than this: past the "cpu MHz static"
   line of s390x with thousands of CPUs, and a bound on a hostile file.
   Its first piece is shorter: x86, POWER and LoongArch name the rate
   within the first CPU's lines, and the kernel makes only the lines a
   read asks for (each CPU's cost more on a machine with many). */
#define CPUINFO_MOST 4194304L
#define CPUINFO_FIRST 1024

#define CPUFREQ "/sys/devices/system/cpu/cpu0/cpufreq/"

#define BLANK(c) ((c) == ' ' || (c) == '\t' || (c) == '\r' || (c) == '\n')

/* hz where it may be a CPU's rate, else 0 */
static long long plausible(long long hz)
{
  return hz >= PERSECOND_MIN && hz <= PERSECOND_MAX ? hz : 0;
}

/* Text of n bytes that is one number (times 10^exp10) with white space
   around it, or 0.  A NUL inside the text is junk, not its end.  The
   byte after the text must not continue a number (a NUL at a file's or
   the environment's end, the blank or "MHz" cut off a cpuinfo line). */
static long long one_number(const char *text, size_t n, int exp10, int exponent)
{
  const char *end = text + n;
  long long hz;
  while (text < end && BLANK(*text)) ++text;
  if (!(text = cpucycles_decimal(text, exp10, exponent, &hz))) return 0;
  while (text < end && BLANK(*text)) ++text;
  return text == end ? plausible(hz) : 0;
}

/* A file of up to TEXT_BYTES that is one number.  text has room for a
   byte more (and the NUL): a file that fills that byte too is longer, so
   not a rate (its number is never taken from a piece of it). */
static long long from_file(const char *path, char text[TEXT_BYTES + 2], int exp10, int exponent)
{
  long n = cpucycles_os_read_text(path, 0, text, TEXT_BYTES + 2);
  return n > 0 && n <= TEXT_BYTES ? one_number(text, (size_t) n, exp10, exponent) : 0;
}

/* /proc/cpuinfo keys, all in decimal MHz: x86 "cpu MHz", LoongArch
   "CPU MHz", s390x "cpu MHz static", PowerPC "clock" (value ends in MHz). */
static const char *const mhz_keys[] = { "cpu MHz", "CPU MHz", "cpu MHz static", "clock", 0 };
static const char *const mhz_sources[] = { "cpuinfo /proc/cpuinfo cpu MHz",
                                           "cpuinfo /proc/cpuinfo CPU MHz",
                                           "cpuinfo /proc/cpuinfo cpu MHz static",
                                           "cpuinfo /proc/cpuinfo clock" };
/* the value is one number, perhaps followed by "MHz": one_number() once that
   and the blanks after it are cut off */
static long long mhz_value(const char *s, const char *eol)
{
  while (eol > s && BLANK(eol[-1])) --eol;
  if (eol - s >= 3 && !strncmp(eol - 3, "MHz", 3)) eol -= 3;
  return one_number(s, (size_t) (eol - s), 6, 0);
}

static long long from_sysctl(void)
{
#ifdef CPUCYCLES_HAVE_SYSCTLBYNAME
  /* macOS: the CPU's nominal rate in Hz */
  union { unsigned long long u64; unsigned int u32; } value = { 0 };
  size_t size = sizeof value;
  if (sysctlbyname("hw.cpufrequency", &value, &size, 0, 0) != 0) return 0;
  return plausible(size == sizeof value.u32 ? (long long) value.u32 : (long long) value.u64);
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
  char text[TEXT_BYTES + 2]; /* TEXT_BYTES, a byte to see that a file is longer, a NUL */
  const char *env = cpucycles_os_getenv(CPUCYCLES_PERSECOND_ENV);
  long long hz;
  int key;
  if ((hz = from_file("/etc/cpucyclespersecond", text, 0, 1)))
    *source = "file /etc/cpucyclespersecond";
  else if ((hz = from_file(CPUFREQ "scaling_setspeed", text, 3, 0)))
    *source = "sysfs cpufreq scaling_setspeed";
  else if ((hz = from_file(CPUFREQ "scaling_max_freq", text, 3, 0)))
    *source = "sysfs cpufreq scaling_max_freq";
  else if ((hz = from_file("/sys/devices/system/cpu/cpu0/clock_tick", text, 0, 0)))
    *source = "sysfs clock_tick";
  else if ((hz = cpucycles_cpuinfo(mhz_keys, mhz_value, text, TEXT_BYTES + 1, CPUINFO_FIRST + 1,
                                   CPUINFO_MOST, &key)))
    *source = mhz_sources[key];
  else if ((hz = from_sysctl())) *source = "sysctl hw.cpufrequency";
  else if (env && (hz = one_number(env, strlen(env), 0, 1))) *source = CPUCYCLES_PERSECOND_FROM_ENV;
  else *source = "default";
  return hz ? hz : PERSECOND_DEFAULT;
}

/* ---- rates timed against the monotonic clock ---- */

#define RATE_WINDOW_NS 1000000LL /* a window is 1 ms */
#define ENDPOINT_SLACK_NS 5000   /* an endpoint read this long is retried ... */
#define ENDPOINT_TRIES 8         /* ... a few times */
/* a window's clock reads, at most: 40 times what 1 ms takes at 10 ns a
   read, so that a clock that never moves (both clocks refused) ends it */
#define WINDOW_READS_MOST 4194304L

/* A read of ticks bracketed by the clock, retried while a preemption
   between the clock reads shows as a wide bracket; *ns is its middle. */
static long long endpoint(cpucycles_ticks *ticks, long long *ns)
{
  long long before, value;
  int tries = 0;
  do {
    before = cpucycles_os_nanoseconds();
    value = ticks();
    *ns = cpucycles_os_nanoseconds();
  } while (*ns - before > ENDPOINT_SLACK_NS && ++tries < ENDPOINT_TRIES);
  *ns -= (*ns - before) / 2;
  return value;
}

/* each window's rate, inserted in order */
void cpucycles_rates(cpucycles_ticks *ticks, int only32, double hz[CPUCYCLES_RATE_WINDOWS])
{
  long long t0, r0, t1, r1, moved;
  long reads;
  double v;
  int i, j;
  for (i = 0; i < CPUCYCLES_RATE_WINDOWS; ++i) {
    r0 = endpoint(ticks, &t0);
    reads = 0;
    do t1 = cpucycles_os_nanoseconds();
    while (t1 - t0 < RATE_WINDOW_NS && ++reads < WINDOW_READS_MOST);
    r1 = endpoint(ticks, &t1);
    moved = only32 ? (long long) ((unsigned long long) (r1 - r0) & 0xffffffffULL) : r1 - r0;
    hz[i] = moved > 0 && t1 > t0 ? (double) moved * 1e9 / (double) (t1 - t0) : 0;
    for (j = i; j > 0 && hz[j] < hz[j - 1]; --j) {
      v = hz[j];
      hz[j] = hz[j - 1];
      hz[j - 1] = v;
    }
  }
}

long long cpucycles_rate(const struct cpucycles_counter *table, struct cpucycles_selection *s,
                         int k)
{
  double hz[CPUCYCLES_RATE_WINDOWS];
  if (s->candidate[k].measured_hz) return s->candidate[k].measured_hz;
  cpucycles_rates(table[k].ticks, s->candidate[k].only32, hz);
  return s->candidate[k].measured_hz = (long long) hz[CPUCYCLES_RATE_WINDOWS / 2];
}

int cpucycles_persecond_decide(const struct cpucycles_counter *table, struct cpucycles_selection *s,
                               int from, int to)
{
  if (!s->persecond) s->persecond = cpucycles_persecond_estimate(&s->persecond_source);
  for (; from < to && !strcmp(s->persecond_source, "default"); ++from) {
    const struct cpucycles_candidate *t = &s->candidate[from];
    /* a core cycle counter that passed its precision test, at a sane rate */
    if (!t->precision || (t->setup != CPUCYCLES_CYCLECOUNTER && t->setup != CPUCYCLES_EXTEND32) ||
        !plausible(cpucycles_rate(table, s, from)))
      continue;
    s->persecond = t->measured_hz;
    s->persecond_source = "measured";
    s->persecond_counter = from;
    return from;
  }
  return -1;
}
