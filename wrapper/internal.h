/* Declarations shared inside the library (all hidden by -fvisibility=hidden). */
#ifndef CPUCYCLES_INTERNAL_H
#define CPUCYCLES_INTERNAL_H

#include "classes.h"
#include "cpucycles-config.h"

/* One row of the counter table; build/ARCH/counters.c is generated from
   cpucycles/options in list order, holding the counters that compiled. */
struct cpucycles_counter {
  const char *name;
  long long (*setup)(void);
  long long (*ticks)(void);
  void (*close)(void);
};

/* The generated table ends with a row whose name is 0.  (No separate
   count: a constant would live in .rodata, a page the first call would
   otherwise never touch; see doc/selection.md on first-call time.) */
extern const struct cpucycles_counter cpucycles_counters[];

#define CPUCYCLES_MAXCOUNTERS 16 /* a host compiles a dozen at most; configure checks */

/* What selection learned about one counter (one tracesetup line). */
struct cpucycles_trace {
  long long setup;     /* ticks_setup() result, or 0 if it crashed */
  long long precision; /* 0: not usable */
  double scaling;      /* persecond per tick; 0: read as it is (printed as 1
                          if it works), setup skipped, or no scaling fits.
                          Not 1, so that the usual case reads no constant
                          from .rodata (doc/selection.md, first-call time) */
  int only32;
  int crash;           /* signal number if a probe crashed */
  const char *says;    /* the counter's own words (cpucycles_counter_says) */
  const char *fail;    /* the wrapper's words when the counter was dropped */
};

struct cpucycles_selection {
  long long persecond;         /* 0 if selection never needed it */
  const char *persecond_source;
  int chosen;                  /* index into the table */
  long long (*read)(void);     /* what cpucycles will point at */
  int count;
  const char *wanted;          /* CPUCYCLES_IMPLEMENTATION, if set */
  const char *wanted_refused;  /* why it was not used, if it was not */
  struct cpucycles_trace trace[CPUCYCLES_MAXCOUNTERS];
};

struct cpucycles_select_options {
  /* the persecond estimate, asked only when a counter needs it */
  long long (*persecond)(const char **source);
  const char *wanted;  /* a counter name to use if it works, or 0 */
  int measure_all;     /* measure even counters that cannot win (tracing) */
};

/* select.c: the whole rule, SPEC 3.  Fills *out; never fails. */
void cpucycles_select(const struct cpucycles_counter *table, int count,
                      const struct cpucycles_select_options *options,
                      struct cpucycles_selection *out);

/* read.c: the functions cpucycles may point at, around a raw counter
   (scaling 0: none, the raw ticks). */
void cpucycles_read_use(long long (*raw)(void), double scaling, int only32,
                        long long persecond);
long long cpucycles_read_scaled(void);
long long cpucycles_read_extended(void);
long long (*cpucycles_read_function(double scaling, int only32, long long (*raw)(void)))(void);

/* multiplier.c: FINDMULTIPLIER. Returns the scaling, or 0 if none fits. */
double cpucycles_find_multiplier(long long (*raw)(void), long long persecond);

/* guard.c */
void cpucycles_guard_install(void);
void cpucycles_guard_restore(void);
int cpucycles_guard_run(void (*probe)(void *), void *arg);

/* persecond.c */
int cpucycles_persecond_sane(long long hz);
long long cpucycles_persecond_estimate(const char **source);
long long cpucycles_persecond_from_file(const char *path, int exp10);
/* the first sane rate in cpuinfo text (0 for none, or for no text) */
long long cpucycles_persecond_from_cpuinfo(const char *text);

/* cpucycles.c: the selection made by the first call, for cpucycles-info. */
const struct cpucycles_selection *cpucycles_selection(void);

#endif
