/* Where persecond comes from, with fixtures served through the OS seam:
   no test touches /etc, /sys or /proc.  The real read function is tried
   on a FIFO, a device and a directory in a temporary directory. */
#define _DEFAULT_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "serve.h"
#include "internal.h"
#include "fakeos.h"

#define ETC "/etc/cpucyclespersecond"
#define CPUFREQ "/sys/devices/system/cpu/cpu0/cpufreq/"
#define PIECE 4096 /* the estimate reads files a piece this long at a time */
#define FIRST 1024 /* but /proc/cpuinfo's first piece this long */

/* The fake machine: path -> content; a missing entry does not exist. */
static const char *etc, *setspeed, *max_freq, *hw_max_freq, *clock_tick, *cpuinfo, *env;
static const char *fifo;    /* a real path /etc/cpucyclespersecond stands for */
static long cpuinfo_reads, cpuinfo_bytes;
static const char *cpuinfo_later; /* cpuinfo as later reads see it (0: the same) */

static long fixture(const char *path, long offset, char *buf, size_t size)
{
  const char *text = 0;
  if (!strcmp(path, ETC)) {
    if (fifo) return real_read_text(fifo, offset, buf, size);
    text = etc;
  }
  if (!strcmp(path, CPUFREQ "scaling_setspeed")) text = setspeed;
  if (!strcmp(path, CPUFREQ "scaling_max_freq")) text = max_freq;
  if (!strcmp(path, CPUFREQ "cpuinfo_max_freq")) text = hw_max_freq;
  if (!strcmp(path, "/sys/devices/system/cpu/cpu0/clock_tick")) text = clock_tick;
  if (!strcmp(path, "/proc/cpuinfo")) {
    long n;
    text = cpuinfo_reads++ && cpuinfo_later ? cpuinfo_later : cpuinfo;
    n = serve_text(text, offset, buf, size);
    if (n > 0) cpuinfo_bytes += n;
    return n;
  }
  return serve_text(text, offset, buf, size);
}

static const char *fake_getenv(const char *name)
{
  return strcmp(name, "cpucyclespersecond") ? 0 : env;
}

static void machine(const char *e, const char *s, const char *c, const char *v)
{
  etc = e; max_freq = s; cpuinfo = c; env = v; /* read afresh by every estimate */
  setspeed = hw_max_freq = clock_tick = cpuinfo_later = fifo = 0;
  cpuinfo_reads = cpuinfo_bytes = 0;
}

static void expect(const char *name, long long want, const char *want_source)
{
  const char *source = "";
  long long got = cpucycles_persecond_estimate(&source);
  check(got == want && !strncmp(source, want_source, strlen(want_source)), name,
        "got %lld from %s, want %lld from %s", got, source, want, want_source);
}

/* text of n bytes: lines of filler, then line (which may be "") */
static char *padded(char *buf, size_t n, const char *line)
{
  size_t i;
  for (i = 0; i < n; ++i) buf[i] = i % 64 == 63 ? '\n' : 'x';
  if (n) buf[n - 1] = '\n';
  strcpy(buf + n, line);
  return buf;
}

static void cpu_frequency_sources(void)
{
  machine("3000000000\n", "3500000\n", "cpu MHz\t\t: 2596.122\n", "1000000000");
  expect("etc_file_wins", 3000000000LL, "file /etc/cpucyclespersecond");
  machine(0, "3500000\n", "cpu MHz\t\t: 2596.122\n", "1000000000");
  expect("sysfs_scaling_max_freq_khz", 3500000000LL, "sysfs cpufreq scaling_max_freq");
  machine(0, "3500000\n", "cpu MHz\t\t: 2596.122\n", 0);
  setspeed = "1200000\n";
  expect("sysfs_scaling_setspeed_first", 1200000000LL, "sysfs cpufreq scaling_setspeed");
  machine(0, "3500000\n", 0, 0);
  setspeed = "<unsupported>\n"; /* any governor but userspace */
  expect("sysfs_setspeed_unsupported_skipped", 3500000000LL, "sysfs cpufreq scaling_max_freq");
  /* the hardware maximum with boost is not what the machine runs at */
  machine(0, 0, "cpu MHz\t\t: 2596.122\n", 0);
  hw_max_freq = "5800000\n";
  expect("sysfs_cpuinfo_max_freq_not_read", 2596122000LL, "cpuinfo /proc/cpuinfo cpu MHz");
  machine(0, 0, "cpu\t\t: UltraSparc T2\n", 0);
  clock_tick = "1165000000\n";
  expect("sysfs_clock_tick_hz", 1165000000LL, "sysfs clock_tick");
  machine(0, "2000000\n", 0, 0);
  clock_tick = "1165000000\n";
  expect("sysfs_cpufreq_before_clock_tick", 2000000000LL, "sysfs cpufreq scaling_max_freq");
  machine(0, 0, "cpu MHz\t\t: 2596.122\n", 0);
  clock_tick = "junk\n";
  expect("sysfs_clock_tick_junk_skipped", 2596122000LL, "cpuinfo");

  machine(0, 0, "processor\t: 0\ncpu MHz\t\t: 2596.122\n", 0);
  expect("cpuinfo_exact_decimal", 2596122000LL, "cpuinfo /proc/cpuinfo cpu MHz");
  machine(0, 0, "cpu MHz : 2596.1224999\n", 0);
  expect("cpuinfo_rounds_half_up", 2596122500LL, "cpuinfo");
  machine(0, 0, "cpu\t\t: POWER9\nclock\t\t: 3800.000000MHz\n", 0);
  expect("cpuinfo_ppc_clock", 3800000000LL, "cpuinfo /proc/cpuinfo clock");
  machine(0, 0, "cpu MHz dynamic : 5200\ncpu MHz static  : 5200\n", 0);
  expect("cpuinfo_s390x_static", 5200000000LL, "cpuinfo /proc/cpuinfo cpu MHz static");
  machine(0, 0, "CPU MHz\t\t: 2500.00\n", 0);
  expect("cpuinfo_loongarch", 2500000000LL, "cpuinfo /proc/cpuinfo CPU MHz");
  machine(0, 0, "Cpu0ClkTck\t: 00000000d693a400\n", "1000000000");
  expect("cpuinfo_sparc_hex_not_read", 1000000000LL, "env"); /* SPARC Linux has sysfs clock_tick */
  machine(0, 0, "model name\t: x\n", "1234567890");
  expect("env_after_os", 1234567890LL, "env cpucyclespersecond");
  machine(0, 0, 0, 0);
  expect("default_when_nothing", 2399987654LL, "default");
}

/* The forms a person writes, in the file and the environment: exact. */
static void written_forms(void)
{
  static const struct { const char *text; long long hz; } good[] = {
    { "2400000000", 2400000000LL }, { "2.4e9", 2400000000LL }, { "2.4E9", 2400000000LL },
    { "2400000000.0", 2400000000LL }, { "2.4e+9", 2400000000LL }, { " \t2.4e9 \n", 2400000000LL },
    { "\n2400000000\r\n", 2400000000LL }, { "3e9", 3000000000LL }, { "24000000000e-1", 2400000000LL },
    { "0.0000024e15", 2400000000LL }, { "2.5999999995e9", 2600000000LL }, { "2.5999999994999e9", 2599999999LL },
    { "1.0000000000000000000000000001e9", 1000000000LL }, { "2596122000.5", 2596122001LL },
    { "1e12", 1000000000000LL }, { "1e6", 1000000LL }, { "000000000000000000000003e9", 3000000000LL },
    { ".5e10", 5000000000LL }, { "2.e9", 2000000000LL },
  };
  unsigned int i;
  for (i = 0; i < sizeof good / sizeof good[0]; ++i) {
    char name[64];
    machine(good[i].text, 0, 0, 0);
    snprintf(name, sizeof name, "written_form_file_%u", i);
    expect(name, good[i].hz, "file");
    machine(0, 0, 0, good[i].text);
    snprintf(name, sizeof name, "written_form_env_%u", i);
    expect(name, good[i].hz, "env");
  }
}

/* bad values are ignored, never trusted */
static void bad_values(void)
{
  static const char *bad[] = {
    "", "abc", "0", "-3000000000", "nan", "inf", "0x10", "12 34",
    "99999999999999999999999999", "1000000000000001", "999", "3000000000junk",
    " . ", "1.5.6", "-2.4e9", "2.4e", "2.4e+", "2.4e-", "e9", ".e9", "2.4ee9", "2.4e9.5",
    "2.4e99999999999999999999", "2.4e-99999999999999999999", "1e13", "1.0000001e12", "1e5",
    "0x8f0d1800", "0x1p31", "2.4e9junk", "2.4e9 2", "+-2e9", "NaN", "Infinity", "-0", "0e9",
    "0.0000000000001e3", "2,4e9", "2.4 e9", "2.4e 9", "\v2400000000",
  };
  unsigned int i;
  for (i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    char name[64];
    machine(bad[i], bad[i], 0, bad[i]);
    setspeed = clock_tick = bad[i];
    snprintf(name, sizeof name, "bad_value_ignored_%u", i);
    expect(name, 2399987654LL, "default");
  }
  machine(0, 0, "cpu MHz\t\t: 0.000\ncpu MHz\t\t: nan\nclock : 1e3MHz\n", "2000000000");
  expect("bad_cpuinfo_lines_ignored", 2000000000LL, "env");
  machine(0, 0, "cpu MHz extra : 5\ncpu MHz\t: 1800\n", 0);
  expect("cpuinfo_key_must_match_whole", 1800000000LL, "cpuinfo");
  machine(" 2000000000 \n", 0, 0, 0);
  expect("etc_white_space_allowed", 2000000000LL, "file");
}

/* Read limits: a value after much white space is read whole; a number is
   never taken from a piece of a file or a line. */
static void read_limits(void)
{
  static char big[3 * 1024 * 1024];
  const char *line = "cpu MHz\t\t: 2596.122\n";
  size_t n, pad;
  int cut = 0, missed = 0;

  memset(big, ' ', 120);
  strcpy(big + 120, "2400000000\n");
  machine(big, 0, 0, 0);
  expect("etc_value_after_120_spaces", 2400000000LL, "file");
  memset(big, ' ', 4000);
  strcpy(big + 4000, "2.4e9\n");
  machine(big, 0, 0, 0);
  expect("etc_value_after_4000_spaces", 2400000000LL, "file");
  memset(big, ' ', PIECE - 10);
  strcpy(big + PIECE - 10, "240000000\n"); /* exactly PIECE bytes */
  machine(big, 0, 0, 0);
  expect("etc_file_of_exactly_4_KiB", 240000000LL, "file");
  memset(big, ' ', PIECE - 9);
  strcpy(big + PIECE - 9, "240000000\n"); /* one byte more */
  machine(big, 0, 0, "2000000000");
  expect("etc_file_longer_than_4_KiB_rejected", 2000000000LL, "env");
  memset(big, ' ', PIECE - 5);
  strcpy(big + PIECE - 5, "24000000000\n"); /* the piece ends in "2400" */
  machine(big, 0, 0, "2000000000");
  expect("etc_number_cut_by_the_limit_ignored", 2000000000LL, "env");

  /* the cpu MHz line at every place from before the end of the first
     (short) piece to past 8 KiB: always read whole, never "25" */
  for (pad = FIRST - 40; pad < 2 * PIECE + 40; ++pad) {
    const char *source;
    long long hz;
    machine(0, 0, padded(big, pad, line), "2000000000");
    hz = cpucycles_persecond_estimate(&source);
    if (hz != 2596122000LL && hz != 2000000000LL) ++cut;
    if (hz != 2596122000LL) ++missed;
  }
  check(cut == 0, "cpuinfo_line_cut_by_a_piece_never_shorter", "%d places read a cut number", cut);
  check(missed == 0, "cpuinfo_line_read_at_every_place", "%d places missed the line", missed);

  /* a line longer than a piece is skipped whole; what its tail looks like
     is not a line */
  memset(big, 'x', PIECE);
  strcpy(big + PIECE, "cpu MHz : 1000\ncpu MHz : 1800\n");
  machine(0, 0, big, 0);
  expect("cpuinfo_long_line_tail_is_not_a_line", 1800000000LL, "cpuinfo");
  memset(big, 'x', 3 * PIECE + 7);
  strcpy(big + 3 * PIECE + 7, "\ncpu MHz : 1800\n");
  machine(0, 0, big, 0);
  expect("cpuinfo_line_longer_than_a_piece_skipped", 1800000000LL, "cpuinfo");
  {
    /* a long line skipped, then a line cut by the piece's end: that line
       is read again whole, wherever the long line ends */
    size_t len;
    int wrong = 0;
    for (len = 2 * PIECE - 60; len < 2 * PIECE + 20; ++len) {
      const char *source;
      memset(big, 'x', len);
      padded(big + len, 6000, "");
      memcpy(big + len, "\ncpu MHz\t\t: 2596.122\n", 21);
      machine(0, 0, big, 0);
      if (cpucycles_persecond_estimate(&source) != 2596122000LL) ++wrong;
    }
    check(wrong == 0, "cpuinfo_line_after_a_long_line_at_every_place", "%d places missed it", wrong);
  }
  {
    /* the file changes between reads: a later read starts inside a line,
       whose tail looks like a key line */
    static char later[2 * PIECE];
    padded(big, PIECE - 1, "cpu MHz : 1000\n"); /* the first piece ends before this line */
    padded(later, PIECE - 1, "cpu MHz : 1000\ncpu MHz : 1800\n");
    later[PIECE - 2] = 'y'; /* now "xx..xycpu MHz : 1000" is one line */
    machine(0, 0, big, 0);
    cpuinfo_later = later;
    expect("cpuinfo_changed_between_reads_no_half_line", 1800000000LL, "cpuinfo");
  }

  /* s390x with 1000 CPUs: one "processor N:" line each, then the CPUs */
  n = (size_t) sprintf(big, "vendor_id       : IBM/S390\n# processors    : 1000\n"
                            "bogomips per cpu: 3241.00\nmax thread id   : 1\n");
  for (pad = 0; pad < 1000; ++pad)
    n += (size_t) sprintf(big + n, "processor %zu: version = 00,  identification = 2D1E28,  machine = 8561\n",
                          pad);
  for (pad = 0; pad < 1000; ++pad)
    n += (size_t) sprintf(big + n, "\ncpu number      : %zu\nphysical id     : 1\ncore id         : %zu\n"
                                   "cpu MHz dynamic : 5200\ncpu MHz static  : 5200\n", pad, pad);
  machine(0, 0, big, "2000000000");
  expect("cpuinfo_s390x_1000_cpus", 5200000000LL, "cpuinfo /proc/cpuinfo cpu MHz static");

  /* x86 with 256 processors (1.4 KB each): the rate is in the first
     processor's lines, and no more than the first piece is read */
  n = serve_x86_cpuinfo(big, 256);
  machine(0, 0, big, "2000000000");
  expect("cpuinfo_x86_256_cpus", 2096028000LL, "cpuinfo /proc/cpuinfo cpu MHz");
  check(cpuinfo_bytes <= FIRST && cpuinfo_reads == 1, "cpuinfo_x86_256_cpus_reads_first_piece_only",
        "%ld bytes in %ld reads of a %zu-byte file", cpuinfo_bytes, cpuinfo_reads, n);

  /* an arm64 server without a key: the whole file is read, then env */
  for (n = 0, pad = 0; pad < 1000; ++pad)
    n += (size_t) sprintf(big + n, "processor\t: %zu\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 "
                                   "sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs\n"
                                   "CPU implementer\t: 0x41\nCPU part\t: 0xd0c\n\n", pad);
  machine(0, 0, big, "2000000000");
  expect("cpuinfo_without_key_1000_cpus", 2000000000LL, "env");
}

/* A FIFO or a device at a frequency file: never waited for, never read. */
static void not_regular_files(void)
{
  char dir[] = "/tmp/persecond-XXXXXX", path[64], buf[64];
  long n;
  FILE *f;
  if (!mkdtemp(dir)) {
    check(0, "fifo_tempdir", "mkdtemp failed");
    return;
  }
  snprintf(path, sizeof path, "%s/fifo", dir);
  if (mkfifo(path, 0600) != 0) {
    skip("fifo_not_read", "mkfifo failed here");
  } else {
    alarm(5); /* a hang becomes a failure: SIGALRM kills the test */
    n = real_read_text(path, 0, buf, sizeof buf);
    check(n == -1 && buf[0] == 0, "fifo_not_read", "read_text gave %ld", n);
    machine(0, 0, "cpu MHz : 1800\n", 0);
    fifo = path;
    expect("fifo_at_etc_file_does_not_hang", 1800000000LL, "cpuinfo");
    alarm(0);
    unlink(path);
  }
  alarm(5);
  n = real_read_text("/dev/zero", 0, buf, sizeof buf);
  check(n == -1, "device_not_read", "read_text of /dev/zero gave %ld", n);
  n = real_read_text(dir, 0, buf, sizeof buf);
  check(n == -1, "directory_not_read", "read_text of a directory gave %ld", n);
  alarm(0);
  snprintf(path, sizeof path, "%s/rate", dir);
  f = fopen(path, "w");
  if (f) {
    fputs("0123456789", f);
    fclose(f);
  }
  n = real_read_text(path, 4, buf, 5);
  check(n == 4 && !strcmp(buf, "4567"), "regular_file_read_from_offset", "got %ld \"%s\"", n, buf);
  n = real_read_text(path, 20, buf, sizeof buf);
  check(n == 0 && buf[0] == 0, "regular_file_read_past_end", "got %ld", n);
  n = real_read_text("/proc/self/stat", 0, buf, sizeof buf);
  check(n == (long) sizeof buf - 1, "proc_file_is_regular", "got %ld", n);
  unlink(path);
  rmdir(dir);
}

/* A clock that never moves (clock_gettime and gettimeofday both refused,
   say by a seccomp filter where the vDSO falls back to system calls):
   a rate's window ends anyway, and says no rate. */
static long long stuck_clock(void)
{
  return 1000000000LL;
}

static long long ticking(void)
{
  static long long t;
  return t += 7;
}

static void stuck_clock_rates(void)
{
  double hz[CPUCYCLES_RATE_WINDOWS];
  int i, sane = 0;
  fake_os.nanoseconds = stuck_clock;
  alarm(20); /* a hang becomes a failure: SIGALRM kills the test */
  cpucycles_rates(ticking, 0, hz);
  alarm(0);
  fake_os.nanoseconds = 0;
  for (i = 0; i < CPUCYCLES_RATE_WINDOWS; ++i) sane += hz[i] >= 1e6 && hz[i] <= 1e12;
  check(sane == 0, "rates_end_on_a_stuck_clock", "%d windows gave a rate", sane);
}

int main(void)
{
  fake_os.read_text = fixture;
  fake_os.getenv = fake_getenv;

  cpu_frequency_sources();
  written_forms();
  bad_values();
  read_limits();
  not_regular_files();
  stuck_clock_rates();
  return checks_failed();
}
