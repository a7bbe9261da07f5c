/* Where persecond comes from, with fixtures served through the OS seam:
   no test touches /etc, /sys or /proc. */
#include <string.h>
#include "check.h"
#include "serve.h"
#include "internal.h"
#include "fakeos.h"

/* The fake machine: path -> content; a missing entry does not exist. */
static const char *etc, *sysfs, *cpuinfo, *env;

static long fixture(const char *path, char *buf, size_t size)
{
  const char *text = 0;
  if (!strcmp(path, "/etc/cpucyclespersecond")) text = etc;
  if (!strcmp(path, "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")) text = sysfs;
  if (!strcmp(path, "/proc/cpuinfo")) text = cpuinfo;
  return serve_text(text, buf, size);
}

static const char *fake_getenv(const char *name)
{
  return strcmp(name, "cpucyclespersecond") ? 0 : env;
}

static void machine(const char *e, const char *s, const char *c, const char *v)
{
  etc = e; sysfs = s; cpuinfo = c; env = v; /* read afresh by every estimate */
}

static void expect(const char *name, long long want, const char *want_source)
{
  const char *source = "";
  long long got = cpucycles_persecond_estimate(&source);
  check(got == want && !strncmp(source, want_source, strlen(want_source)), name,
        "got %lld from %s, want %lld from %s", got, source, want, want_source);
}

int main(void)
{
  fake_os.read_text = fixture;
  fake_os.getenv = fake_getenv;
  (void) skip; /* check.h's; nothing here is skipped */

  machine("3000000000\n", "3500000\n", "cpu MHz\t\t: 2596.122\n", "1000000000");
  expect("etc_file_wins", 3000000000LL, "file");
  machine(0, "3500000\n", "cpu MHz\t\t: 2596.122\n", "1000000000");
  expect("sysfs_khz", 3500000000LL, "sysfs");
  machine(0, 0, "processor\t: 0\ncpu MHz\t\t: 2596.122\n", 0);
  expect("cpuinfo_exact_decimal", 2596122000LL, "cpuinfo");
  machine(0, 0, "cpu MHz : 2596.1224999\n", 0);
  expect("cpuinfo_rounds_half_up", 2596122500LL, "cpuinfo");
  machine(0, 0, "cpu\t\t: POWER9\nclock\t\t: 3800.000000MHz\n", 0);
  expect("cpuinfo_ppc_clock", 3800000000LL, "cpuinfo");
  machine(0, 0, "cpu MHz dynamic : 5200\ncpu MHz static  : 5200\n", 0);
  expect("cpuinfo_s390x_static", 5200000000LL, "cpuinfo");
  machine(0, 0, "CPU MHz\t\t: 2500.00\n", 0);
  expect("cpuinfo_loongarch", 2500000000LL, "cpuinfo");
  machine(0, 0, "Cpu0ClkTck\t: 00000000d693a400\n", 0);
  expect("cpuinfo_sparc_hex", 3600000000LL, "cpuinfo");
  machine(0, 0, "model name\t: x\n", "1234567890");
  expect("env_after_os", 1234567890LL, "env");
  machine(0, 0, 0, 0);
  expect("default_when_nothing", 2399987654LL, "default");
  {
    /* a line cut by the read limit (8 KiB) is not read as a shorter
       number: "cpu MHz : 2596.122" cut after "25" must not give 25 MHz */
    static char big[9000];
    const char *line = "cpu MHz\t\t: 2596.122\n";
    size_t pad = 8191 - strlen("cpu MHz\t\t: 25");
    memset(big, 'x', pad);
    big[pad - 1] = '\n';
    strcpy(big + pad, line);
    machine(0, 0, big, "2000000000");
    expect("cpuinfo_line_cut_by_the_limit_ignored", 2000000000LL, "env");
  }

  /* bad values are ignored, never trusted */
  {
    static const char *bad[] = {
      "", "abc", "0", "-3000000000", "nan", "inf", "3e9", "0x10", "12 34",
      "99999999999999999999999999", "1000000000000001", "999", "3000000000junk",
      " . ", "1.5.6",
    };
    unsigned int i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
      char name[64];
      machine(bad[i], bad[i], 0, bad[i]);
      snprintf(name, sizeof name, "bad_value_ignored_%u", i);
      expect(name, 2399987654LL, "default");
    }
  }
  machine(0, 0, "cpu MHz\t\t: 0.000\ncpu MHz\t\t: nan\nclock : 1e3MHz\n", "2000000000");
  expect("bad_cpuinfo_lines_ignored", 2000000000LL, "env");
  machine(0, 0, "cpu MHz extra : 5\ncpu MHz\t: 1800\n", 0);
  expect("cpuinfo_key_must_match_whole", 1800000000LL, "cpuinfo");
  machine(" 2000000000 \n", 0, 0, 0);
  expect("etc_white_space_allowed", 2000000000LL, "file");
  return checks_failed();
}
