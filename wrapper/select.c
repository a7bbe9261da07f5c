/* The selection rule (SPEC 3), in one place, top to bottom.
   doc/selection.md says the same in prose. */
#include <signal.h>
#include <string.h>
#include "internal.h"
#include "os.h"

#define PENALTY_CYCLECOUNTER 0   /* RDPMC, PMCCNTR, RDCYCLE, RDTICK, perf */
#define PENALTY_EXTEND32 300     /* core cycles, but 32 bits extended by us */
#define PENALTY_OFFCORE 1000     /* any other clock, scaled or not */
#define ORDER_BUMP 10            /* per working counter earlier in the list */
#define PRECISION_CALLS 1000
#define PRECISION_TRIES 10
#define PRECISION_BUDGET_NS 5000000LL /* one counter's retries stop after 5 ms */
#define RETRY_BUDGET_NS 20000000LL    /* all retries stop 20 ms after the first */
#define SMALLEST_STEP 1          /* no counter can do better than this */

/* When a run of retries began: one per counter, one for the selection. */
struct retry_clock {
  int started;
  long long began;
};

/* What one candidate's probes share with the guard. */
struct candidate {
  const struct cpucycles_counter *counter;
  long long setup;
  long long persecond;
  double scaling;
  int only32;
  long long penalty;
  long long (*read)(void);
  long long step; /* smallest nonzero step, 0 if the counter failed */
  const char *fail;
  int open;       /* set up and not yet closed */
  struct retry_clock *retries; /* the walk's: the selection's retries */
};

/* Everything selection keeps while it walks the list. */
struct walk {
  const struct cpucycles_counter *table;
  const struct cpucycles_select_options *options;
  struct cpucycles_selection *out;
  struct candidate c[CPUCYCLES_MAXCOUNTERS];
  int working;          /* counters so far that passed the precision test */
  int pending[CPUCYCLES_MAXCOUNTERS]; /* set up but not yet measured */
  int npending;
  struct retry_clock retries;
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

/* The smallest steps seen, each with how often it was seen.  A step seen
   once or twice is not trusted: in a guest an occasional read lands one
   tick after the previous one (the hypervisor adjusting the clock; here
   about one read in 70000, and two in the same 1000 reads about once in
   2000 processes), and such outliers would otherwise decide between two
   counters that read the same instruction (amd64-tsc and amd64-tscasm) at
   random. */
#define STEPS_KEPT 4
#define STEP_SEEN_LEAST 3

struct steps {
  long long step[STEPS_KEPT]; /* ascending; 0 = unused */
  int seen[STEPS_KEPT];
};

static inline void steps_add(struct steps *s, long long step)
{
  int i, seen = 1;
  /* the usual case first: the counter's own step, seen before */
  if (step == s->step[0]) { ++s->seen[0]; return; }
  if (step == s->step[1]) { ++s->seen[1]; return; }
  for (i = 0; i < STEPS_KEPT; ++i) {
    if (s->step[i] == step) { ++s->seen[i]; return; }
    if (s->step[i] == 0 || step < s->step[i]) break;
  }
  /* insert at i, each larger step moving up one place (the largest falls
     off); carried along rather than shifted, which the compiler would turn
     into a call of memmove, a libc page a fresh process may not have read */
  for (; i < STEPS_KEPT; ++i) {
    long long up = s->step[i];
    int up_seen = s->seen[i];
    s->step[i] = step;
    s->seen[i] = seen;
    step = up;
    seen = up_seen;
    if (!step) break;
  }
}

/* the smallest step seen STEP_SEEN_LEAST times; else the smallest seen */
static long long steps_smallest(const struct steps *s)
{
  int i;
  for (i = 0; i < STEPS_KEPT && s->step[i]; ++i)
    if (s->seen[i] >= STEP_SEEN_LEAST) return s->step[i];
  return s->step[0];
}

/* PRECISION_CALLS reads must never decrease and must increase at least
   once; a counter gets PRECISION_TRIES chances.  The reads are kept
   PRECISION_CHUNK at a time: a 1 KB buffer stays in stack pages already in
   use, where 8 KB would cost page faults (over 10 microseconds each in a
   virtual machine).  The step from one chunk to the next includes our
   arithmetic, so it counts for the order check, not as a step. */
#define PRECISION_CHUNK 125

/* The budgets bound the first call on a machine with slow, bad counters
   (10 tries of a 2-microsecond system call would be 20 ms per counter).
   The clock is read only for a retry: most counters pass their first try,
   and a process's first clock_gettime costs page faults (30 microseconds
   here).  Returns 0 when the budgets allow no more tries. */
static long long since(struct retry_clock *k, long long now)
{
  if (!k->started) {
    k->started = 1;
    k->began = now;
  }
  return now - k->began;
}

static int may_retry(struct candidate *c, struct retry_clock *own)
{
  long long now = cpucycles_os.nanoseconds();
  return since(own, now) <= PRECISION_BUDGET_NS && since(c->retries, now) <= RETRY_BUDGET_NS;
}

static void probe_precision(void *arg)
{
  struct candidate *c = arg;
  long long v[PRECISION_CHUNK];
  struct retry_clock own = { 0, 0 }; /* this counter's retries */
  int try, i, k;

  c->step = 0;
  for (try = 0; try < PRECISION_TRIES; ++try) {
    struct steps steps;
    long long last = 0;
    int decreased = 0;
    if (try && !may_retry(c, &own)) return;
    memset(&steps, 0, sizeof steps);
    for (k = 0; k < PRECISION_CALLS; k += PRECISION_CHUNK) {
      for (i = 0; i < PRECISION_CHUNK; ++i) v[i] = c->read();
      if (k && v[0] < last) decreased = 1;
      for (i = 1; i < PRECISION_CHUNK; ++i) {
        long long step = v[i] - v[i - 1];
        if (step < 0) decreased = 1;
        if (step > 0) steps_add(&steps, step);
      }
      last = v[PRECISION_CHUNK - 1];
    }
    if (decreased) {
      c->fail = "went backwards in every try";
    } else if (!steps.step[0]) {
      c->fail = "never moved in every try";
    } else {
      c->step = steps_smallest(&steps);
      c->fail = 0;
      return;
    }
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

static long long persecond(struct walk *w)
{
  struct cpucycles_selection *out = w->out;
  if (!out->persecond)
    out->persecond = w->options->persecond(&out->persecond_source);
  return out->persecond;
}

static void drop(struct walk *w, int i, int sig, const char *why)
{
  w->out->trace[i].crash = sig;
  w->out->trace[i].fail = sig ? signal_words(sig) : why;
  w->out->trace[i].precision = 0;
  cpucycles_guard_run(probe_close, &w->c[i]);
  w->c[i].open = 0;
}

/* Steps 1 and 2: the counter's own probe, then its class.
   Returns 1 if the counter is still in the running. */
static int set_up(struct walk *w, int i)
{
  struct candidate *c = &w->c[i];
  struct cpucycles_trace *t = &w->out->trace[i];
  int sig;

  memset(c, 0, sizeof *c);
  memset(t, 0, sizeof *t); /* a wanted counter that failed is set up again */
  c->counter = &w->table[i];
  c->retries = &w->retries;
  counter_words = 0;
  sig = cpucycles_guard_run(probe_setup, c);
  t->says = counter_words;
  c->open = 1; /* even a skip may have half-opened something */
  if (sig) {
    drop(w, i, sig, 0);
    return 0;
  }
  t->setup = c->setup;
  if (c->setup == CPUCYCLES_SKIP) {
    t->fail = "setup skipped";
    return 0;
  }
  if (c->setup == CPUCYCLES_CYCLECOUNTER) {
    c->penalty = PENALTY_CYCLECOUNTER;
  } else if (c->setup == CPUCYCLES_EXTEND32) {
    c->penalty = PENALTY_EXTEND32;
    c->only32 = 1;
  } else if (c->setup == CPUCYCLES_MAYBECYCLECOUNTER || c->setup > 0 ||
             c->setup == CPUCYCLES_FINDMULTIPLIER) {
    c->penalty = PENALTY_OFFCORE;
  } else {
    drop(w, i, 0, "unknown setup class");
    return 0;
  }
  return 1;
}

/* A scaling of exactly 1 is none: the counter is read as it is, which
   scaling 0 stands for (internal.h says why). */
static double scaling_or_none(double scaling)
{
  return scaling == 1 ? 0 : scaling;
}

/* Step 3: scaling and precision.  Returns the precision, 0 if dropped. */
static long long measure(struct walk *w, int i)
{
  struct candidate *c = &w->c[i];
  struct cpucycles_trace *t = &w->out->trace[i];
  int sig;

  c->scaling = 0;
  if (c->setup > 0) {
    c->scaling = scaling_or_none((double) persecond(w) / (double) c->setup);
  } else if (c->setup == CPUCYCLES_FINDMULTIPLIER) {
    c->persecond = persecond(w);
    sig = cpucycles_guard_run(probe_multiplier, c);
    if (sig || !c->scaling) {
      drop(w, i, sig, "its rate is no n/d multiple of persecond");
      return 0;
    }
    c->scaling = scaling_or_none(c->scaling);
  }
  t->scaling = c->scaling;
  t->only32 = c->only32;
  c->read = cpucycles_read_function(c->scaling, c->only32, c->counter->ticks);
  cpucycles_read_use(c->counter->ticks, c->scaling, c->only32,
                     c->only32 ? persecond(w) : 0);
  sig = cpucycles_guard_run(probe_precision, c);
  if (sig || !c->step) {
    drop(w, i, sig, c->fail);
    return 0;
  }
  t->precision = c->step + c->penalty + ORDER_BUMP * w->working;
  t->fail = 0; /* a pending counter's "not measured" no longer holds */
  ++w->working;
  return t->precision;
}

/* Step 4: the smallest precision wins; an earlier counter wins a tie. */
static void consider(struct walk *w, int i, long long precision)
{
  struct cpucycles_selection *out = w->out;
  if (!precision) return;
  if (out->chosen < 0 || precision < out->trace[out->chosen].precision) out->chosen = i;
}

/* Counters left pending could not beat the best so far; measuring them
   is only needed when a later counter's order bump depends on whether
   they work (see try_counter). */
static void settle(struct walk *w)
{
  int k;
  for (k = 0; k < w->npending; ++k) consider(w, w->pending[k], measure(w, w->pending[k]));
  w->npending = 0;
}

static void try_counter(struct walk *w, int i)
{
  struct cpucycles_selection *out = w->out;
  long long best_possible;

  if (!set_up(w, i)) return;
  /* Skipping the measurement of a counter that cannot win saves most of
     the first call's time; the choice is the same as measuring all:
     a pending counter is measured before any later counter is, so every
     order bump is exact whenever it matters. */
  best_possible = SMALLEST_STEP + w->c[i].penalty + ORDER_BUMP * w->working;
  if (!w->options->measure_all && out->chosen >= 0 &&
      best_possible >= out->trace[out->chosen].precision) {
    out->trace[i].fail = "not measured: cannot beat the counter already found";
    w->pending[w->npending++] = i;
    return;
  }
  settle(w);
  consider(w, i, measure(w, i));
}

static int find(const struct cpucycles_counter *table, int count, const char *name)
{
  int i;
  for (i = 0; name && i < count; ++i)
    if (!strcmp(table[i].name, name)) return i;
  return -1;
}

void cpucycles_select(const struct cpucycles_counter *table, int count,
                      const struct cpucycles_select_options *options,
                      struct cpucycles_selection *out)
{
  struct walk w; /* on the stack: a static 1.4 KB would take a page of its own */
  int i, wanted;

  if (count > CPUCYCLES_MAXCOUNTERS) count = CPUCYCLES_MAXCOUNTERS;
  memset(&w, 0, sizeof w);
  memset(out, 0, sizeof *out);
  w.table = table;
  w.options = options;
  w.out = out;
  out->count = count;
  out->chosen = -1;
  out->wanted = options->wanted;

  cpucycles_guard_install();

  /* A counter named on purpose (CPUCYCLES_IMPLEMENTATION) is used if it
     passes its probe and precision test; otherwise the rule decides. */
  wanted = find(table, count, options->wanted);
  if (options->wanted && wanted < 0) out->wanted_refused = "no such counter in this build";
  if (wanted >= 0) {
    if (set_up(&w, wanted)) consider(&w, wanted, measure(&w, wanted));
    if (out->chosen < 0) out->wanted_refused = out->trace[wanted].fail;
  }

  if (out->chosen < 0)
    for (i = 0; i < count; ++i) try_counter(&w, i);
  else
    for (i = 0; i < count; ++i)
      if (i != wanted) out->trace[i].fail = "not tried: CPUCYCLES_IMPLEMENTATION named another counter";

  /* close every counter that was set up and lost */
  for (i = 0; i < count; ++i)
    if (i != out->chosen && w.c[i].open) cpucycles_guard_run(probe_close, &w.c[i]);
  cpucycles_guard_restore();

  if (out->chosen < 0) {
    /* nothing worked: the last entry (default-zero) is the last resort */
    out->chosen = count - 1;
    out->read = table[count - 1].ticks;
    return;
  }
  {
    struct candidate *c = &w.c[out->chosen];
    cpucycles_read_use(c->counter->ticks, c->scaling, c->only32, c->only32 ? out->persecond : 0);
    out->read = c->read;
  }
}
