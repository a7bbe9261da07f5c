/* The contract between the wrapper and the counters.
 *
 * A counter file defines three functions: ticks_setup() probes and returns
 * a class below, ticks() reads, ticks_close() releases what setup took.  The
 * build compiles cpucycles/amd64-tsc.c with -DCOUNTER=amd64_tsc, and the
 * macros below name the three cpucycles_amd64_tsc_setup, _ticks and _close:
 * those are the names in the generated table build/ARCH/counters.c, and
 * tests/integration/symbols.sh checks each object defines exactly them. */
#ifndef CPUCYCLES_COUNTER_H
#define CPUCYCLES_COUNTER_H

#include <stdarg.h>
#include "os.h"


/* ticks_setup() results */
#define CPUCYCLES_SKIP 0                 /* not usable here */
#define CPUCYCLES_CYCLECOUNTER (-1)      /* hardware core-cycle counter, 64 bits */
#define CPUCYCLES_MAYBECYCLECOUNTER (-2) /* perhaps off-core (TSC, rate unknown) */
#define CPUCYCLES_FINDMULTIPLIER (-3)    /* off-core clock, rate to be measured */
#define CPUCYCLES_EXTEND32 (-4)          /* core-cycle counter, only 32 bits */
/* > 0: an off-core clock with that many ticks per second */

/* What setup reports besides its class.  Its words are made only where
   the caller gave a formatter (vsnprintf, when a trace asked before the
   selection): formatting in every first call cost more than the rest of
   the rule, and a program that never traces links no printf. */
#define CPUCYCLES_WORDS 160
typedef int cpucycles_format(char *text, size_t size, const char *format, va_list args);
struct cpucycles_probe {
  cpucycles_format *format;  /* set by the caller: vsnprintf to keep the words; 0: none */
  char words[CPUCYCLES_WORDS]; /* why it skipped, or where its rate came from; "" if unsaid */
  int may_trap;  /* ticks() may fault here (SIGILL...): the wrapper tries one
                    read under its crash guard.  Setup itself never runs an
                    instruction that may fault. */
  int monotonic_ns; /* ticks() is CLOCK_MONOTONIC in nanoseconds: a scaled
                       read may read the clock itself (wrapper/cpucycles.c) */
  int need; /* what a skip needs, for the trace's verdict: one of these */
  const char *twin; /* an earlier counter whose ticks() runs the same instruction
                       at the same rate: its step stands for this one's */
  unsigned int round; /* set by the caller: the selection this probe is part
                         of, whose probes may share what they asked the
                         machine (a CPUID leaf, a refused open); 0: none */
};
/* NEED_PMU: no PMU is exposed here (a guest); NEED_OPEN: a knob that
   cpucycles-open sets stands in the way */
enum { CPUCYCLES_NEED_NOTHING, CPUCYCLES_NEED_PMU, CPUCYCLES_NEED_OPEN };

/* printf-style into probe->words, through probe->format (cpucycles/probe.c).
   Returns 0 (CPUCYCLES_SKIP): a skip is said and returned in one. */
CPUCYCLES_COLD int cpucycles_say(struct cpucycles_probe *probe, const char *format, ...);

/* The number a kernel knob file such as /proc/sys/kernel/perf_user_access
   starts with (a sign allowed): 1 and *value, or 0 where there is no such
   file or number. */
CPUCYCLES_COLD int cpucycles_read_knob(const char *path, long *value);
#define CPUCYCLES_PERF_USER_ACCESS "/proc/sys/kernel/perf_user_access"

/* The one number parser: "DIGITS[.DIGITS]" at s, and where exponent is
   set also "2.4e9" forms, times 10^exp10, rounded half up, into *out,
   exactly.  Returns the first character after the number, or 0 if there
   is no digit, a bare exponent mark, or a value past 10^18. */
CPUCYCLES_COLD const char *cpucycles_decimal(const char *s, int exp10, int exponent,
                                             long long *out);

/* The first nonzero value(VALUE, eol) over the lines
   "KEY<blanks>:<blanks>VALUE" of /proc/cpuinfo whose KEY is keys[*key]
   (the list ends with 0), eol being the line's end; read into text (size
   bytes, the first piece at most first), no further than most bytes; 0
   if none. */
CPUCYCLES_COLD long long cpucycles_cpuinfo(const char *const keys[],
                                           long long (*value)(const char *s, const char *eol),
                                           char *text, size_t size, size_t first, long most,
                                           int *key);

/* The body of ticks() for a 64-bit counter that 32-bit code reads in
   halves with the instructions HIGH and LOW: high, low, high again, until
   the high half held still (the low half did not carry in between). */
#define CPUCYCLES_HALVES(HIGH, LOW)                \
  unsigned int hi, lo, again;                      \
  do {                                             \
    __asm__ __volatile__(HIGH " %0" : "=r"(hi));   \
    __asm__ __volatile__(LOW " %0" : "=r"(lo));    \
    __asm__ __volatile__(HIGH " %0" : "=r"(again)); \
  } while (hi != again);                           \
  return (long long) (((unsigned long long) hi << 32) | lo)

/* A counter's read, and every read cpucycles() may point at. */
typedef long long cpucycles_ticks(void);

/* One row of the counter table, generated from cpucycles/options in list
   order with the counters that compiled for this host. */
struct cpucycles_counter {
  const char *name;
  long long (*setup)(struct cpucycles_probe *);
  cpucycles_ticks *ticks;
  void (*close)(void); /* idempotent: also called on a counter never set up */
};
extern const struct cpucycles_counter cpucycles_counters[];
extern const int cpucycles_counter_count;

#ifdef COUNTER
#define COUNTER_PASTE(a, b, c) a##b##c
#define COUNTER_NAME(id, suffix) COUNTER_PASTE(cpucycles_, id, suffix)
#define ticks_setup COUNTER_NAME(COUNTER, _setup)
#define ticks COUNTER_NAME(COUNTER, _ticks)
#define ticks_close COUNTER_NAME(COUNTER, _close)

CPUCYCLES_COLD long long ticks_setup(struct cpucycles_probe *probe);
long long ticks(void);
CPUCYCLES_COLD void ticks_close(void);
#endif

#endif
