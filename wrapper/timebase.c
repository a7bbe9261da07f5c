/* The time base rate for ppc32-mftb and ppc64-mftb.  Linux on PowerPC
   prints it in /proc/cpuinfo ("timebase : 512000000"); reading it spares
   the first call a measurement.  Plain C, so it builds on every host and
   is unit-tested there. */
#include "counter.h"
#include "cpuinfo.h"
#include "decimal.h"
#include "internal.h"
#include "os.h"
#include "timebase.h"

long long cpucycles_timebase_parse(const char *text)
{
  const char *line;
  for (line = text; line; line = cpucycles_cpuinfo_next(line)) {
    const char *s = cpucycles_cpuinfo_value(line, "timebase");
    long long hz;
    if (!s) continue;
    s = cpucycles_decimal(s, 0, &hz);
    if (!s || !cpucycles_cpuinfo_ends(s, 0)) continue;
    return cpucycles_persecond_sane(hz) ? hz : 0;
  }
  return 0;
}

long long cpucycles_timebase_class(void)
{
  long long hz = cpucycles_timebase_parse(cpucycles_cpuinfo());
  if (hz > 0) {
    cpucycles_counter_says("rate from the timebase line of /proc/cpuinfo");
    return hz;
  }
  cpucycles_counter_says("no timebase line in /proc/cpuinfo; rate measured");
  return CPUCYCLES_FINDMULTIPLIER;
}
