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
#define CPUINFO_BYTES 8192 /* the first CPU's lines; on the stack */

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
  if (digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* "DIGITS[.DIGITS]" (no sign, no exponent) at s, times 10^exp10, rounded
   half up, into *out; or with exp10 < 0, hexadecimal digits (optional 0x)
   as they are.  Returns the first character after the number, or 0 if
   there is no digit or the value passes 10^18. */
static const char *number(const char *s, int exp10, long long *out)
{
  long long v = 0;
  int digits = 0, base = exp10 < 0 ? 16 : 10;

  if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && hexdigit(s[2]) >= 0) s += 2;
  for (; (base == 16 ? hexdigit(*s) >= 0 : digit(*s)); ++s, ++digits) {
    if (v >= DECIMAL_LIMIT / base) return 0;
    v = v * base + hexdigit(*s);
  }
  if (base == 10 && *s == '.') {
    for (++s; exp10 > 0 && digit(*s); --exp10, ++s, ++digits) {
      if (v >= DECIMAL_LIMIT) return 0;
      v = v * 10 + (*s - '0');
    }
    if (exp10 == 0 && digit(*s) && *s++ >= '5') ++v;
    while (digit(*s)) ++s;
  }
  if (!digits) return 0;
  for (; exp10 > 0; --exp10) {
    if (v >= DECIMAL_LIMIT) return 0;
    v *= 10;
  }
  *out = v;
  return s;
}

static const char *blanks(const char *s)
{
  while (*s == ' ' || *s == '\t' || *s == '\r') ++s;
  return s;
}

/* Text that is one number (times 10^exp10) with white space around. */
static long long whole(const char *text, int exp10)
{
  long long hz;
  while (*text == '\n' || *text == ' ' || *text == '\t' || *text == '\r') ++text;
  text = number(text, exp10, &hz);
  if (!text) return 0;
  while (*text == '\n' || *text == ' ' || *text == '\t' || *text == '\r') ++text;
  return !*text && sane(hz) ? hz : 0;
}

/* A file that fills the buffer is longer than any number: not one. */
static long long from_file(const char *path, int exp10)
{
  char text[128];
  long n = cpucycles_os_read_text(path, text, sizeof text);
  return n > 0 && n < (long) sizeof text - 1 ? whole(text, exp10) : 0;
}

/* /proc/cpuinfo lines "KEY<blanks>: VALUE".  Keys seen on Linux: x86
   "cpu MHz", LoongArch "CPU MHz", s390x "cpu MHz static", PowerPC "clock"
   (value ends in MHz), SPARC "Cpu0ClkTck" (hexadecimal Hz). */
static long long cpuinfo_line(const char *line)
{
  static const struct { const char *key; int exp10; } keys[] = {
    { "cpu MHz", 6 }, { "CPU MHz", 6 }, { "cpu MHz static", 6 }, { "clock", 6 }, { "Cpu0ClkTck", -1 },
  };
  unsigned int i;
  for (i = 0; i < sizeof keys / sizeof keys[0]; ++i) {
    size_t n = strlen(keys[i].key);
    const char *s = line + n;
    long long hz;
    if (strncmp(line, keys[i].key, n)) continue;
    s = blanks(s);
    if (*s != ':') continue;
    s = number(blanks(s + 1), keys[i].exp10, &hz);
    if (!s) continue;
    s = blanks(s);
    if (!strncmp(s, "MHz", 3)) s = blanks(s + 3);
    if ((!*s || *s == '\n') && sane(hz)) return hz;
  }
  return 0;
}

static long long from_cpuinfo(void)
{
  char text[CPUINFO_BYTES], *cut;
  const char *line;
  long n = cpucycles_os_read_text("/proc/cpuinfo", text, sizeof text);
  if (n <= 0) return 0;
  /* a last line cut by the buffer is not a line: 2596.122 must not read 25 */
  if (n == (long) sizeof text - 1 && (cut = strrchr(text, '\n'))) cut[1] = 0;
  for (line = text; line; line = strchr(line, '\n'), line = line ? line + 1 : 0) {
    long long hz = cpuinfo_line(line);
    if (hz) return hz;
  }
  return 0;
}

static long long from_sysctl(void)
{
#ifdef CPUCYCLES_HAVE_SYSCTLBYNAME
  /* macOS hw.cpufrequency (Hz), FreeBSD machdep.tsc_freq (Hz),
     FreeBSD/NetBSD hw.clockrate (MHz) */
  static const struct { const char *name; long long unit; } names[] = {
    { "hw.cpufrequency", 1 }, { "machdep.tsc_freq", 1 }, { "hw.clockrate", 1000000 },
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
    if (sane(hz * names[i].unit)) return hz * names[i].unit;
  }
#endif
  return 0;
}

static long long from_env(void)
{
  const char *text = cpucycles_os_getenv("cpucyclespersecond");
  return text ? whole(text, 0) : 0;
}

long long cpucycles_persecond_estimate(const char **source)
{
  long long hz;
  if ((hz = from_file("/etc/cpucyclespersecond", 0))) {
    *source = "file /etc/cpucyclespersecond";
  } else if ((hz = from_file("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", 3))) {
    *source = "sysfs cpufreq cpuinfo_max_freq";
  } else if ((hz = from_cpuinfo())) {
    *source = "cpuinfo /proc/cpuinfo";
  } else if ((hz = from_sysctl())) {
    *source = "sysctl";
  } else if ((hz = from_env())) {
    *source = "env cpucyclespersecond";
  } else {
    hz = PERSECOND_DEFAULT;
    *source = "default";
  }
  return hz;
}
