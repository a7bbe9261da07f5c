/* The ppc time base rate from /proc/cpuinfo text (cpucycles/ppc-timebase.h),
   and the class the mftb counters' setup returns, with cpuinfo served
   through the OS seam.  Plain C: runs on every host, not only on PowerPC. */
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "serve.h"
#include "counter.h"
#include "fakeos.h"
#include "ppc-timebase.h"

/* a probe's words */
static const char *words(const struct cpucycles_probe *probe)
{
  return probe->words;
}


static const char *cpuinfo;
static int cpuinfo_reads;

static long fixture(const char *path, long offset, char *buf, size_t size)
{
  if (strcmp(path, "/proc/cpuinfo")) return serve_text(0, offset, buf, size);
  ++cpuinfo_reads;
  return serve_text(cpuinfo, offset, buf, size);
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

/* what the mftb counters' setup returns, and its words */
static long long timebase_class(struct cpucycles_probe *probe)
{
  memset(probe, 0, sizeof *probe);
  probe->format = vsnprintf;
  return ppc_timebase_setup(probe);
}

/* the rate read from text served as /proc/cpuinfo, 0 for none */
static void parse(const char *name, const char *text, long long want)
{
  struct cpucycles_probe probe;
  long long got;
  cpuinfo = text;
  got = timebase_class(&probe);
  if (got == CPUCYCLES_FINDMULTIPLIER) got = 0;
  check(got == want, name, "got %lld, want %lld", got, want);
}

int main(void)
{
  struct cpucycles_probe probe;
  long long class;
  (void) skip; /* check.h's; nothing here is skipped */

  fake_os.read_text = fixture;
  parse("timebase_power9", power9, 512000000);
  parse("timebase_last_line_without_newline", "cpu : 970\ntimebase : 33333333", 33333333);
  parse("timebase_spaces_and_cr", "timebase   :   18432000  \r\n", 18432000);
  parse("timebase_missing", "processor : 0\nclock : 1000MHz\n", 0);
  parse("timebase_key_must_start_line", "xtimebase : 512000000\n", 0);
  parse("timebase_trailing_garbage_ignored", "timebase : 512000000 Hz\n", 0);
  parse("timebase_zero_is_not_a_rate", "timebase : 0\n", 0);
  parse("timebase_empty", "", 0);

  cpuinfo_reads = 0;
  cpuinfo = power9;
  class = timebase_class(&probe);
  check(class == 512000000 && cpuinfo_reads == 1 && !probe.may_trap, "timebase_class_reads_cpuinfo",
        "class %lld after %d reads of /proc/cpuinfo (%s)", class, cpuinfo_reads, words(&probe));
  /* (no check that the persecond estimate then reads /proc/cpuinfo no
     more: by design the time base and the estimate each read it) */
  {
    /* the timebase line at every place around the end of the first 64 KiB
       piece: read whole, never a shorter rate */
    static char big[70000];
    const char *line = "timebase\t: 512000000\n";
    size_t pad;
    int wrong = 0;
    for (pad = 65535 - 40; pad < 65535 + 40; ++pad) {
      memset(big, 'x', pad);
      big[pad - 1] = '\n';
      strcpy(big + pad, line);
      cpuinfo = big;
      class = timebase_class(&probe);
      if (class != 512000000) ++wrong;
    }
    check(wrong == 0, "timebase_line_at_a_piece_end_read_whole", "%d places gave another class", wrong);
  }
  {
    /* POWER with 1000 CPUs: the line comes after every CPU's block */
    static char big[400000];
    size_t n = 0;
    int cpu;
    for (cpu = 0; cpu < 1000; ++cpu)
      n += (size_t) sprintf(big + n, "processor\t: %d\ncpu\t\t: POWER9 (architected), altivec supported\n"
                                     "clock\t\t: 2200.000000MHz\nrevision\t: 2.2 (pvr 004e 1202)\n\n", cpu);
    sprintf(big + n, "timebase\t: 512000000\nplatform\t: pSeries\nmodel\t\t: IBM,9009-42A\n");
    cpuinfo = big;
    class = timebase_class(&probe);
    check(class == 512000000, "timebase_power_1000_cpus", "class %lld (%s) from %zu bytes", class, words(&probe), n);
    {
      /* a long line skipped, then the timebase line cut by the piece's
         end: read again whole, wherever the long line ends */
      size_t len;
      int wrong = 0;
      for (len = 2 * 65535 - 60; len < 2 * 65535 + 20; ++len) {
        memset(big, 'x', len);
        memset(big + len, '\n', 1000);
        strcpy(big + len + 1, "timebase\t: 512000000\n");
        big[len + 1 + 21] = '\n';
        big[len + 1000] = 0;
        class = timebase_class(&probe);
        if (class != 512000000) ++wrong;
      }
      check(wrong == 0, "timebase_line_after_a_long_line_at_every_place", "%d places missed it", wrong);
    }
    /* a line longer than a piece is skipped, its tail is not a line */
    memset(big, 'x', 65536);
    strcpy(big + 65536, "timebase\t: 5120\ntimebase\t: 512000000\n");
    class = timebase_class(&probe);
    check(class == 512000000, "timebase_long_line_tail_is_not_a_line", "class %lld", class);
  }
  cpuinfo = 0;
  class = timebase_class(&probe);
  check(class == CPUCYCLES_FINDMULTIPLIER, "timebase_class_measures_without_cpuinfo", "class %lld (%s)", class,
        words(&probe));
  return checks_failed();
}
