/* What the wrapper files share (all hidden by -fvisibility=hidden):
   cpucycles.c (the API, the once-only first call, fork and unloading,
   the read functions), select.c (the rule), guard.c (the crash guard),
   persecond.c (the frequency estimate) and trace.c (the trace).
   doc/layout.md is the map. */
#ifndef CPUCYCLES_INTERNAL_H
#define CPUCYCLES_INTERNAL_H

#include "counter.h"
#include "cpucycles-config.h"

#define CPUCYCLES_MAXCOUNTERS 16 /* a host compiles a dozen at most; configure checks */

/* What selection learned about one counter. */
struct cpucycles_candidate {
  long long setup;     /* ticks_setup() result */
  long long precision; /* 0: not usable */
  long long step;      /* the smallest step its precision test saw */
  double scaling;      /* cycles per tick (1: read as it is) */
  long long penalty;   /* its class's, from select.c */
  int only32;
  /* its rate timed against the clock, once asked for (cpucycles_rate), or 0 */
  long long measured_hz;
  const char *fail;    /* the wrapper's words when it dropped the counter */
  int unmeasured;      /* set up, but left unmeasured: it could not win */
  struct cpucycles_probe probe; /* the counter's own words and flags */
};

struct cpucycles_selection {
  long long persecond;        /* 0 until some counter or caller needs it */
  const char *persecond_source;
  int persecond_counter;      /* the counter whose rate was measured, if "measured" */
  int count;                  /* counters in the table */
  int chosen;                 /* index into the table */
  cpucycles_ticks *read;      /* what cpucycles will point at */
  const char *wanted;         /* CPUCYCLES_IMPLEMENTATION, if set */
  const char *wanted_refused; /* why it was not used, if it was not */
  struct cpucycles_candidate candidate[CPUCYCLES_MAXCOUNTERS];
};

/* select.c: the whole rule (SPEC 3) over table: CPUCYCLES_IMPLEMENTATION
   from the environment, persecond estimated only when a counter needs it
   (tests replace both through the OS seam).  With a formatter (vsnprintf:
   a trace asked) every counter is measured and its probe's words made.
   Fills *out; never fails. */
CPUCYCLES_COLD void cpucycles_select(const struct cpucycles_counter *table, int count,
                                     cpucycles_format *format, struct cpucycles_selection *out);

/* guard.c: one read of ticks with faults caught.  Returns 0, or the
   signal that stopped it. */
CPUCYCLES_COLD int cpucycles_guard_read(cpucycles_ticks *ticks);
/* In a child forked while a guard was up: put the program's handlers back. */
CPUCYCLES_COLD void cpucycles_guard_forget(void);

/* cpucycles.c: the function cpucycles() points at for a counter (its own
   ticks, or a scaled read, or a 32-bit counter extended using its rate
   of hz ticks per second), set up to read it now and published; clock
   says ticks is CLOCK_MONOTONIC in nanoseconds, which the scaled read
   then reads itself.  cpucycles_read_trial: the same for the precision
   test, unpublished (scaling 1, as for only32 counters: ticks itself). */
CPUCYCLES_COLD cpucycles_ticks *cpucycles_read_use(cpucycles_ticks *ticks, double scaling,
                                                   int only32, double hz, int clock);
CPUCYCLES_COLD cpucycles_ticks *cpucycles_read_trial(cpucycles_ticks *ticks, double scaling,
                                                     int clock);
long long cpucycles_read_scaled(void);
long long cpucycles_read_clock(void);
long long cpucycles_read_extended(void);

/* cpucycles.c, for cpucycles_tracesetup() in trace.c: print is to print
   the trace, by the first call if it is still to come (which then makes
   the probes' words with format), else now. */
typedef void cpucycles_printer(const struct cpucycles_counter *table,
                               const struct cpucycles_selection *s);
CPUCYCLES_COLD void cpucycles_trace_ask(cpucycles_printer *print, cpucycles_format *format);

/* trace.c: the trace of selection s over table (doc/api.md): the
   reference's lines, and where the environment names CPUCYCLES_REASONS_ENV
   ours, ending with the chosen counter's class and what it means. */
#define CPUCYCLES_REASONS_ENV "CPUCYCLES_TRACE_REASONS"
CPUCYCLES_COLD void cpucycles_trace_print(const struct cpucycles_counter *table,
                                          const struct cpucycles_selection *s);

/* persecond.c: the environment variable that is its last source, and
   the source's name once it was taken */
#define CPUCYCLES_PERSECOND_ENV "cpucyclespersecond"
#define CPUCYCLES_PERSECOND_FROM_ENV "env " CPUCYCLES_PERSECOND_ENV

/* persecond.c: SPEC 3 step 1.  Safe to call from a signal handler. */
CPUCYCLES_COLD long long cpucycles_persecond_estimate(const char **source);

/* persecond.c: s->persecond, made once by the estimate; where that is
   only the default guess, the first working core cycle counter among
   table[from..to) gives its rate instead ("measured", in a few ms).
   Returns that counter's index, or -1 where none was timed here. */
CPUCYCLES_COLD int cpucycles_persecond_decide(const struct cpucycles_counter *table,
                                              struct cpucycles_selection *s, int from, int to);

/* persecond.c: the rate of ticks in ticks per second, over each of
   CPUCYCLES_RATE_WINDOWS windows of 1 ms against the monotonic clock
   (modulo 2^32 where only32), in increasing order. */
#define CPUCYCLES_RATE_WINDOWS 3
CPUCYCLES_COLD void cpucycles_rates(cpucycles_ticks *ticks, int only32,
                                    double hz[CPUCYCLES_RATE_WINDOWS]);

/* persecond.c: counter k's rate, the median window, timed the first time
   it is asked for and kept in s->candidate[k] for whoever asks next (the
   32-bit extension, persecond, the trace's check of a stated rate). */
CPUCYCLES_COLD long long cpucycles_rate(const struct cpucycles_counter *table,
                                        struct cpucycles_selection *s, int k);

#endif
