/* The time base rate for ppc32-mftb and ppc64-mftb.  Linux on PowerPC prints
   it in /proc/cpuinfo, after every processor's lines ("timebase :
   512000000"), so past 100 KiB on a machine with 1000 CPUs; reading it
   spares the first call a measurement. */
#include "counter.h"

#define PPC_CPUINFO_BYTES 65536    /* /proc/cpuinfo is read a piece at a time ... */
#define PPC_CPUINFO_MOST 16777216L /* ... and no further: past 10^5 CPUs */
#define PPC_TIMEBASE_LEAST 1000          /* below 1 kHz or ... */
#define PPC_TIMEBASE_MOST 1000000000000LL /* ... above 1 THz: no real time base */

/* The rate on a line "timebase<blanks>:<blanks>NUMBER<blanks>" (a fraction
   rounded to whole hertz; not one that ends in a bare point), or 0. */
static inline long long ppc_timebase_value(const char *s, const char *eol)
{
  long long hz;
  if (!(s = cpucycles_decimal(s, 0, 0, &hz)) || *(s - 1) < '0' || *(s - 1) > '9') return 0;
  while (s < eol && (*s == ' ' || *s == '\t' || *s == '\r')) ++s;
  return s == eol && hz >= PPC_TIMEBASE_LEAST && hz <= PPC_TIMEBASE_MOST ? hz : 0;
}

/* /proc/cpuinfo in pieces of whole lines (cpucycles_cpuinfo). */
static inline long long ppc_timebase_setup(struct cpucycles_probe *probe)
{
  static const char *const keys[] = { "timebase", 0 };
  static char text[PPC_CPUINFO_BYTES]; /* setup runs once, inside the selection */
  int key;
  long long hz = cpucycles_cpuinfo(keys, ppc_timebase_value, text, sizeof text, sizeof text,
                                   PPC_CPUINFO_MOST, &key);
  cpucycles_say(probe, hz > 0 ? "rate from the timebase line of /proc/cpuinfo"
                              : "no timebase line in /proc/cpuinfo; rate measured");
  return hz > 0 ? hz : CPUCYCLES_FINDMULTIPLIER;
}
