/* Property tests of every text parser, 10^5 random and hostile inputs
   from a fixed seed: never a crash, never a persecond outside (0, 10^12],
   never a time base outside {0} and [10^3, 10^12], never a read past the
   buffer, and exact round trips, the written forms ("2.4e9") included.  The parsers are reached the way the
   library reaches them: the persecond estimate (wrapper/persecond.c, whose
   parsers are its own) with every source served through the OS seam, and
   ppc_timebase_value (cpucycles/ppc-timebase.h) on text that ends at a
   page whose successor is unmapped, so an overread there is a SIGSEGV.
   (The estimate parses its own copy of the text, in its own buffers;
   overreads there are for the sanitizer build to catch.) */
#define _DEFAULT_SOURCE
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"
#include "serve.h"
#include "internal.h"
#include "fakeos.h"
#include "ppc-timebase.h"

#define ROUNDS 100000
#define PERSECOND_LEAST 1000000LL      /* the estimate's sane range */
#define PERSECOND_MOST 1000000000000LL

static unsigned long long seed = 20261202;
static unsigned int rnd(unsigned int n)
{
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned int) (seed >> 33) % n;
}

/* a uniform-enough value in [least, most] */
static long long between(long long least, long long most)
{
  unsigned long long r = ((unsigned long long) rnd(1u << 30) << 30) | rnd(1u << 30);
  return least + (long long) (r % (unsigned long long) (most - least + 1));
}

static char *page_end; /* last byte of a readable page; the next one is not */

/* Places text (NUL included) so that its NUL is the page's last byte. */
static const char *at_edge(const char *text)
{
  size_t n = strlen(text) + 1;
  char *p = page_end + 1 - n;
  memcpy(p, text, n);
  return p;
}

static void random_text(char *buf, int max)
{
  static const char alphabet[] = "0123456789...  \t\n:xXaAeE+-MHzcpuclockstaticCPUtimebase\r";
  static const char *pieces[] = { "cpu MHz", "CPU MHz", "clock", "cpu MHz static", "timebase",
                                  ": ", "\t: ", "MHz", "\n", "0x", "99999999999999999999", ".", "5" };
  int n = 0;
  while (n < max - 24) {
    unsigned int k = rnd(4);
    if (k == 0 && n < max - 24) {
      const char *p = pieces[rnd(sizeof pieces / sizeof pieces[0])];
      size_t m = strlen(p);
      memcpy(buf + n, p, m);
      n += (int) m;
    } else if (k == 1) {
      buf[n++] = (char) (1 + rnd(255)); /* any byte but NUL */
    } else {
      buf[n++] = alphabet[rnd(sizeof alphabet - 1)];
    }
    if (!rnd(12)) break;
  }
  buf[n] = 0;
}

/* The fake machine: each source's text (0: missing).  The hostile rounds
   give every source the same text. */
static const char *etc, *sysfs, *cpuinfo, *env;

static void machine(const char *e, const char *s, const char *c, const char *v)
{
  etc = e; sysfs = s; cpuinfo = c; env = v;
}

static long fixture(const char *path, long offset, char *buf, size_t size)
{
  const char *text = 0;
  if (!strcmp(path, "/etc/cpucyclespersecond")) text = etc;
  if (!strcmp(path, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq")) text = sysfs;
  if (!strcmp(path, "/proc/cpuinfo")) text = cpuinfo;
  return serve_text(text, offset, buf, size);
}

static const char *fixture_env(const char *name)
{
  return strcmp(name, "cpucyclespersecond") ? 0 : env;
}

/* 1 if the estimate is want, from a source whose words begin with from */
static int estimates(long long want, const char *from)
{
  const char *source = "";
  long long got = cpucycles_persecond_estimate(&source);
  return got == want && !strncmp(source, from, strlen(from));
}

/* the time base as the mftb counters read it: /proc/cpuinfo through the seam */
static long long timebase_of(const char *text)
{
  struct cpucycles_probe probe;
  long long hz;
  machine(0, 0, text, 0);
  memset(&probe, 0, sizeof probe);
  hz = ppc_timebase_setup(&probe);
  return hz > 0 ? hz : 0;
}

int main(void)
{
  long page = sysconf(_SC_PAGESIZE);
  char *map = mmap(0, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char text[4000];
  long long bad_range = 0, bad_timebase = 0, bad_trip = 0, bad_mhz = 0, bad_timebase_trip = 0;
  long long bad_exponent = 0, bad_pieces = 0;
  static char padded[20000];
  int i;
  (void) skip; /* check.h's; nothing here is skipped */

  if (map == MAP_FAILED || mprotect(map + page, page, PROT_NONE) != 0) {
    check(0, "fuzz_guard_page", "cannot map a guard page");
    return checks_failed();
  }
  page_end = map + page - 1;
  fake_os.read_text = fixture;
  fake_os.getenv = fixture_env;

  for (i = 0; i < ROUNDS; ++i) {
    long long hz;
    const char *source;
    random_text(text, 1 + (int) rnd(sizeof text));
    /* the time base's value parser at the page edge, and the whole reader */
    {
      const char *p = at_edge(text);
      hz = ppc_timebase_value(p, p + strlen(p));
      if (hz != 0 && (hz < PPC_TIMEBASE_LEAST || hz > PPC_TIMEBASE_MOST)) ++bad_timebase;
      hz = timebase_of(text);
    }
    if (hz != 0 && (hz < PPC_TIMEBASE_LEAST || hz > PPC_TIMEBASE_MOST)) ++bad_timebase;
    /* the whole chain: every source sees the same hostile text */
    machine(text, text, text, text);
    hz = cpucycles_persecond_estimate(&source);
    if (hz <= 0 || hz > PERSECOND_MOST) ++bad_range;
    /* and /proc/cpuinfo alone, where the key-driven parsers decide */
    machine(0, 0, text, 0);
    hz = cpucycles_persecond_estimate(&source);
    if (hz <= 0 || hz > PERSECOND_MOST) ++bad_range;

    /* exact round trips: integers (the file, sysfs kHz, the environment),
       MHz with six decimals, and the time base */
    {
      long long want = between(PERSECOND_LEAST, PERSECOND_MOST);
      long long khz = between(PERSECOND_LEAST / 1000, PERSECOND_MOST / 1000);
      long long mhz = between(1, 99999), frac = rnd(1000000);
      long long tb = between(PPC_TIMEBASE_LEAST, PPC_TIMEBASE_MOST);
      char s[64];
      snprintf(s, sizeof s, "%lld", want);
      machine(s, 0, 0, 0);
      if (!estimates(want, "file")) ++bad_trip;
      machine(0, 0, 0, s);
      if (!estimates(want, "env")) ++bad_trip;
      snprintf(s, sizeof s, "%lld\n", khz);
      machine(0, s, 0, 0);
      if (!estimates(khz * 1000, "sysfs")) ++bad_trip;
      snprintf(s, sizeof s, "cpu MHz\t\t: %lld.%06lld\n", mhz, frac);
      machine(0, 0, s, 0);
      if (!estimates(mhz * 1000000 + frac, "cpuinfo")) ++bad_mhz;
      snprintf(s, sizeof s, "timebase\t: %lld\n", tb);
      if (timebase_of(s) != tb) ++bad_timebase_trip;
      {
        /* the written forms: one digit before the point and an exponent
           ("2.4e9"), or extra zeros paid back by a negative exponent */
        char digits[32], e[64];
        int len = snprintf(digits, sizeof digits, "%lld", want), zeros = (int) rnd(6);
        snprintf(e, sizeof e, "%c.%s%c%s%d", digits[0], digits + 1, rnd(2) ? 'e' : 'E', rnd(2) ? "+" : "", len - 1);
        machine(e, 0, 0, 0);
        if (!estimates(want, "file")) ++bad_exponent;
        snprintf(e, sizeof e, "%s%.*s.000e-%d", digits, zeros, "000000", zeros);
        machine(0, 0, 0, e);
        if (!estimates(want, "env")) ++bad_exponent;
      }
    }
    if (i % 100 == 0) {
      /* hostile text behind filler, so that it meets the ends of the
         pieces /proc/cpuinfo is read in */
      size_t pad = 3000 + rnd(9000), k;
      for (k = 0; k < pad; ++k) padded[k] = rnd(50) ? 'x' : '\n';
      strcpy(padded + pad, text);
      machine(0, 0, padded, 0);
      hz = cpucycles_persecond_estimate(&source);
      if (hz <= 0 || hz > PERSECOND_MOST) ++bad_pieces;
    }
  }
  check(bad_range == 0, "fuzz_persecond_always_in_range", "%lld estimates out of (0, 10^12]", bad_range);
  check(bad_timebase == 0, "fuzz_timebase_always_in_range", "%lld time bases out of {0} and [10^3, 10^12]",
        bad_timebase);
  check(bad_trip == 0, "fuzz_integers_round_trip", "%lld integers parsed wrong", bad_trip);
  check(bad_mhz == 0, "fuzz_mhz_exact", "%lld MHz texts parsed inexactly", bad_mhz);
  check(bad_exponent == 0, "fuzz_exponent_forms_exact", "%lld written forms parsed wrong", bad_exponent);
  check(bad_pieces == 0, "fuzz_cpuinfo_pieces_in_range", "%lld estimates out of (0, 10^12]", bad_pieces);
  check(bad_timebase_trip == 0, "fuzz_timebase_round_trip", "%lld time bases parsed wrong", bad_timebase_trip);
  check(1, "fuzz_no_crash_no_overread", "");
  return checks_failed();
}
