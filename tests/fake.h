/* Fake counters and a fake clock for unit tests of the selection logic.
   Eight slots, each a counter whose behaviour the test sets; the clock is
   the OS seam's nanoseconds() (tests/fakeos.h), advanced by the test or by
   the counters. */
#ifndef CPUCYCLES_TEST_FAKE_H
#define CPUCYCLES_TEST_FAKE_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "internal.h"
#include "fakeos.h"
#include "crash.h"

/* The signal a guarded read raised, as the trace says it ("SIGILL"...
   as the counter's words of failure), or 0. */
static inline int crash_of(const struct cpucycles_candidate *t)
{
  static const int sigs[] = { SIGILL, SIGFPE, SIGBUS, SIGSEGV, SIGABRT };
  static const char *const names[] = { "SIGILL", "SIGFPE", "SIGBUS", "SIGSEGV", "SIGABRT" };
  int i;
  for (i = 0; i < 5; ++i)
    if (t->fail && !strcmp(t->fail, names[i])) return sigs[i];
  return 0;
}

enum fake_kind {
  FAKE_STEP,        /* value += step on every read */
  FAKE_CRASH_TICKS, /* every read dies of fake.signal (set may_trap) */
  FAKE_DECREASE,    /* +5, -1, +5, -1, ... */
  FAKE_STUCK,       /* always the same value */
  FAKE_CLOCK,       /* ticks_per_ns times the fake clock (low 32 bits if wrap32) */
  FAKE_OUTLIER,     /* value += step, but twice (reads 300, 700) only += 1 */
  FAKE_BACK_ONCE    /* value += step, but read 500 goes back by 1 */
};

struct fake {
  long long setup;     /* what ticks_setup returns */
  int may_trap;        /* what it says of its reads */
  const char *say;     /* its setup's words (cpucycles_say), or 0 */
  int need;            /* what its skip needs (CPUCYCLES_NEED_...) */
  const char *twin;    /* the earlier counter it names as its twin, or 0 */
  enum fake_kind kind;
  int signal;
  long long step;
  long long value;
  long long calls;
  long long closes;
  double ticks_per_ns;
  long long advance_ns; /* fake time that passes per read */
  int wrap32;
  void (*during)(void); /* called inside the first read */
  long long origin, ns_per_tick; /* FAKE_CLOCK in integers: origin + now / ns_per_tick */
};

#define FAKES 8
static struct fake fakes[FAKES];
static long long fake_now;      /* fake time in ns */
static long long fake_clock_step = 50; /* ns per nanoseconds() call */
static long long fake_clock_reads;       /* nanoseconds() calls */

static long long fake_nanoseconds(void)
{
  fake_now += fake_clock_step;
  ++fake_clock_reads;
  return fake_now;
}

static long long fake_read(int i)
{
  struct fake *f = &fakes[i];
  ++f->calls;
  fake_now += f->advance_ns;
  if (f->during && f->calls == 1) f->during();
  switch (f->kind) {
    case FAKE_STEP: return f->value += f->step;
    case FAKE_OUTLIER: return f->value += f->calls == 300 || f->calls == 700 ? 1 : f->step;
    case FAKE_BACK_ONCE: return f->value += f->calls == 500 ? -1 : f->step;
    case FAKE_CRASH_TICKS: fake_crash(f->signal); return 0;
    case FAKE_DECREASE: f->value += (f->calls & 1) ? 5 : -1; return f->value;
    case FAKE_STUCK: return 42;
    case FAKE_CLOCK: {
      long long t = f->ns_per_tick ? f->origin + fake_now / f->ns_per_tick : (long long) ((double) fake_now * f->ticks_per_ns);
      return f->wrap32 ? (long long) (t & 0xffffffffLL) : t;
    }
  }
  return 0;
}

static long long fake_setup(int i, struct cpucycles_probe *probe)
{
  probe->may_trap = fakes[i].may_trap;
  if (fakes[i].say) cpucycles_say(probe, "%s", fakes[i].say);
  probe->need = fakes[i].need;
  probe->twin = fakes[i].twin;
  return fakes[i].setup;
}

#define FAKE_SLOT(i) \
  static long long fake_setup##i(struct cpucycles_probe *p) { return fake_setup(i, p); } \
  static long long fake_ticks##i(void) { return fake_read(i); } \
  static void fake_close##i(void) { ++fakes[i].closes; }
FAKE_SLOT(0) FAKE_SLOT(1) FAKE_SLOT(2) FAKE_SLOT(3)
FAKE_SLOT(4) FAKE_SLOT(5) FAKE_SLOT(6) FAKE_SLOT(7)

static const struct cpucycles_counter fake_table[FAKES] = {
  { "fake0", fake_setup0, fake_ticks0, fake_close0 },
  { "fake1", fake_setup1, fake_ticks1, fake_close1 },
  { "fake2", fake_setup2, fake_ticks2, fake_close2 },
  { "fake3", fake_setup3, fake_ticks3, fake_close3 },
  { "fake4", fake_setup4, fake_ticks4, fake_close4 },
  { "fake5", fake_setup5, fake_ticks5, fake_close5 },
  { "fake6", fake_setup6, fake_ticks6, fake_close6 },
  { "fake7", fake_setup7, fake_ticks7, fake_close7 },
};

/* Resets all slots to "setup skips" and points the seam at the fake clock. */
static void fake_reset(void)
{
  memset(fakes, 0, sizeof fakes);
  fake_now = 1000000000LL;
  fake_clock_step = 50;
  fake_clock_reads = 0;
  fake_os.nanoseconds = fake_nanoseconds;
}

static void fake_stepper(int i, long long setup, long long step)
{
  fakes[i].setup = setup;
  fakes[i].kind = FAKE_STEP;
  fakes[i].step = step;
}

/* A cycle counter whose reads trap with sig, and which says so. */
static void fake_trapper(int i, int sig)
{
  fakes[i].setup = CPUCYCLES_CYCLECOUNTER;
  fakes[i].kind = FAKE_CRASH_TICKS;
  fakes[i].signal = sig;
  fakes[i].may_trap = 1;
}

/* Selection over the first count fake slots, as the library would run it
   with persecond fixed; measure_all as tracing asks, wanted as
   CPUCYCLES_IMPLEMENTATION would.  Both come through the OS seam: the
   administrator's file /etc/cpucyclespersecond (the estimate's first
   source: each read of it is counted as persecond asked) and getenv. */
static long long fake_persecond_value;
static int fake_persecond_asked;
static const char *fake_wanted, *fake_env_persecond;

static long fake_persecond_file(const char *path, long offset, char *buf, size_t size)
{
  long n;
  if (strcmp(path, "/etc/cpucyclespersecond")) return -1;
  if (!offset) ++fake_persecond_asked;
  n = snprintf(buf, size, "%lld\n", fake_persecond_value) - offset;
  if (n <= 0) {
    buf[0] = 0;
    return 0;
  }
  memmove(buf, buf + offset, (size_t) n + 1);
  return n;
}

/* the trace's reasons, asked for as cpucycles-info asks (0: not asked) */
static const char *fake_reasons = "1";

static const char *fake_getenv(const char *name)
{
  if (!strcmp(name, "CPUCYCLES_TRACE_REASONS")) return fake_reasons;
  if (!strcmp(name, "cpucyclespersecond")) return fake_env_persecond;
  return strcmp(name, "CPUCYCLES_IMPLEMENTATION") ? 0 : fake_wanted;
}

/* what the estimate says with the fake file in place ("file ...") */
static long long fake_persecond(const char **source)
{
  fake_os.read_text = fake_persecond_file;
  return cpucycles_persecond_estimate(source);
}

static void fake_select_with(int count, long long persecond, int measure_all,
                             const char *wanted, struct cpucycles_selection *out)
{
  fake_persecond_value = persecond;
  fake_persecond_asked = 0;
  fake_wanted = wanted;
  fake_os.read_text = fake_persecond_file;
  fake_os.getenv = fake_getenv;
  cpucycles_select(fake_table, count, measure_all ? vsnprintf : 0, out);
}

static void fake_select(int count, long long persecond, struct cpucycles_selection *out)
{
  fake_select_with(count, persecond, 1, 0, out);
}

/* The generated table is not linked into unit tests: they bring their own. */
const struct cpucycles_counter cpucycles_counters[1] = { { 0, 0, 0, 0 } };
const int cpucycles_counter_count = 0;

#endif
