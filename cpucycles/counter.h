/* What every counter file includes.
 *
 * A counter defines three functions: ticks_setup() probes and returns one of
 * the classes below, ticks() reads, ticks_close() releases what setup took.
 * The build compiles cpucycles/amd64-tsc.c with -DCOUNTER=amd64_tsc, and the
 * macros below rename the three to cpucycles_amd64_tsc_setup, _ticks and
 * _close: those are the names in the generated table build/ARCH/counters.c,
 * and tests/integration/symbols.sh checks each object defines exactly them. */
#ifndef CPUCYCLES_COUNTER_H
#define CPUCYCLES_COUNTER_H

#include "classes.h"
#include "os.h"

#ifdef COUNTER
#define COUNTER_PASTE(a, b, c) a##b##c
#define COUNTER_NAME(id, suffix) COUNTER_PASTE(cpucycles_, id, suffix)
#define ticks_setup COUNTER_NAME(COUNTER, _setup)
#define ticks COUNTER_NAME(COUNTER, _ticks)
#define ticks_close COUNTER_NAME(COUNTER, _close)

long long ticks_setup(void);
long long ticks(void);
void ticks_close(void);
#endif

/* A counter may say in plain words why setup skipped, or where its tick rate
   came from; cpucycles-info prints it.  The text must outlive the call (a
   string literal, or static storage). */
void cpucycles_counter_says(const char *why);

#endif
