/* Scaling of off-core clocks, the multiplier search, and the extension of
   32-bit counters, against fake counters on a fake clock.
   test: alone (its counts must sit within the real clock). */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "check.h"
#include "fake.h"

static struct cpucycles_selection s;

static void fixed_rate(void)
{
  long long a, b;
  fake_reset();
  fakes[0].setup = 1000000; /* a 1 MHz clock */
  fakes[0].kind = FAKE_CLOCK;
  fakes[0].ticks_per_ns = 0.001;
  fakes[0].advance_ns = 1000;
  fake_select(1, 3000000000LL, &s);
  check(s.chosen == 0 && s.candidate[0].scaling == 3000, "fixed_rate_scaling_is_persecond_over_rate",
        "scaling %f", s.candidate[0].scaling);
  a = s.read();
  b = s.read(); /* one tick later */
  check(b - a == 3000 && s.candidate[0].precision == 3000 + 1000, "fixed_rate_counts_scaled",
        "step %lld precision %lld", b - a, s.candidate[0].precision);
}

static double multiplier(double ticks_per_ns, long long persecond)
{
  fake_reset();
  fakes[0].setup = CPUCYCLES_FINDMULTIPLIER;
  fakes[0].kind = FAKE_CLOCK;
  fakes[0].ticks_per_ns = ticks_per_ns;
  fakes[0].advance_ns = 100;
  fake_select(1, persecond, &s);
  return s.candidate[0].scaling;
}

static void find_multiplier(void)
{
  double m = multiplier(0.024, 2400000000LL); /* 24 MHz at 2.4 GHz */
  check(m == 100 && s.chosen == 0 && s.candidate[0].precision > 0, "multiplier_24mhz_is_100",
        "scaling %f", m);
  m = multiplier(0.054, 1500000000LL); /* 54 MHz at 1.5 GHz: 27.78 ~ 111/4 */
  check(m == 27.75, "multiplier_54mhz_is_111_over_4", "scaling %f", m);
  m = multiplier(3.0, 1000000000LL); /* 1/3: no n/2^k within 0.2 */
  check(m == 0 && s.candidate[0].precision == 0, "multiplier_one_third_dropped", "scaling %f", m);
}

/* A 32-bit counter at 1 THz wraps every 4.3 ms of fake time.  Over 10^6
   reads spaced by up to 2 ms (about 1000 s in all, some 230000 wraps),
   the extended count must equal the true count exactly, even though
   persecond is 5% off the counter's real rate. */
static void extend32(void)
{
  long long first_true, first, i, lost = 0, backwards = 0, previous;
  unsigned long long seed = 1;
  fake_reset();
  fakes[0].setup = CPUCYCLES_EXTEND32;
  fakes[0].kind = FAKE_CLOCK;
  fakes[0].ticks_per_ns = 1000;
  fakes[0].advance_ns = 1;
  fakes[0].wrap32 = 1;
  fake_select(1, 1050000000000LL, &s);
  check(s.chosen == 0 && s.candidate[0].only32 == 1 && s.read == cpucycles_read_extended,
        "extend32_chosen_and_extended", "chosen %d only32 %d", s.chosen, s.candidate[0].only32);

  fake_clock_step = 0; /* the clock moves only when the test says */
  fakes[0].advance_ns = 0;
  previous = first = s.read();
  first_true = fake_now * 1000;
  for (i = 0; i < 1000000; ++i) {
    long long got, want;
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    fake_now += (long long) ((seed >> 33) % 2000000); /* 0 to 2 ms */
    got = s.read();
    want = first + (fake_now * 1000 - first_true);
    if (got != want) ++lost;
    if (got < previous) ++backwards;
    previous = got;
  }
  check(lost == 0 && backwards == 0, "extend32_no_lost_wraps_over_long_run",
        "%lld reads wrong, %lld went backwards", lost, backwards);
  check(previous - first > 200000LL * 4294967296LL, "extend32_run_was_long",
        "only %lld ticks", previous - first);
}

/* Epoch clocks at high rates: default-gettimeofday counts microseconds
   since 1970 (about 1.77e15), which times 5800 (a 5.8 GHz desktop) no
   longer fits in 63 bits, nor does the s390x TOD clock (about 7e18 since
   1972) times 1.34 (5.5 GHz).  Counts must not go negative, must increase, and be
   exact over a second and over a year. */
static void epoch_clock(const char *name, long long persecond)
{
  long long a, b, c;
  char label[96];
  fake_reset();
  fakes[0].setup = 1000000;
  fakes[0].kind = FAKE_CLOCK;
  fakes[0].ns_per_tick = 1000;
  fakes[0].origin = 1770000000000000LL;
  fakes[0].advance_ns = 1000;
  fake_select(1, persecond, &s);
  fake_clock_step = 0;
  fakes[0].advance_ns = 0; /* time moves only when the test says */
  a = s.read();
  fake_now += 1000000000LL;
  b = s.read();
  fake_now += 31536000000000000LL; /* a year later */
  c = s.read();
  snprintf(label, sizeof label, "%s_counts_exact", name);
  check(s.chosen == 0 && s.read == cpucycles_read_scaled && a > 0 && b - a == persecond &&
        c - b == persecond / 1000000 * 31536000000000LL, label,
        "a %lld, a second %lld (want %lld), a year %lld", a, b - a, persecond, c - b);
}

static void tod_clock(void)
{
  long long a, b;
  fake_reset();
  fake_stepper(0, 4096000000LL, 4096); /* one microsecond a read */
  fakes[0].value = 6980000000000000000LL;
  fake_select(1, 5500000000LL, &s); /* scaling 5.5/4.096 = 1375/1024 */
  a = s.read();
  b = s.read();
  check(a > 0 && b - a == 5500, "s390x_tod_at_5500_mhz_counts_exact", "a %lld, step %lld", a, b - a);
}

/* A 32-bit counter is measured raw (its penalty prices the extension):
   the precision test reads no clock for it. */
static void extend32_measured_raw(void)
{
  fake_reset();
  fake_stepper(0, CPUCYCLES_EXTEND32, 8);
  fake_stepper(1, CPUCYCLES_CYCLECOUNTER, 1);
  fake_select(2, 1000000000, &s);
  check(s.chosen == 1 && s.candidate[0].precision == 308 && fake_clock_reads == 0, "extend32_precision_reads_no_clock",
        "chosen %d, precision %lld, %lld clock reads", s.chosen, s.candidate[0].precision, fake_clock_reads);
}

static long no_file(const char *path, long offset, char *buf, size_t size)
{
  (void) path;
  (void) offset;
  (void) buf;
  (void) size;
  return -1;
}

/* Where the OS states no rate, a working core cycle counter's measured
   rate is persecond, and the off-core clocks are scaled by it. */
static void measured_persecond(void)
{
  fake_reset();
  fake_os.read_text = no_file; /* no source states a rate: the default */
  fake_wanted = 0;
  fake_os.getenv = fake_getenv;
  fakes[0].setup = CPUCYCLES_CYCLECOUNTER; /* 1 GHz of core cycles */
  fakes[0].kind = FAKE_CLOCK;
  fakes[0].ticks_per_ns = 1;
  fakes[0].advance_ns = 1;
  fakes[1].setup = 62500000; /* a 62.5 MHz timer, as qemu's arm64 gives */
  fakes[1].kind = FAKE_CLOCK;
  fakes[1].ticks_per_ns = 0.0625;
  fakes[1].advance_ns = 16;
  cpucycles_select(fake_table, 2, vsnprintf, &s);
  check(s.persecond > 999000000 && s.persecond < 1001000000 && !strcmp(s.persecond_source, "measured") &&
        s.persecond_counter == 0 && s.candidate[1].scaling > 15.98 && s.candidate[1].scaling < 16.02,
        "measured_persecond_from_core_counter", "persecond %lld from %s, timer scaled by %f", s.persecond,
        s.persecond_source, s.candidate[1].scaling);
}

/* A counter that set up and then failed keeps its scaling in the trace,
   which tells it from one that skipped. */
static void failed_keeps_scaling(void)
{
  fake_reset();
  fakes[0].setup = 1000000;
  fakes[0].kind = FAKE_STUCK;
  fake_select(1, 3000000000LL, &s);
  check(s.candidate[0].precision == 0 && s.candidate[0].scaling == 3000, "failed_counter_keeps_its_scaling",
        "precision %lld scaling %f", s.candidate[0].precision, s.candidate[0].scaling);
}

/* default-monotonic's scaled read reads CLOCK_MONOTONIC itself, seconds
   and nanoseconds apart: every count must sit within the real clock
   reads around it (times 2.5, to a cycle), never go back, and cross a
   second boundary, which the test waits for (at most a second). */
static long long real_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void monotonic_clock_read(void)
{
  long long (*read)(void) = cpucycles_read_use(real_ns, 2.5, 0, 0, 1);
  long long before, after, v, previous = 0, worst = 0;
  struct timespec until;
  int backwards = 0, outside = 0, i;
  clock_gettime(CLOCK_MONOTONIC, &until);
  until.tv_nsec = 999000000; /* 1 ms before the next whole second; the reads take longer */
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, 0) != 0) continue;
  for (i = 0; i < 200000; ++i) {
    before = real_ns();
    v = read();
    after = real_ns();
    if (v < previous) ++backwards;
    if (2 * v < 5 * before - 2 || 2 * v > 5 * after + 2) {
      ++outside;
      if (v - before * 5 / 2 > worst || before * 5 / 2 - v > worst) worst = v > before * 5 / 2 ? v - before * 5 / 2 : before * 5 / 2 - v;
    }
    previous = v;
  }
  check(read == cpucycles_read_clock && !backwards && !outside, "monotonic_scaled_read_exact_across_seconds",
        "%s, %d steps back, %d of 200000 outside the clock reads (worst %lld cycles), ended %lld ns past %lld s",
        read == cpucycles_read_clock ? "clock read" : "not the clock read", backwards, outside, worst,
        after % 1000000000LL, after / 1000000000LL);
}

int main(void)
{
  (void) skip; (void) fake_stepper; (void) fake_trapper; /* shared helpers this test has no use for */
  fixed_rate();
  find_multiplier();
  extend32();
  epoch_clock("gettimeofday_at_5800_mhz", 5800000000LL);
  epoch_clock("gettimeofday_at_7500_mhz", 7500000000LL);
  tod_clock();
  extend32_measured_raw();
  measured_persecond();
  failed_keeps_scaling();
  monotonic_clock_read();
  return checks_failed();
}
