/* The selection rule (SPEC 3), in one place, top to bottom.
   doc/selection.md says the same in prose. */
#include <signal.h>
#include <string.h>
#include "internal.h"

#define PENALTY_CYCLECOUNTER 0   /* RDPMC, PMCCNTR, RDCYCLE, RDTICK, perf */
#define PENALTY_EXTEND32 300     /* core cycles, but 32 bits extended by us */
#define PENALTY_OFFCORE 1000     /* any other clock, scaled or not */
#define ORDER_BUMP 10            /* per working counter earlier in the list */
#define PRECISION_CALLS 1000
#define PRECISION_TRIES 10

/* What one candidate's probes share with the guard. */
struct candidate {
  const struct cpucycles_counter *counter;
  long long setup;
  long long persecond;
  double scaling;
  long long (*read)(void);
  long long precision; /* smallest nonzero step, 0 if the counter failed */
  const char *fail;
};

static const char *counter_words;

void cpucycles_counter_says(const char *why)
{
  counter_words = why;
}

static void probe_setup(void *arg)
{
  struct candidate *c = arg;
  c->setup = c->counter->setup();
}

static void probe_multiplier(void *arg)
{
  struct candidate *c = arg;
  c->scaling = cpucycles_find_multiplier(c->counter->ticks, c->persecond);
}

static void probe_close(void *arg)
{
  struct candidate *c = arg;
  c->counter->close();
}

/* PRECISION_CALLS reads must never decrease and must increase at least
   once; a counter gets PRECISION_TRIES chances. */
static void probe_precision(void *arg)
{
  struct candidate *c = arg;
  long long v[PRECISION_CALLS];
  int try, i;

  c->precision = 0;
  for (try = 0; try < PRECISION_TRIES; ++try) {
    long long smallest = 0;
    int decreased = 0;
    for (i = 0; i < PRECISION_CALLS; ++i) v[i] = c->read();
    for (i = 1; i < PRECISION_CALLS; ++i) {
      long long step = v[i] - v[i - 1];
      if (step < 0) decreased = 1;
      if (step > 0 && (smallest == 0 || step < smallest)) smallest = step;
    }
    if (decreased) {
      c->fail = "went backwards in every try";
      continue;
    }
    if (smallest == 0) {
      c->fail = "never moved in every try";
      continue;
    }
    c->precision = smallest;
    c->fail = 0;
    return;
  }
}

static const char *signal_words(int sig)
{
  if (sig == SIGILL) return "SIGILL";
  if (sig == SIGFPE) return "SIGFPE";
  if (sig == SIGBUS) return "SIGBUS";
  if (sig == SIGSEGV) return "SIGSEGV";
  if (sig == SIGABRT) return "SIGABRT";
  return "a signal";
}

void cpucycles_select(const struct cpucycles_counter *table, int count,
                      long long persecond, const char *persecond_source,
                      struct cpucycles_selection *out)
{
  int i, working = 0;
  long long best = 0;

  if (count > CPUCYCLES_MAXCOUNTERS) count = CPUCYCLES_MAXCOUNTERS;
  memset(out, 0, sizeof *out);
  out->persecond = persecond;
  out->persecond_source = persecond_source;
  out->count = count;
  out->chosen = -1;

  cpucycles_guard_install();
  for (i = 0; i < count; ++i) {
    struct cpucycles_trace *t = &out->trace[i];
    struct candidate c;
    long long penalty;
    int only32 = 0;
    int sig;

    memset(&c, 0, sizeof c);
    c.counter = &table[i];
    c.persecond = persecond;
    counter_words = 0;

    /* 1. the counter's own probe */
    sig = cpucycles_guard_run(probe_setup, &c);
    t->says = counter_words;
    if (sig) {
      t->crash = sig;
      t->fail = signal_words(sig);
      cpucycles_guard_run(probe_close, &c);
      continue;
    }
    t->setup = c.setup;
    if (c.setup == CPUCYCLES_SKIP) {
      t->fail = "setup skipped";
      continue;
    }

    /* 2. its class gives a penalty and a scaling to cycles */
    if (c.setup == CPUCYCLES_CYCLECOUNTER) {
      penalty = PENALTY_CYCLECOUNTER;
      c.scaling = 1;
    } else if (c.setup == CPUCYCLES_EXTEND32) {
      penalty = PENALTY_EXTEND32;
      c.scaling = 1;
      only32 = 1;
    } else if (c.setup == CPUCYCLES_MAYBECYCLECOUNTER) {
      penalty = PENALTY_OFFCORE;
      c.scaling = 1;
    } else if (c.setup > 0) {
      penalty = PENALTY_OFFCORE;
      c.scaling = (double) persecond / (double) c.setup;
    } else if (c.setup == CPUCYCLES_FINDMULTIPLIER) {
      penalty = PENALTY_OFFCORE;
      sig = cpucycles_guard_run(probe_multiplier, &c);
      if (sig || c.scaling == 0) {
        t->crash = sig;
        t->fail = sig ? signal_words(sig) : "rate is no n/d multiple of persecond";
        cpucycles_guard_run(probe_close, &c);
        continue;
      }
    } else {
      t->fail = "unknown setup class";
      cpucycles_guard_run(probe_close, &c);
      continue;
    }
    t->scaling = c.scaling;
    t->only32 = only32;

    /* 3. precision: smallest step, plus penalty, plus the order bump */
    c.read = cpucycles_read_function(c.scaling, only32, c.counter->ticks);
    cpucycles_read_use(c.counter->ticks, c.scaling, only32, persecond);
    sig = cpucycles_guard_run(probe_precision, &c);
    if (sig || !c.precision) {
      t->crash = sig;
      t->fail = sig ? signal_words(sig) : c.fail;
      cpucycles_guard_run(probe_close, &c);
      continue;
    }
    t->precision = c.precision + penalty + ORDER_BUMP * working;
    ++working;

    /* 4. smallest precision wins; earlier wins ties */
    if (out->chosen < 0 || t->precision < best) {
      out->chosen = i;
      best = t->precision;
    }
  }

  /* close every working counter that lost */
  for (i = 0; i < count; ++i) {
    struct candidate c;
    if (i == out->chosen || !out->trace[i].precision) continue;
    c.counter = &table[i];
    cpucycles_guard_run(probe_close, &c);
  }
  cpucycles_guard_restore();

  if (out->chosen < 0) {
    /* nothing worked: the last entry (default-zero) is the last resort */
    out->chosen = count - 1;
    out->read = table[count - 1].ticks;
    return;
  }
  {
    const struct cpucycles_trace *t = &out->trace[out->chosen];
    long long (*ticks)(void) = table[out->chosen].ticks;
    cpucycles_read_use(ticks, t->scaling, t->only32, persecond);
    out->read = cpucycles_read_function(t->scaling, t->only32, ticks);
  }
}
