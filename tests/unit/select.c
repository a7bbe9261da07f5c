/* The selection rule against fake counters: crashes, bad counters,
   penalties, order bumps, and the last resort. */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include "check.h"
#include "fake.h"
#include "serve.h"

static struct cpucycles_selection s;

static void run(int count, long long persecond)
{
  fake_select(count, persecond, &s);
}

/* The test's own handlers, which selection must leave exactly as found. */
static void own_handler(int sig) { (void) sig; }
static const int sigs[] = { SIGILL, SIGFPE, SIGBUS, SIGSEGV, SIGABRT };

static void install_own(void)
{
  unsigned int i;
  for (i = 0; i < 5; ++i) {
    struct sigaction a;
    memset(&a, 0, sizeof a);
    a.sa_handler = own_handler;
    sigemptyset(&a.sa_mask);
    sigaddset(&a.sa_mask, SIGUSR1);
    a.sa_flags = SA_RESTART;
    sigaction(sigs[i], &a, 0);
  }
}

static int own_intact(void)
{
  unsigned int i;
  for (i = 0; i < 5; ++i) {
    struct sigaction a;
    sigaction(sigs[i], 0, &a);
    if (a.sa_handler != own_handler || !(a.sa_flags & SA_RESTART) ||
        !sigismember(&a.sa_mask, SIGUSR1) || sigismember(&a.sa_mask, SIGUSR2))
      return 0;
  }
  return 1;
}

static void crashes(void)
{
  fake_reset();
  install_own();
  fake_trapper(0, SIGILL);
  fake_trapper(1, SIGSEGV);
  fake_trapper(2, SIGABRT);
  fake_trapper(3, SIGFPE);
  fake_trapper(4, SIGBUS);
  fake_stepper(5, CPUCYCLES_MAYBECYCLECOUNTER, 30);
  run(6, 1000000000);
  check(crash_of(&s.candidate[0]) == fake_signal(SIGILL) && s.candidate[0].precision == 0, "crash_sigill_dropped",
        "crash %d precision %lld", crash_of(&s.candidate[0]), s.candidate[0].precision);
  check(crash_of(&s.candidate[1]) == SIGSEGV && s.candidate[1].precision == 0, "crash_sigsegv_dropped",
        "crash %d", crash_of(&s.candidate[1]));
  check(crash_of(&s.candidate[2]) == SIGABRT && s.candidate[2].precision == 0, "crash_sigabrt_dropped",
        "crash %d", crash_of(&s.candidate[2]));
  check(crash_of(&s.candidate[3]) == fake_signal(SIGFPE) && crash_of(&s.candidate[4]) == fake_signal(SIGBUS), "crash_sigfpe_sigbus_dropped",
        "crash %d %d", crash_of(&s.candidate[3]), crash_of(&s.candidate[4]));
  check(s.chosen == 5 && s.candidate[5].precision == 1030, "crash_survivor_chosen",
        "chosen %d precision %lld", s.chosen, s.candidate[5].precision);
  check(fakes[0].closes == 1 && fakes[1].closes == 1 && fakes[5].closes == 0,
        "crash_closed_dropped_not_chosen", "closes %lld %lld %lld",
        fakes[0].closes, fakes[1].closes, fakes[5].closes);
  check(own_intact(), "crash_handlers_restored", "a handler, its flags or mask changed");
  {
    /* the guard is gone: our own handler sees a signal now */
    struct sigaction a;
    sigaction(SIGILL, 0, &a);
    check(a.sa_handler == own_handler, "crash_guard_removed", "guard handler still installed");
  }
}

static void bad_counters(void)
{
  fake_reset();
  fakes[0].setup = CPUCYCLES_CYCLECOUNTER; fakes[0].kind = FAKE_DECREASE;
  fakes[1].setup = CPUCYCLES_CYCLECOUNTER; fakes[1].kind = FAKE_STUCK;
  fake_stepper(2, CPUCYCLES_MAYBECYCLECOUNTER, 7);
  run(3, 1000000000);
  check(s.candidate[0].precision == 0 && fakes[0].calls == 10 * 1000, "decreasing_dropped_after_10_tries",
        "precision %lld after %lld reads", s.candidate[0].precision, fakes[0].calls);
  check(s.candidate[1].precision == 0 && fakes[1].calls == 10 * 1000, "stuck_dropped_after_10_tries",
        "precision %lld after %lld reads", s.candidate[1].precision, fakes[1].calls);
  check(s.chosen == 2 && s.candidate[2].precision == 7 + 1000, "bad_counters_do_not_bump_order",
        "chosen %d precision %lld", s.chosen, s.candidate[2].precision);
  check(fakes[0].closes == 1 && fakes[1].closes == 1, "bad_counters_closed", "closes %lld %lld",
        fakes[0].closes, fakes[1].closes);
}

/* The retry budget, on fake time: the selection stops retrying 20 ms
   after its first retry anywhere, whatever the number of slow, bad
   counters. */
static void budgets(void)
{
  long long began;
  int i, dropped = 0;

  /* 3 us per read, 3 ms per try: the first retry at 3 ms, tries 0 to 7,
     then 24 - 3 ms > 20 ms */
  fake_reset();
  fakes[0].setup = CPUCYCLES_CYCLECOUNTER; fakes[0].kind = FAKE_STUCK; fakes[0].advance_ns = 3000;
  run(1, 1000000000);
  check(s.candidate[0].precision == 0 && fakes[0].calls == 8 * 1000, "slow_counter_stops_retrying_after_20ms",
        "precision %lld after %lld reads", s.candidate[0].precision, fakes[0].calls);

  /* eight counters of 1 us reads that never move: 10 ms each without a
     budget (80 ms), about 26 ms with the selection's budget */
  fake_reset();
  for (i = 0; i < FAKES; ++i) {
    fakes[i].setup = CPUCYCLES_CYCLECOUNTER;
    fakes[i].kind = FAKE_STUCK;
    fakes[i].advance_ns = 1000;
  }
  began = fake_now;
  run(FAKES, 1000000000);
  for (i = 0; i < FAKES; ++i) dropped += s.candidate[i].precision == 0;
  check(dropped == FAKES && fake_now - began < 30000000 && fakes[FAKES - 1].calls == 1000,
        "selection_retries_stop_after_20ms", "%d dropped in %lld ns; last counter read %lld times",
        dropped, fake_now - began, fakes[FAKES - 1].calls);
}

/* Hand-worked tables: precision = smallest step + penalty + 10 per
   working counter earlier in the list; smallest wins, earlier on ties. */
static void tables(void)
{
  /* titan0-like: perf cycle counter 37, tsc 24, tscasm 24 */
  fake_reset();
  fake_stepper(0, CPUCYCLES_CYCLECOUNTER, 37);
  fake_stepper(1, CPUCYCLES_MAYBECYCLECOUNTER, 24);
  fake_stepper(2, CPUCYCLES_MAYBECYCLECOUNTER, 24);
  run(3, 3500000000LL);
  check(s.chosen == 0 && s.candidate[0].precision == 37 && s.candidate[1].precision == 1034 &&
        s.candidate[2].precision == 1044, "table_cycle_counter_beats_tsc",
        "chosen %d precisions %lld %lld %lld", s.chosen, s.candidate[0].precision,
        s.candidate[1].precision, s.candidate[2].precision);

  /* skip, crash, tsc 24, tsc 24, perfevent 114: the late cycle counter wins */
  fake_reset();
  fakes[0].setup = CPUCYCLES_SKIP;
  fake_trapper(1, SIGILL);
  fake_stepper(2, CPUCYCLES_MAYBECYCLECOUNTER, 24);
  fake_stepper(3, CPUCYCLES_MAYBECYCLECOUNTER, 24);
  fake_stepper(4, CPUCYCLES_CYCLECOUNTER, 114);
  run(5, 3200000000LL);
  check(s.chosen == 4 && s.candidate[2].precision == 1024 && s.candidate[3].precision == 1034 &&
        s.candidate[4].precision == 134 && s.candidate[0].scaling == 0, "table_late_cycle_counter",
        "chosen %d precisions %lld %lld %lld", s.chosen, s.candidate[2].precision,
        s.candidate[3].precision, s.candidate[4].precision);

  /* a 32-bit counter with step 8 (308) beats a cycle counter of step 600 */
  fake_reset();
  fake_stepper(0, CPUCYCLES_EXTEND32, 8);
  fake_stepper(1, CPUCYCLES_CYCLECOUNTER, 600);
  run(2, 1000000000);
  check(s.chosen == 0 && s.candidate[0].precision == 308 && s.candidate[0].only32 == 1 &&
        s.candidate[1].precision == 610, "table_extend32_penalty_300",
        "chosen %d precisions %lld %lld", s.chosen, s.candidate[0].precision, s.candidate[1].precision);

  /* ties go to the earlier counter: 20 vs 10 + 10 */
  fake_reset();
  fake_stepper(0, CPUCYCLES_CYCLECOUNTER, 20);
  fake_stepper(1, CPUCYCLES_CYCLECOUNTER, 10);
  run(2, 1000000000);
  check(s.chosen == 0 && s.candidate[1].precision == 20, "table_tie_goes_to_earlier",
        "chosen %d precision %lld", s.chosen, s.candidate[1].precision);

  /* a fixed-rate clock pays 1000 even when fine-grained */
  fake_reset();
  fake_stepper(0, 1000000000, 1);
  fake_stepper(1, CPUCYCLES_CYCLECOUNTER, 900);
  run(2, 1000000000);
  check(s.chosen == 1 && s.candidate[0].precision == 1001 && s.candidate[1].precision == 910,
        "table_offcore_penalty_1000", "chosen %d precisions %lld %lld", s.chosen,
        s.candidate[0].precision, s.candidate[1].precision);
}

static void last_resort(void)
{
  fake_reset();
  fake_trapper(0, SIGSEGV);
  fakes[1].setup = CPUCYCLES_CYCLECOUNTER; fakes[1].kind = FAKE_STUCK;
  fakes[2].setup = CPUCYCLES_SKIP; /* plays default-zero */
  run(3, 1000000000);
  check(s.chosen == 2 && s.read == fake_table[2].ticks, "last_resort_when_nothing_works",
        "chosen %d", s.chosen);
}

/* Without tracing, counters that cannot win are set up but not measured;
   the choice must be the one full measurement makes. */
static void pruning(void)
{
  struct cpucycles_selection full;
  fake_reset();
  fake_stepper(0, CPUCYCLES_MAYBECYCLECOUNTER, 21);  /* 1021 */
  fake_stepper(1, CPUCYCLES_MAYBECYCLECOUNTER, 21);  /* 1031 */
  fake_stepper(2, 1000000000, 2);                    /* 1022: cannot win */
  fake_stepper(3, 1000000, 2000);                    /* cannot win */
  fake_select_with(4, 1000000000, 0, 0, &s);
  check(s.chosen == 0 && fakes[2].calls == 0 && fakes[3].calls == 0 &&
        fakes[2].closes == 1 && fakes[3].closes == 1 && fake_persecond_asked == 0,
        "pruning_skips_counters_that_cannot_win", "chosen %d, reads %lld %lld, persecond asked %d",
        s.chosen, fakes[2].calls, fakes[3].calls, fake_persecond_asked);

  /* A pending counter's order bump can decide a later counter: here the
     cycle counter at 2 has step 4, so 4 + 10*2 = 24 loses to 15, but would
     win with 14 if the pending counter at 1 were never found to work. */
  fake_reset();
  fake_stepper(0, CPUCYCLES_CYCLECOUNTER, 15);       /* 15 */
  fake_stepper(1, CPUCYCLES_MAYBECYCLECOUNTER, 30);  /* cannot win: pending */
  fake_stepper(2, CPUCYCLES_CYCLECOUNTER, 4);        /* 24 */
  fake_select_with(3, 1000000000, 1, 0, &full);
  fake_reset();
  fake_stepper(0, CPUCYCLES_CYCLECOUNTER, 15);
  fake_stepper(1, CPUCYCLES_MAYBECYCLECOUNTER, 30);
  fake_stepper(2, CPUCYCLES_CYCLECOUNTER, 4);
  fake_select_with(3, 1000000000, 0, 0, &s);
  check(full.chosen == 0 && s.chosen == 0 && s.candidate[2].precision == 24 && fakes[1].calls > 0 &&
        s.candidate[1].precision == 1040 && !s.candidate[1].fail,
        "pruning_keeps_order_bumps_exact", "pruned chose %d (precision %lld), full chose %d",
        s.chosen, s.candidate[2].precision, full.chosen);

}

/* Anomalously small steps (a guest's clock adjustments) must not decide
   between two counters that read the same instruction: the smallest step
   seen at least 3 times counts. */
static void outlier(void)
{
  fake_reset();
  fake_stepper(0, CPUCYCLES_MAYBECYCLECOUNTER, 21);
  fake_stepper(1, CPUCYCLES_MAYBECYCLECOUNTER, 21);
  fakes[1].kind = FAKE_OUTLIER;
  fake_select(2, 1000000000, &s);
  check(s.chosen == 0 && s.candidate[0].precision == 1021 && s.candidate[1].precision == 1031,
        "two_outlier_steps_do_not_decide", "chosen %d precisions %lld %lld", s.chosen,
        s.candidate[0].precision, s.candidate[1].precision);
}

/* A twin (amd64-tscasm of amd64-tsc: the same instruction at the same
   rate) takes its twin's step instead of reading 1000 times: noise
   between two runs of the same reads must not decide between them, nor
   cost the first call a second run.  Where the twin did not pass, or
   scales otherwise, the counter is measured itself. */
static void twins(void)
{
  fake_reset();
  fake_stepper(0, CPUCYCLES_MAYBECYCLECOUNTER, 24);
  fake_stepper(1, CPUCYCLES_MAYBECYCLECOUNTER, 20); /* would win if measured */
  fakes[1].twin = "fake0";
  fake_select(2, 1000000000, &s);
  check(s.chosen == 0 && fakes[1].calls == 0 && s.candidate[1].precision == 1034,
        "twin_takes_its_twins_step", "chosen %d, twin read %lld times, precision %lld", s.chosen,
        fakes[1].calls, s.candidate[1].precision);

  fake_reset();
  fake_stepper(0, CPUCYCLES_MAYBECYCLECOUNTER, 24);
  fakes[0].kind = FAKE_STUCK;
  fake_stepper(1, CPUCYCLES_MAYBECYCLECOUNTER, 20);
  fakes[1].twin = "fake0";
  fake_select(2, 1000000000, &s);
  check(s.chosen == 1 && fakes[1].calls >= 1000 && s.candidate[1].precision == 1020,
        "twin_that_failed_does_not_stand_in", "chosen %d, read %lld times, precision %lld",
        s.chosen, fakes[1].calls, s.candidate[1].precision);

  fake_reset();
  fake_stepper(0, 1000000000, 24);
  fake_stepper(1, 500000000, 20);
  fakes[1].twin = "fake0";
  fake_select(2, 1000000000, &s);
  check(fakes[1].calls >= 1000 && s.candidate[1].precision == 1050,
        "twin_at_another_scaling_is_measured", "read %lld times, precision %lld", fakes[1].calls,
        s.candidate[1].precision);
}

/* A counter that goes back once, in its first try, passes its second
   (a thread moved between cores with unsynchronised counters): it is
   measured and can win. */
static void retried(void)
{
  fake_reset();
  fake_stepper(0, CPUCYCLES_CYCLECOUNTER, 20);
  fakes[0].kind = FAKE_BACK_ONCE;
  fake_stepper(1, CPUCYCLES_MAYBECYCLECOUNTER, 20);
  fake_select(2, 1000000000, &s);
  check(s.chosen == 0 && s.candidate[0].precision == 20 && !s.candidate[0].fail && fakes[0].calls == 2000,
        "counter_passing_its_retry_is_kept", "chosen %d, precision %lld, fail '%s', %lld reads", s.chosen,
        s.candidate[0].precision, s.candidate[0].fail ? s.candidate[0].fail : "", fakes[0].calls);
}

/* CPUCYCLES_IMPLEMENTATION: used when it works, refused (with a reason)
   when it does not, and then the rule decides. */
static void wanted(void)
{
  fake_reset();
  fake_stepper(0, CPUCYCLES_CYCLECOUNTER, 5);
  fake_stepper(1, CPUCYCLES_MAYBECYCLECOUNTER, 30);
  fake_select_with(2, 1000000000, 0, "fake1", &s);
  check(s.chosen == 1 && !s.wanted_refused && fakes[0].calls == 0, "wanted_counter_used",
        "chosen %d", s.chosen);
  fake_reset();
  fake_trapper(0, SIGILL);
  fake_stepper(1, CPUCYCLES_MAYBECYCLECOUNTER, 30);
  fake_select_with(2, 1000000000, 0, "fake0", &s);
  check(s.chosen == 1 && s.wanted_refused && !strcmp(s.wanted_refused, fake_signal(SIGILL) == SIGILL ? "SIGILL" : "SIGSEGV"),
        "wanted_counter_refused_when_it_crashes", "chosen %d refused %s", s.chosen,
        s.wanted_refused ? s.wanted_refused : "(null)");
  fake_select_with(2, 1000000000, 0, "no-such", &s);
  check(s.chosen == 1 && s.wanted_refused, "wanted_unknown_name_refused", "chosen %d", s.chosen);
}

/* The 16-core guest's case: a TSC whose step (30) lets the monotonic
   clock win on paper, so the clock is measured, and persecond comes
   through the seam from the /proc/cpuinfo of 256 processors.  The first
   call stays bounded: the estimate made once, from the first 1 KB; one
   try of 1000 reads per counter; no clock read but the counters' own. */
static const char *cpuinfo_text;
static long cpuinfo_bytes;

static long cpuinfo_only(const char *path, long offset, char *buf, size_t size)
{
  long n = serve_text(strcmp(path, "/proc/cpuinfo") ? 0 : cpuinfo_text, offset, buf, size);
  if (n > 0) cpuinfo_bytes += n;
  return n;
}

static void clock_measured_with_many_cpus(void)
{
  static char text[400000];
  fake_reset();
  fake_stepper(0, CPUCYCLES_MAYBECYCLECOUNTER, 30);
  fakes[1].setup = 1000000000;
  fakes[1].kind = FAKE_CLOCK;
  fakes[1].ticks_per_ns = 1;
  fakes[1].advance_ns = 30;
  serve_x86_cpuinfo(text, 256);
  cpuinfo_text = text;
  cpuinfo_bytes = 0;
  fake_os.read_text = cpuinfo_only;
  fake_os.getenv = 0;
  cpucycles_select(fake_table, 2, 0, &s);
  fake_os.read_text = 0;
  check(s.candidate[1].precision > 0 && s.persecond == 2096028000LL && cpuinfo_bytes <= 1024 &&
        fakes[0].calls == 1000 && fakes[1].calls == 1001 && fake_clock_reads == 0, /* 1: the scaling's base */
        "clock_measured_with_256_cpus_stays_bounded",
        "clock precision %lld, persecond %lld from %s after %ld bytes of /proc/cpuinfo, %lld and %lld reads, %lld clock reads",
        s.candidate[1].precision, s.persecond, s.persecond_source, cpuinfo_bytes, fakes[0].calls, fakes[1].calls,
        fake_clock_reads);
}

int main(void)
{
  crashes();
  pruning();
  outlier();
  twins();
  retried();
  budgets();
  wanted();
  bad_counters();
  tables();
  clock_measured_with_many_cpus();
  last_resort();
  return checks_failed();
}
