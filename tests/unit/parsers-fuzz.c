/* Property tests of every text parser, 10^5 random and hostile inputs
   from a fixed seed: never a crash, never a persecond outside (0, 10^12],
   never a read past the buffer (each input ends at a page whose successor
   is unmapped, so an overread is a SIGSEGV), and exact round trips. */
#define _DEFAULT_SOURCE
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"
#include "serve.h"
#include "cpuinfo.h"
#include "decimal.h"
#include "internal.h"
#include "os.h"

#define ROUNDS 100000

static unsigned long long seed = 20261202;
static unsigned int rnd(unsigned int n)
{
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned int) (seed >> 33) % n;
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
  static const char alphabet[] = "0123456789...  \t\n:xXaAeE+-MHzcpuclockstaticCPU\r";
  static const char *pieces[] = { "cpu MHz", "CPU MHz", "clock", "cpu MHz static", "Cpu0ClkTck",
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

static const char *fixture_text;
static long fixture(const char *path, char *buf, size_t size)
{
  (void) path;
  return serve_text(fixture_text, buf, size);
}
static const char *fixture_env(const char *name)
{
  (void) name;
  return fixture_text;
}

int main(void)
{
  long page = sysconf(_SC_PAGESIZE);
  char *map = mmap(0, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char text[4000];
  long long bad_range = 0, bad_trip = 0, bad_mhz = 0;
  int i;

  if (map == MAP_FAILED || mprotect(map + page, page, PROT_NONE) != 0) {
    check(0, "fuzz_guard_page", "cannot map a guard page");
    return checks_failed();
  }
  page_end = map + page - 1;
  cpucycles_os.read_text = fixture;
  cpucycles_os.getenv = fixture_env;

  for (i = 0; i < ROUNDS; ++i) {
    long long v, hz;
    const char *source;
    random_text(text, 1 + (int) rnd(sizeof text));
    /* raw parsers at the page edge */
    cpucycles_decimal(at_edge(text), (int) rnd(8), &v);
    cpucycles_hex(at_edge(text), &v);
    /* the whole chain: every source sees the same hostile text */
    fixture_text = text;
    cpucycles_cpuinfo_forget();
    hz = cpucycles_persecond_estimate(&source);
    if (hz <= 0 || hz > 1000000000000LL) ++bad_range;
    hz = cpucycles_persecond_from_cpuinfo(at_edge(text));
    if (hz < 0 || hz > 1000000000000LL) ++bad_range;

    /* exact round trips: integers, and MHz with six decimals */
    {
      long long want = ((long long) rnd(1000000) << 20) + rnd(1 << 20);
      long long mhz = rnd(100000), frac = rnd(1000000);
      char s[64];
      snprintf(s, sizeof s, "%lld", want);
      if (!cpucycles_decimal(at_edge(s), 0, &v) || v != want) ++bad_trip;
      snprintf(s, sizeof s, "%lld.%06lld", mhz, frac);
      if (!cpucycles_decimal(at_edge(s), 6, &v) || v != mhz * 1000000 + frac) ++bad_mhz;
    }
  }
  check(bad_range == 0, "fuzz_persecond_always_in_range", "%lld estimates out of (0, 10^12]", bad_range);
  check(bad_trip == 0, "fuzz_integers_round_trip", "%lld integers parsed wrong", bad_trip);
  check(bad_mhz == 0, "fuzz_mhz_exact", "%lld MHz texts parsed inexactly", bad_mhz);
  check(1, "fuzz_no_crash_no_overread", "");
  return checks_failed();
}
