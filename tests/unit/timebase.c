/* The ppc time base rate from /proc/cpuinfo text (cpucycles/ppc-timebase.h),
   and the class the mftb counters' setup returns, with cpuinfo served
   through the OS seam.  Plain C: runs on every host, not only on PowerPC. */
#include <string.h>
#include "check.h"
#include "serve.h"
#include "counter.h"
#include "fakeos.h"
#include "ppc-timebase.h"

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
  long long got = ppc_timebase_parse(text);
  check(got == want, name, "got %lld, want %lld", got, want);
}

/* what the mftb counters' setup returns, and its words */
static long long timebase_class(struct cpucycles_probe *probe)
{
  memset(probe, 0, sizeof *probe);
  return ppc_timebase_setup(probe);
}

int main(void)
{
  struct cpucycles_probe probe;
  long long class;
  (void) skip; /* check.h's; nothing here is skipped */

  parse("timebase_power9", power9, 512000000);
  parse("timebase_last_line_without_newline", "cpu : 970\ntimebase : 33333333", 33333333);
  parse("timebase_spaces_and_cr", "timebase   :   18432000  \r\n", 18432000);
  parse("timebase_missing", "processor : 0\nclock : 1000MHz\n", 0);
  parse("timebase_key_must_start_line", "xtimebase : 512000000\n", 0);
  parse("timebase_trailing_garbage_ignored", "timebase : 512000000 Hz\n", 0);
  parse("timebase_zero_is_not_a_rate", "timebase : 0\n", 0);
  parse("timebase_empty", "", 0);

  fake_os.read_text = fixture;
  cpuinfo = power9;
  class = timebase_class(&probe);
  check(class == 512000000 && cpuinfo_reads == 1 && !probe.may_trap, "timebase_class_reads_cpuinfo",
        "class %lld after %d reads of /proc/cpuinfo (%s)", class, cpuinfo_reads, probe.why);
  /* (no check that the persecond estimate then reads /proc/cpuinfo no
     more: by design the time base and the estimate each read it) */
  {
    /* the timebase line cut by the 64 KiB read is not a shorter rate */
    static char big[70000];
    size_t pad = 65535 - strlen("timebase\t: 51200");
    memset(big, 'x', pad);
    big[pad - 1] = '\n';
    strcpy(big + pad, "timebase\t: 512000000\n");
    cpuinfo = big;
    class = timebase_class(&probe);
    check(class == CPUCYCLES_FINDMULTIPLIER, "timebase_line_cut_by_the_limit_ignored", "class %lld", class);
  }
  cpuinfo = 0;
  class = timebase_class(&probe);
  check(class == CPUCYCLES_FINDMULTIPLIER, "timebase_class_measures_without_cpuinfo", "class %lld (%s)", class,
        probe.why);
  return checks_failed();
}
