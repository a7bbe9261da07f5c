/* Where cpucycles_persecond() comes from (SPEC 3 step 1): the first source
   that yields a sane value wins.  No source runs another program. */
#include "cpucycles-config.h"
#include "cpuinfo.h"
#include "decimal.h"
#include "internal.h"
#include "os.h"

#ifdef CPUCYCLES_HAVE_SYSCTLBYNAME
#include <sys/types.h>
#include <sys/sysctl.h>
#endif

#define PERSECOND_DEFAULT 2399987654LL
#define PERSECOND_MIN 1000000LL            /* below 1 MHz: not a real CPU clock */
#define PERSECOND_MAX 1000000000000LL      /* above 1 THz: garbage */

int cpucycles_persecond_sane(long long hz)
{
  return hz >= PERSECOND_MIN && hz <= PERSECOND_MAX;
}

static int blank(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Whole text is one number (times 10^exp10), surrounded by white space. */
static long long parse_whole(const char *text, int exp10)
{
  long long hz;
  while (blank(*text)) ++text;
  text = cpucycles_decimal(text, exp10, &hz);
  if (!text) return 0;
  while (blank(*text)) ++text;
  if (*text) return 0;
  return cpucycles_persecond_sane(hz) ? hz : 0;
}

long long cpucycles_persecond_from_file(const char *path, int exp10)
{
  char buf[128];
  if (cpucycles_os.read_text(path, buf, sizeof buf) <= 0) return 0;
  return parse_whole(buf, exp10);
}

/* /proc/cpuinfo lines "KEY<spaces>: VALUE".  Keys seen on Linux:
   x86 "cpu MHz", LoongArch "CPU MHz", s390x "cpu MHz static",
   PowerPC "clock" (value ends in MHz), SPARC "Cpu0ClkTck" (hex Hz). */
static const struct {
  const char *key;
  int exp10; /* -1: hexadecimal Hz */
} cpuinfo_keys[] = {
  { "cpu MHz", 6 },
  { "CPU MHz", 6 },
  { "cpu MHz static", 6 },
  { "clock", 6 },
  { "Cpu0ClkTck", -1 },
};

static long long cpuinfo_line(const char *line)
{
  unsigned int i;
  for (i = 0; i < sizeof cpuinfo_keys / sizeof cpuinfo_keys[0]; ++i) {
    const char *s = cpucycles_cpuinfo_value(line, cpuinfo_keys[i].key);
    long long hz;
    if (!s) continue;
    if (cpuinfo_keys[i].exp10 < 0)
      s = cpucycles_hex(s, &hz);
    else
      s = cpucycles_decimal(s, cpuinfo_keys[i].exp10, &hz);
    if (!s || !cpucycles_cpuinfo_ends(s, "MHz")) continue;
    if (cpucycles_persecond_sane(hz)) return hz;
  }
  return 0;
}

long long cpucycles_persecond_from_cpuinfo(const char *text)
{
  const char *line;
  for (line = text; line; line = cpucycles_cpuinfo_next(line)) {
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
    hz *= names[i].unit;
    if (cpucycles_persecond_sane(hz)) return hz;
  }
#endif
  return 0;
}

static long long from_env(void)
{
  const char *text = cpucycles_os.getenv("cpucyclespersecond");
  return text ? parse_whole(text, 0) : 0;
}

long long cpucycles_persecond_estimate(const char **source)
{
  long long hz;
  if ((hz = cpucycles_persecond_from_file("/etc/cpucyclespersecond", 0))) {
    *source = "file /etc/cpucyclespersecond";
  } else if ((hz = cpucycles_persecond_from_file("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", 3))) {
    *source = "sysfs cpufreq cpuinfo_max_freq";
  } else if ((hz = cpucycles_persecond_from_cpuinfo(cpucycles_cpuinfo()))) {
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
