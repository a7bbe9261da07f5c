/* Scaling of off-core clocks, the multiplier search, and the extension of
   32-bit counters, against fake counters on a fake clock. */
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
  check(s.chosen == 0 && s.trace[0].scaling == 3000, "fixed_rate_scaling_is_persecond_over_rate",
        "scaling %f", s.trace[0].scaling);
  a = s.read();
  b = s.read(); /* one tick later */
  check(b - a == 3000 && s.trace[0].precision == 3000 + 1000, "fixed_rate_counts_scaled",
        "step %lld precision %lld", b - a, s.trace[0].precision);
}

static double multiplier(double ticks_per_ns, long long persecond)
{
  fake_reset();
  fakes[0].setup = CPUCYCLES_FINDMULTIPLIER;
  fakes[0].kind = FAKE_CLOCK;
  fakes[0].ticks_per_ns = ticks_per_ns;
  fakes[0].advance_ns = 100;
  fake_select(1, persecond, &s);
  return s.trace[0].scaling;
}

static void find_multiplier(void)
{
  double m = multiplier(0.024, 2400000000LL); /* 24 MHz at 2.4 GHz */
  check(m == 100 && s.chosen == 0 && s.trace[0].precision > 0, "multiplier_24mhz_is_100",
        "scaling %f", m);
  m = multiplier(0.054, 1500000000LL); /* 54 MHz at 1.5 GHz: 27.78 ~ 111/4 */
  check(m == 27.75, "multiplier_54mhz_is_111_over_4", "scaling %f", m);
  m = multiplier(3.0, 1000000000LL); /* 1/3: no n/2^k within 0.2 */
  check(m == 0 && s.trace[0].precision == 0, "multiplier_one_third_dropped", "scaling %f", m);
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
  check(s.chosen == 0 && s.trace[0].only32 == 1 && s.read == cpucycles_read_extended,
        "extend32_chosen_and_extended", "chosen %d only32 %d", s.chosen, s.trace[0].only32);

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

int main(void)
{
  (void) skip; (void) fake_stepper; (void) fake_trapper; /* shared helpers this test has no use for */
  fixed_rate();
  find_multiplier();
  extend32();
  return checks_failed();
}
