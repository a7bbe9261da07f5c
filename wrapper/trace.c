/* The trace that cpucycles_tracesetup() asks for (format in doc/api.md):
   the reference's tracesetup lines and, only where the environment asks
   for them (cpucycles-info does), ours on where persecond came from, what
   became of each counter, what the chosen one counts, and that in words:
   a program that prints its own output after the reference's lines gets
   no others.  Printed only when asked for: a program that never calls
   cpucycles_tracesetup() links none of this, nor stdio. */
#include <stdio.h>
#include <string.h>
#include "cpucycles.h"
#include "internal.h"

#define STATED_TOLERANCE 0.01 /* a stated rate this far from the measured one is said */

/* "cpucycles wanted VARIABLE=VALUE", where VALUE comes from outside and
   is printed safely: at most 64 characters, each outside [a-z0-9.-] as '?' */
static void print_wanted(const char *variable, const char *value)
{
  int i;
  printf("cpucycles wanted %s=", variable);
  for (i = 0; value[i] && i < 64; ++i)
    putchar(strchr("abcdefghijklmnopqrstuvwxyz0123456789-.", value[i]) ? value[i] : '?');
}

/* The class line (setup's class, counter.h), then what would give core
   cycles here: that names the first dropped counter whose probe needs a
   PMU (no_pmu) or cpucycles-open (locked); -1 where none does.  What each
   class means for a number is in cpucycles-info(1).  A class unknown to
   selection never gets here: it drops the counter. */
static void print_verdict(const struct cpucycles_counter *table,
                          const struct cpucycles_selection *s, int no_pmu, int locked)
{
  const char *name = table[s->chosen].name;
  /* the dropped counter the corecycles line names (no PMU outweighs a lock),
     with its words where it has any: none when traced after the first call */
  int named = no_pmu >= 0 ? no_pmu : locked;
  const char *words = named >= 0 ? s->candidate[named].probe.words : "";
  const char *colon = words[0] ? ": " : "";
  long long kind =
      s->candidate[s->chosen].precision ? s->candidate[s->chosen].setup : CPUCYCLES_SKIP;

  if (kind > 0) printf("cpucycles class %s offcore rate %lld\n", name, kind);
  else
    printf("cpucycles class %s %s\n", name,
           kind == CPUCYCLES_CYCLECOUNTER        ? "core"
           : kind == CPUCYCLES_EXTEND32          ? "core32"
           : kind == CPUCYCLES_MAYBECYCLECOUNTER ? "maybecore"
           : kind                                ? "offcore rate measured"
                                                 : "none");
  if (kind == CPUCYCLES_CYCLECOUNTER || kind == CPUCYCLES_EXTEND32)
    printf("cpucycles corecycles yes: %s is a core cycle counter\n", name);
  else if (s->wanted && !s->wanted_refused)
    printf("cpucycles corecycles CPUCYCLES_IMPLEMENTATION chose %s: unset it and run again "
           "to let the library choose\n",
           name);
  else if (no_pmu >= 0)
    printf("cpucycles corecycles not here: no PMU is exposed here, so no core cycle counter "
           "can work and cpucycles-open cannot change that (%s%s%s); in a guest, only the "
           "hypervisor can expose it\n",
           table[named].name, colon, words);
  else if (locked >= 0)
    printf("cpucycles corecycles run cpucycles-open as root, then cpucycles-info again: a "
           "kernel setting keeps a core cycle counter locked (%s%s%s); cpucycles-open(1) says "
           "what that opens to every user\n",
           table[named].name, colon, words);
  else
    printf("cpucycles corecycles none of the core cycle counters compiled in works here; "
           "the counter lines say why\n");
}

void cpucycles_trace_print(const struct cpucycles_counter *table,
                           const struct cpucycles_selection *s)
{
  const char *best = table[s->chosen].name, *wanted;
  int i, no_pmu = -1, locked = -1;
  for (i = 0; i < s->count; ++i)
    printf("cpucycles tracesetup %d %s precision %lld scaling %f only32 %d\n", i, table[i].name,
           s->candidate[i].precision, s->candidate[i].scaling, s->candidate[i].only32);
  if (!cpucycles_os_getenv(CPUCYCLES_REASONS_ENV)) {
    fflush(stdout);
    return;
  }
  printf("cpucycles persecond-source %s", s->persecond_source);
  if (!strcmp(s->persecond_source, "measured"))
    printf(" %s against CLOCK_MONOTONIC", table[s->persecond_counter].name);
  printf("\n");
  if (s->wanted) {
    print_wanted("CPUCYCLES_IMPLEMENTATION", s->wanted);
    printf(" %s%s\n", s->wanted_refused ? "refused: " : "used",
           s->wanted_refused ? s->wanted_refused : "");
  }
  /* the environment's rate is the last source: say when an earlier one won */
  if ((wanted = cpucycles_os_getenv(CPUCYCLES_PERSECOND_ENV)) &&
      strcmp(s->persecond_source, CPUCYCLES_PERSECOND_FROM_ENV)) {
    print_wanted(CPUCYCLES_PERSECOND_ENV, wanted);
    printf(" ignored: %s states the rate\n", s->persecond_source);
  }
  for (i = 0; i < s->count; ++i) {
    const struct cpucycles_candidate *t = &s->candidate[i];
    double off =
        t->measured_hz && t->setup > 0 ? (double) t->measured_hz / (double) t->setup - 1 : 0;
    printf("cpucycles counter %s ", table[i].name);
    if (i == s->chosen && t->precision) printf("chosen: precision %lld", t->precision);
    else if (i == s->chosen) printf("chosen as the last resort: nothing else worked");
    else if (t->precision)
      printf("not chosen: precision %lld, %s has %lld", t->precision, best,
             s->candidate[s->chosen].precision);
    else { /* dropped; its probe's need, not its words, says what would help */
      printf("dropped: %s", t->fail ? t->fail : "unknown");
      if (no_pmu < 0 && t->probe.need == CPUCYCLES_NEED_PMU) no_pmu = i;
      if (locked < 0 && t->probe.need == CPUCYCLES_NEED_OPEN) locked = i;
    }
    printf("%s%s", t->probe.words[0] ? "; " : "", t->probe.words);
    if (off > STATED_TOLERANCE || off < -STATED_TOLERANCE)
      printf("; its stated rate %lld disagrees with %lld measured", t->setup, t->measured_hz);
    printf("\n");
  }
  print_verdict(table, s, no_pmu, locked);
  fflush(stdout);
}

void cpucycles_tracesetup(void)
{
  cpucycles_trace_ask(cpucycles_trace_print, vsnprintf);
}
