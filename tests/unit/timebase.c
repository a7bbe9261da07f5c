/* The ppc time base rate from /proc/cpuinfo text (wrapper/timebase.c),
   and the class the mftb counters return, with cpuinfo served through the
   OS seam.  Plain C: runs on every host, not only on PowerPC. */
#include <string.h>
#include "check.h"
#include "serve.h"
#include "counter.h"
#include "os.h"
#include "cpuinfo.h"
#include "internal.h"
#include "timebase.h"

static const char *cpuinfo;
static int cpuinfo_reads;

static long fixture(const char *path, char *buf, size_t size)
{
  if (strcmp(path, "/proc/cpuinfo")) return serve_text(0, buf, size);
  ++cpuinfo_reads;
  return serve_text(cpuinfo, buf, size);
}

/* a POWER9 guest's /proc/cpuinfo, trimmed */
static const char power9[] =
  "processor\t: 0\n"
  "cpu\t\t: POWER9 (architected), altivec supported\n"
  "clock\t\t: 2200.000000MHz\n"
  "revision\t: 2.2 (pvr 004e 1202)\n"
  "\n"
  "timebase\t: 512000000\n"
  "platform\t: pSeries\n";

static void parse(const char *name, const char *text, long long want)
{
  long long got = cpucycles_timebase_parse(text);
  check(got == want, name, "got %lld, want %lld", got, want);
}

int main(void)
{
  long long class;

  parse("timebase_power9", power9, 512000000);
  parse("timebase_last_line_without_newline", "cpu : 970\ntimebase : 33333333", 33333333);
  parse("timebase_spaces_and_cr", "timebase   :   18432000  \r\n", 18432000);
  parse("timebase_missing", "processor : 0\nclock : 1000MHz\n", 0);
  parse("timebase_key_must_start_line", "xtimebase : 512000000\n", 0);
  parse("timebase_trailing_garbage_ignored", "timebase : 512000000 Hz\n", 0);
  parse("timebase_zero_is_not_a_rate", "timebase : 0\n", 0);
  parse("timebase_empty", "", 0);

  cpucycles_os.read_text = fixture;
  cpuinfo = power9;
  class = cpucycles_timebase_class();
  check(class == 512000000, "timebase_class_reads_cpuinfo", "class %lld", class);
  {
    /* the scaled mftb counter then wants persecond: same file, one read */
    const char *source;
    cpucycles_persecond_estimate(&source);
    check(cpuinfo_reads == 1, "cpuinfo_read_once_for_timebase_and_persecond",
          "/proc/cpuinfo read %d times", cpuinfo_reads);
  }
  cpuinfo = 0;
  cpucycles_cpuinfo_forget();
  class = cpucycles_timebase_class();
  check(class == CPUCYCLES_FINDMULTIPLIER, "timebase_class_measures_without_cpuinfo", "class %lld", class);
  return checks_failed();
}
