/* The time base rate for ppc32-mftb and ppc64-mftb.  Linux on PowerPC prints
   it in /proc/cpuinfo, after every processor's lines ("timebase :
   512000000"), so past 100 KiB on a machine with 1000 CPUs; reading it
   spares the first call a measurement. */
#include <stdlib.h>
#include <string.h>
#include "counter.h"

#define PPC_CPUINFO_BYTES 65536    /* /proc/cpuinfo is read a piece at a time ... */
#define PPC_CPUINFO_MOST 16777216L /* ... and no further: past 10^5 CPUs */
#define PPC_TIMEBASE_LEAST 1000          /* below 1 kHz or ... */
#define PPC_TIMEBASE_MOST 1000000000000LL /* ... above 1 THz: no real time base */

/* The rate on the line "timebase<blanks>:<blanks>DIGITS<blanks>", or 0. */
static inline long long ppc_timebase_parse(const char *text)
{
  const char *line;
  for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : 0) {
    const char *s = line + 8;
    char *end;
    long long hz;
    if (strncmp(line, "timebase", 8)) continue;
    while (*s == ' ' || *s == '\t') ++s;
    if (*s++ != ':') continue;
    while (*s == ' ' || *s == '\t') ++s;
    if (*s < '0' || *s > '9') return 0;
    hz = strtoll(s, &end, 10);
    while (*end == ' ' || *end == '\t' || *end == '\r') ++end;
    return (*end == 0 || *end == '\n') && hz >= PPC_TIMEBASE_LEAST && hz <= PPC_TIMEBASE_MOST ? hz : 0;
  }
  return 0;
}

/* /proc/cpuinfo in pieces of whole lines (cpucycles_read_lines). */
static inline long long ppc_timebase_setup(struct cpucycles_probe *probe)
{
  static char text[PPC_CPUINFO_BYTES]; /* setup runs once, inside the selection */
  long offset = 0;
  long long hz = 0;
  char *piece;
  while (!hz && cpucycles_read_lines("/proc/cpuinfo", &offset, PPC_CPUINFO_MOST, text, sizeof text, &piece) > 0)
    hz = ppc_timebase_parse(piece);
  if (hz > 0) {
    cpucycles_say(probe, "rate from the timebase line of /proc/cpuinfo");
    return hz;
  }
  cpucycles_say(probe, "no timebase line in /proc/cpuinfo; rate measured");
  return CPUCYCLES_FINDMULTIPLIER;
}
