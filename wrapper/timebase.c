/* The time base rate for ppc32-mftb and ppc64-mftb.  Linux on PowerPC
   prints it in /proc/cpuinfo ("timebase : 512000000"); reading it spares
   the first call a measurement.  Plain C, so it builds on every host and
   is unit-tested there. */
#include <string.h>
#include "counter.h"
#include "decimal.h"
#include "internal.h"
#include "os.h"
#include "timebase.h"

#define TIMEBASE_KEY "timebase"
#define TIMEBASE_CPUINFO_BYTES 16384 /* the key follows the first CPU's lines */

static const char *spaces(const char *s)
{
  while (*s == ' ' || *s == '\t') ++s;
  return s;
}

long long cpucycles_timebase_parse(const char *text)
{
  size_t n = strlen(TIMEBASE_KEY);
  while (*text) {
    const char *s = text;
    const char *next = strchr(text, '\n');
    long long hz;
    if (!strncmp(s, TIMEBASE_KEY, n)) {
      s = spaces(s + n);
      if (*s == ':') {
        s = cpucycles_decimal(spaces(s + 1), 0, &hz);
        if (s) s = spaces(s);
        if (s && (*s == '\n' || *s == '\r' || !*s))
          return cpucycles_persecond_sane(hz) ? hz : 0;
      }
    }
    if (!next) break;
    text = next + 1;
  }
  return 0;
}

long long cpucycles_timebase_class(void)
{
  static char buf[TIMEBASE_CPUINFO_BYTES];
  long long hz = 0;
  if (cpucycles_os.read_text("/proc/cpuinfo", buf, sizeof buf) > 0)
    hz = cpucycles_timebase_parse(buf);
  if (hz > 0) {
    cpucycles_counter_says("rate from the timebase line of /proc/cpuinfo");
    return hz;
  }
  cpucycles_counter_says("no timebase line in /proc/cpuinfo; rate measured");
  return CPUCYCLES_FINDMULTIPLIER;
}
