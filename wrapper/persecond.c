/* Where cpucycles_persecond() comes from (SPEC 3 step 1): the first source
   that yields a sane value wins.  Numbers are parsed exactly, as integers.
   Nothing here writes shared state or allocates, so a signal handler may
   call it (the re-entered first call does); no source runs a program. */
#include <string.h>
#include "internal.h"

#ifdef CPUCYCLES_HAVE_SYSCTLBYNAME
#include <sys/types.h>
#include <sys/sysctl.h>
#endif

#define PERSECOND_DEFAULT 2399987654LL
#define PERSECOND_MIN 1000000LL       /* below 1 MHz: not a real CPU clock */
#define PERSECOND_MAX 1000000000000LL /* above 1 THz: garbage */
#define DECIMAL_LIMIT 100000000000000000LL /* 10^17: one more digit still fits */
#define SIGNIFICANT 18 /* decimal digits kept: 10^18 < 2^63 */
#define EXPONENT_MOST 100000 /* an exponent beyond any rate: read no further */
/* One buffer on the stack serves every source: a whole rate file (one
   longer is not a number), or /proc/cpuinfo a piece at a time. */
#define TEXT_BYTES 4096
/* /proc/cpuinfo is read no further than this: past the "cpu MHz static"
   line of s390x and the "timebase" line of POWER with thousands of CPUs,
   and a bound on a hostile file. */
#define CPUINFO_MOST 4194304L
/* Its first piece is shorter: x86, POWER and LoongArch name the rate
   within the first CPU's lines, and the kernel makes only the lines a
   read asks for (each CPU's cost more on a machine with many). */
#define CPUINFO_FIRST 1024

#define SYSFS_CPU0 "/sys/devices/system/cpu/cpu0/"

static int sane(long long hz)
{
  return hz >= PERSECOND_MIN && hz <= PERSECOND_MAX;
}

static int digit(char c)
{
  return c >= '0' && c <= '9';
}

static int hexdigit(char c)
{
  return digit(c) ? c - '0' : (c | 32) >= 'a' && (c | 32) <= 'f' ? (c | 32) - 'a' + 10 : -1;
}

/* "DIGITS[.DIGITS]" at s, and where exponent is set also "2.4e9" forms
   ("[eE][+-]DIGITS" after it), times 10^exp10, rounded half up, into
   *out.  Exact, in integers only, so every ISA gets the same bits: the
   first SIGNIFICANT digits are kept as v, and v * 10^e is the number (the
   digits dropped after them can only decide a rounding that v's own
   remainder already decides).  Returns the first character after the
   number, or 0 if there is no digit, a bare exponent mark, or a value
   past 10^18. */
static const char *decimal(const char *s, int exp10, int exponent, long long *out)
{
  long long v = 0, unit = 1;
  long e = exp10;
  int kept = 0, digits = 0;

  for (; digit(*s); ++s, ++digits) {
    if (kept == SIGNIFICANT) { ++e; continue; }
    v = v * 10 + (*s - '0');
    if (v) ++kept;
  }
  if (*s == '.')
    for (++s; digit(*s); ++s, ++digits) {
      if (kept == SIGNIFICANT) continue;
      v = v * 10 + (*s - '0');
      if (v) ++kept;
      --e;
    }
  if (!digits) return 0;
  if (exponent && (*s == 'e' || *s == 'E')) {
    long x = 0;
    int negative = 0;
    ++s;
    if (*s == '+' || *s == '-') negative = *s++ == '-';
    if (!digit(*s)) return 0;
    for (; digit(*s); ++s)
      if (x < EXPONENT_MOST) x = x * 10 + (*s - '0');
    e += negative ? -x : x;
  }
  if (v && e > 0) {
    for (; e > 0; --e) {
      if (v >= DECIMAL_LIMIT) return 0;
      v *= 10;
    }
  } else if (v && e < -SIGNIFICANT) {
    v = 0; /* v < 10^18 is less than half of 10^19: rounds to 0 */
  } else if (v && e < 0) {
    for (; e < 0; ++e) unit *= 10;
    v = v / unit + (v % unit >= unit / 2);
  }
  *out = v;
  return s;
}

/* Hexadecimal digits, "0x" allowed in front, as they are; as decimal(). */
static const char *hexadecimal(const char *s, long long *out)
{
  long long v = 0;
  int digits = 0;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && hexdigit(s[2]) >= 0) s += 2;
  for (; hexdigit(*s) >= 0; ++s, ++digits) {
    if (v >= DECIMAL_LIMIT / 16) return 0;
    v = v * 16 + hexdigit(*s);
  }
  if (!digits) return 0;
  *out = v;
  return s;
}

static int blank(char c)
{
  return c == ' ' || c == '\t' || c == '\r';
}

static const char *blanks(const char *s)
{
  while (blank(*s)) ++s;
  return s;
}

/* Text of n bytes that is one number (times 10^exp10) with white space
   around it, or 0.  A NUL inside the text is junk, not its end. */
static long long whole(const char *text, size_t n, int exp10, int exponent)
{
  const char *end = text + n;
  long long hz;
  while (*text == '\n' || blank(*text)) ++text;
  text = decimal(text, exp10, exponent, &hz);
  if (!text) return 0;
  while (*text == '\n' || blank(*text)) ++text;
  return text == end && sane(hz) ? hz : 0;
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
  return whole(text, (size_t) n, exp10, exponent);
}

/* /proc/cpuinfo lines "KEY<blanks>: VALUE".  Keys seen on Linux: x86
   "cpu MHz", LoongArch "CPU MHz", s390x "cpu MHz static", PowerPC "clock"
   (value ends in MHz), SPARC "Cpu0ClkTck" (hexadecimal Hz). */
static const struct cpuinfo_key {
  const char *key;
  int exp10; /* -1: hexadecimal */
  const char *words;
} cpuinfo_keys[] = {
  { "cpu MHz", 6, "cpuinfo /proc/cpuinfo cpu MHz" },
  { "CPU MHz", 6, "cpuinfo /proc/cpuinfo CPU MHz" },
  { "cpu MHz static", 6, "cpuinfo /proc/cpuinfo cpu MHz static" },
  { "clock", 6, "cpuinfo /proc/cpuinfo clock" },
  { "Cpu0ClkTck", -1, "cpuinfo /proc/cpuinfo Cpu0ClkTck" },
};

/* The rate on the line from line to eol (its newline or the end), or 0 */
static long long cpuinfo_line(const char *line, const char *eol, const char **words)
{
  unsigned int i;
  for (i = 0; i < sizeof cpuinfo_keys / sizeof cpuinfo_keys[0]; ++i) {
    const struct cpuinfo_key *k = &cpuinfo_keys[i];
    size_t n = strlen(k->key);
    const char *s = line + n;
    long long hz;
    if ((size_t) (eol - line) < n || strncmp(line, k->key, n)) continue;
    s = blanks(s);
    if (*s != ':') continue;
    s = blanks(s + 1);
    s = k->exp10 < 0 ? hexadecimal(s, &hz) : decimal(s, k->exp10, 0, &hz);
    if (!s) continue;
    s = blanks(s);
    if (!strncmp(s, "MHz", 3)) s = blanks(s + 3);
    if (s == eol && sane(hz)) {
      *words = k->words;
      return hz;
    }
  }
  return 0;
}

/* The first line of /proc/cpuinfo with a key, read a piece at a time:
   s390x has its key after one line per CPU. */
static long long from_cpuinfo(char *text, size_t size, const char **words)
{
  long offset = 0, n;
  char *piece;
  while ((n = cpucycles_read_lines("/proc/cpuinfo", &offset, CPUINFO_MOST, text,
                                   offset ? size : CPUINFO_FIRST + 1, &piece)) > 0) {
    const char *line = piece, *end = piece + n;
    while (line < end) {
      const char *eol = memchr(line, '\n', (size_t) (end - line));
      long long hz;
      if (!eol) eol = end;
      if ((hz = cpuinfo_line(line, eol, words))) return hz;
      line = eol + 1;
    }
  }
  return 0;
}

static long long from_sysctl(const char **words)
{
#ifdef CPUCYCLES_HAVE_SYSCTLBYNAME
  /* macOS hw.cpufrequency (Hz), FreeBSD machdep.tsc_freq (Hz),
     FreeBSD/NetBSD hw.clockrate (MHz) */
  static const struct { const char *name; long long unit; const char *words; } names[] = {
    { "hw.cpufrequency", 1, "sysctl hw.cpufrequency" },
    { "machdep.tsc_freq", 1, "sysctl machdep.tsc_freq" },
    { "hw.clockrate", 1000000, "sysctl hw.clockrate" },
  };
  unsigned int i;
  for (i = 0; i < sizeof names / sizeof names[0]; ++i) {
    union { unsigned long long u64; unsigned int u32; } value;
    size_t size = sizeof value;
    long long hz;
    value.u64 = 0;
    if (sysctlbyname(names[i].name, &value, &size, 0, 0) != 0) continue;
    hz = size == sizeof value.u32 ? (long long) value.u32 : (long long) value.u64;
    if (hz <= 0 || hz > PERSECOND_MAX / names[i].unit) continue;
    if (sane(hz * names[i].unit)) {
      *words = names[i].words;
      return hz * names[i].unit;
    }
  }
#else
  (void) words;
#endif
  return 0;
}

static long long from_env(void)
{
  const char *text = cpucycles_os_getenv("cpucyclespersecond");
  return text ? whole(text, strlen(text), 0, 1) : 0;
}

/* The reference's order: the administrator's file; cpufreq's fixed speed
   (the userspace governor), then its cap (scaling_max_freq: what a
   benchmarking machine with boost turned off runs at; cpuinfo_max_freq,
   the hardware's maximum with boost, is not read); SPARC's clock_tick;
   /proc/cpuinfo; sysctl; the environment. */
long long cpucycles_persecond_estimate(const char **source)
{
  char text[TEXT_BYTES + 1];
  long long hz;
  if ((hz = from_file("/etc/cpucyclespersecond", text, sizeof text, 0, 1))) {
    *source = "file /etc/cpucyclespersecond";
  } else if ((hz = from_file(SYSFS_CPU0 "cpufreq/scaling_setspeed", text, sizeof text, 3, 0))) {
    *source = "sysfs cpufreq scaling_setspeed";
  } else if ((hz = from_file(SYSFS_CPU0 "cpufreq/scaling_max_freq", text, sizeof text, 3, 0))) {
    *source = "sysfs cpufreq scaling_max_freq";
  } else if ((hz = from_file(SYSFS_CPU0 "clock_tick", text, sizeof text, 0, 0))) {
    *source = "sysfs clock_tick";
  } else if ((hz = from_cpuinfo(text, sizeof text, source))) {
    /* the source names the key */
  } else if ((hz = from_sysctl(source))) {
    /* the source names the sysctl */
  } else if ((hz = from_env())) {
    *source = "env cpucyclespersecond";
  } else {
    hz = PERSECOND_DEFAULT;
    *source = "default";
  }
  return hz;
}
