/* The selection rule (SPEC 3), in one place, top to bottom:
   cpucycles_select(), the rule as a whole, first; then the tools its
   steps use (persecond, closing and rejecting counters, the multiplier
   search, the precision test; rates are timed in persecond.c); then the
   steps for each counter, each after what it calls: set_up() (the probe
   and a guarded first read), measure() (scaling, precision, the best
   kept) and try_counter(), which runs them.  doc/selection.md says the
   same in prose. */
#include <signal.h>
#include <string.h>
#include "internal.h"

#define PENALTY_CYCLECOUNTER 0 /* RDPMC, PMCCNTR, RDCYCLE, RDTICK, perf */
#define PENALTY_EXTEND32 300   /* core cycles, but 32 bits extended by us */
#define PENALTY_OFFCORE 1000   /* any other clock, scaled or not */
#define ORDER_BUMP 10          /* per working counter earlier in the list */
#define SMALLEST_STEP 1        /* no counter can do better than this */

#define PRECISION_CALLS 1000
#define PRECISION_TRIES 10
#define RETRY_BUDGET_NS 20000000LL /* retries stop 20 ms after the selection's first */
/* reads kept at a time: 1 KB of stack, where one buffer of all 1000 (8 KB
   of fresh memory) cost the first call two page faults */
#define PRECISION_CHUNK 125

#define MULTIPLIER_SLOP 0.2
#define MULTIPLIER_MAXDENOMINATOR 1024

/* The smallest steps seen, in increasing order (0: none yet), each with
   how often.  A step seen once or twice is not trusted: in a guest an
   occasional read lands one tick after the previous one, and such an
   outlier would decide between two counters that read the same
   instruction (amd64-tsc and amd64-tscasm) at random. */
#define STEPS_KEPT 4
#define STEP_SEEN_LEAST 3

/* What one run of the rule works with; what it found goes to out. */
struct work {
  const struct cpucycles_counter *table;
  cpucycles_format *format; /* a trace asked: every counter measured, its words made */
  struct cpucycles_selection *out;
  int open[CPUCYCLES_MAXCOUNTERS]; /* set up and not yet closed */
  int working; /* counters so far that passed the precision test */
  long long first_retry; /* when the selection's first retry began, or 0 */
  unsigned int round; /* this selection's number, for its probes (counter.h) */
};

static void try_counter(struct work *w, int i);

/* The rule, top to bottom: a counter named in CPUCYCLES_IMPLEMENTATION
   first; else every counter in list order (set up, guarded first read,
   scaling, precision, penalty; the best so far kept); then the losers
   closed and the winner's read function made. */
void cpucycles_select(const struct cpucycles_counter *table, int count, cpucycles_format *format,
                      struct cpucycles_selection *out)
{
  static unsigned int rounds;
  struct work w = { .table = table, .format = format, .out = out };
  struct cpucycles_candidate *t;
  int i, wanted = -1;

  w.round = ++rounds ? rounds : ++rounds; /* never 0 */
  if (count > CPUCYCLES_MAXCOUNTERS) count = CPUCYCLES_MAXCOUNTERS;
  memset(out, 0, sizeof *out);
  out->count = count;
  out->chosen = -1;
  out->wanted = cpucycles_os_getenv("CPUCYCLES_IMPLEMENTATION");

  /* A counter named on purpose (CPUCYCLES_IMPLEMENTATION) is used if it
     passes its probe and precision test; otherwise the rule decides. */
  for (i = 0; out->wanted && i < count; ++i)
    if (!strcmp(table[i].name, out->wanted)) wanted = i;
  if (wanted >= 0) try_counter(&w, wanted);
  if (out->wanted && out->chosen < 0)
    out->wanted_refused =
        wanted < 0 ? "no such counter in this build" : out->candidate[wanted].fail;

  if (out->chosen < 0)
    for (i = 0; i < count; ++i) try_counter(&w, i);
  else
    for (i = 0; i < count; ++i)
      if (i != wanted)
        out->candidate[i].fail = "not tried: CPUCYCLES_IMPLEMENTATION named another counter";

  for (i = 0; i < count; ++i)
    if (i != out->chosen && w.open[i]) table[i].close();

  if (out->chosen < 0) {
    out->chosen = count - 1; /* the last resort (options ends with it) */
    out->read = table[count - 1].ticks;
    return;
  }
  /* a 32-bit counter is extended at its own rate, timed here */
  t = &out->candidate[out->chosen];
  out->read = cpucycles_read_use(table[out->chosen].ticks, t->scaling, t->only32,
                                 t->only32 ? (double) cpucycles_rate(table, out, out->chosen) : 0,
                                 t->probe.monotonic_ns);
}

/* persecond, asked only when a counter needs it: made once, by a working
   core cycle counter's rate where the OS states none */
static long long persecond(struct work *w)
{
  int k = w->out->persecond ? -1 : cpucycles_persecond_decide(w->table, w->out, 0, w->out->count);
  if (k >= 0) w->open[k] = 1; /* its reads may have opened something */
  return w->out->persecond;
}

/* the guard catches only these */
static const char *signal_words(int sig)
{
  return sig == SIGILL    ? "SIGILL"
         : sig == SIGFPE  ? "SIGFPE"
         : sig == SIGBUS  ? "SIGBUS"
         : sig == SIGSEGV ? "SIGSEGV"
                          : "SIGABRT";
}

/* Counters are measured alone: an event an earlier counter left open can
   make a later one's reads move (RISC-V's rdcycle, which runs only while
   some cycles event holds the counter) or stand still (a second cycles
   event on one thread that does not count), and after selection neither
   holds.  A perf counter opens its events again on its next read. */
static void close_others(struct work *w, int i)
{
  int k;
  for (k = 0; k < w->out->count; ++k)
    if (k != i && w->open[k]) {
      w->table[k].close();
      w->open[k] = 0;
    }
  w->open[i] = 1;
}

static void reject(struct work *w, int i, const char *why)
{
  w->out->candidate[i].fail = why;
  w->table[i].close();
  w->open[i] = 0;
}

/* FINDMULTIPLIER: persecond over the clock's rate must be close to n/d for
   a small power-of-two d, the same in every window.  Returns the scaling,
   or 0 if none fits. */
static double find_multiplier(cpucycles_ticks *ticks, long long persecond)
{
  double hz[CPUCYCLES_RATE_WINDOWS];
  int i, d;
  cpucycles_rates(ticks, 0, hz);
  if (hz[0] <= 0) return 0;
  for (d = 1; d <= MULTIPLIER_MAXDENOMINATOR; d *= 2) {
    double mid = (double) persecond / hz[CPUCYCLES_RATE_WINDOWS / 2] * d;
    double n = (double) (long long) (mid + 0.5);
    int fits = n >= 1;
    for (i = 0; fits && i < CPUCYCLES_RATE_WINDOWS; ++i) {
      double off = (double) persecond / hz[i] * d - n;
      fits = off >= -MULTIPLIER_SLOP && off <= MULTIPLIER_SLOP;
    }
    if (fits) return n / d;
  }
  return 0;
}

/* Step s counted among those kept.  One larger than every step kept, with
   none free, is not kept: one evicted never comes back, so every count is
   exact. */
static void add_step(long long step[], int seen[], long long s)
{
  int i, j;
  for (i = 0; i < STEPS_KEPT && step[i] && step[i] < s; ++i) continue;
  if (i == STEPS_KEPT) return;
  if (step[i] != s) { /* a new step: the larger ones move up, the largest out */
    for (j = STEPS_KEPT - 1; j > i; --j) {
      step[j] = step[j - 1];
      seen[j] = seen[j - 1];
    }
    step[i] = s;
    seen[i] = 0;
  }
  ++seen[i];
}

/* Precision: PRECISION_CALLS reads must never decrease and must increase
   at least once; PRECISION_TRIES chances within the retry budget.  Returns
   the smallest step seen STEP_SEEN_LEAST times (else the smallest), or 0
   with *fail set (a try that fails sets it too). */
static long long precision(cpucycles_ticks *read, long long *first_retry, const char **fail)
{
  long long v[PRECISION_CHUNK], last = 0;
  int try, i, k;

  for (try = 0; try < PRECISION_TRIES; ++try) {
    long long step[STEPS_KEPT] = { 0 };
    int seen[STEPS_KEPT] = { 0 }, decreased = 0;
    if (try) {
      /* the clock is read only for a retry: most counters pass at once */
      long long now = cpucycles_os_nanoseconds();
      if (!*first_retry) *first_retry = now;
      if (now - *first_retry > RETRY_BUDGET_NS) break;
    }
    for (k = 0; k < PRECISION_CALLS; k += PRECISION_CHUNK) {
      for (i = 0; i < PRECISION_CHUNK; ++i) v[i] = read();
      /* the step across chunks includes our loop: order only */
      if (k && v[0] < last) decreased = 1;
      for (i = 1; i < PRECISION_CHUNK; ++i) {
        if (v[i] < v[i - 1]) decreased = 1;
        if (v[i] > v[i - 1]) add_step(step, seen, v[i] - v[i - 1]);
      }
      last = v[PRECISION_CHUNK - 1];
    }
    if (!decreased && step[0]) {
      for (i = 0; i < STEPS_KEPT && seen[i] < STEP_SEEN_LEAST; ++i) continue;
      return i < STEPS_KEPT ? step[i] : step[0];
    }
    *fail = decreased ? "went backwards in every try" : "never moved in every try";
  }
  return 0;
}

/* The step of the earlier counter that counter i names as its twin (the
   same instruction at the same rate), where that passed its precision
   test at the same scaling; else 0.  Noise between two runs of the same
   reads must not decide between them. */
static long long twin_step(const struct work *w, int i)
{
  const struct cpucycles_candidate *all = w->out->candidate;
  int k;
  for (k = 0; all[i].probe.twin && k < i; ++k)
    if (!strcmp(w->table[k].name, all[i].probe.twin) && all[k].scaling == all[i].scaling)
      return all[k].step;
  return 0;
}

/* Steps 1 and 2: the counter's own probe, a guarded first read if it may
   trap, then its class's penalty.  Returns 1 if the counter is still in the
   running. */
static int set_up(struct work *w, int i)
{
  const struct cpucycles_counter *counter = &w->table[i];
  struct cpucycles_candidate *t = &w->out->candidate[i];
  const char *why = 0;
  int crash;

  if (w->open[i]) counter->close(); /* a wanted counter that failed is set up again */
  close_others(w, i); /* marks it open: even a skip may have half-opened something */
  memset(t, 0, sizeof *t);
  t->probe.format = w->format; /* only a trace prints the words */
  t->probe.round = w->round;
  t->setup = counter->setup(&t->probe);
  if (t->setup == CPUCYCLES_SKIP) why = "setup skipped";
  else if (t->probe.may_trap && (crash = cpucycles_guard_read(counter->ticks)))
    why = signal_words(crash);
  else if (t->setup == CPUCYCLES_CYCLECOUNTER) t->penalty = PENALTY_CYCLECOUNTER;
  else if (t->setup == CPUCYCLES_EXTEND32) {
    t->penalty = PENALTY_EXTEND32;
    t->only32 = 1;
  }
  else if (t->setup == CPUCYCLES_MAYBECYCLECOUNTER || t->setup == CPUCYCLES_FINDMULTIPLIER ||
           t->setup > 0)
    t->penalty = PENALTY_OFFCORE;
  else why = "unknown setup class";
  if (why) reject(w, i, why);
  return !why;
}

/* Steps 3 and 4: scaling and precision; the smallest precision wins, an
   earlier counter a tie. */
static void measure(struct work *w, int i)
{
  cpucycles_ticks *ticks = w->table[i].ticks;
  struct cpucycles_candidate *t = &w->out->candidate[i];
  const char *fail;
  long long step;

  t->scaling = t->setup > 0 ? (double) persecond(w) / (double) t->setup : 1;
  if (t->setup == CPUCYCLES_FINDMULTIPLIER &&
      !(t->scaling = find_multiplier(ticks, persecond(w)))) {
    reject(w, i, "its rate is no n/d multiple of persecond");
    return;
  }
  close_others(w, i); /* after persecond, which may have read another counter */
  /* a 32-bit counter (scaling 1) is read raw: its penalty prices the
     extension */
  if (!(step = twin_step(w, i)))
    step = precision(cpucycles_read_trial(ticks, t->scaling, t->probe.monotonic_ns),
                     &w->first_retry, &fail);
  if (!step) { /* a try that failed before one that passed is not a failure */
    reject(w, i, fail);
    return;
  }
  t->step = step;
  t->precision = step + t->penalty + ORDER_BUMP * w->working++;
  t->fail = 0;
  t->unmeasured = 0;
  if (w->out->chosen < 0 || t->precision < w->out->candidate[w->out->chosen].precision)
    w->out->chosen = i;
}

/* A counter that cannot beat the best so far is left unmeasured; such
   counters are measured before any later counter is, which keeps every
   order bump exact whenever it can matter.  The choice is the one
   measuring everything would make, at a fraction of the first call. */
static void try_counter(struct work *w, int i)
{
  struct cpucycles_candidate *all = w->out->candidate;
  int k, best = w->out->chosen;
  if (!set_up(w, i)) return;
  if (!w->format && best >= 0 &&
      SMALLEST_STEP + all[i].penalty + ORDER_BUMP * w->working >= all[best].precision) {
    all[i].fail = "not measured: cannot beat the counter already found";
    all[i].unmeasured = 1;
    return;
  }
  for (k = 0; k < i; ++k)
    if (all[k].unmeasured) measure(w, k);
  measure(w, i);
}
