/* The public entry points.  The first call of cpucycles(),
   cpucycles_persecond() or cpucycles_implementation() runs the selection
   exactly once, even when many threads make it at the same moment; after
   that cpucycles points straight at the chosen read function. */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <stdio.h>
#include "cpucycles.h"
#include "internal.h"

static long long first_call(void);

long long (*cpucycles)(void) = first_call;

#define NOT_STARTED 0
#define RUNNING 1
#define DONE 2

static int state = NOT_STARTED;
static CPUCYCLES_THREAD int selecting; /* this thread is running selection */
static struct cpucycles_selection selection;

static void select_once(void)
{
  int expected = NOT_STARTED;

  if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) == DONE) return;
  if (__atomic_compare_exchange_n(&state, &expected, RUNNING, 0,
                                  __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    const char *source;
    long long persecond;
    selecting = 1;
    persecond = cpucycles_persecond_estimate(&source);
    cpucycles_select(cpucycles_counters, cpucycles_counters_count,
                     persecond, source, &selection);
    /* The release store publishes the chosen counter's state along with
       the pointer; a caller whose plain load still sees first_call comes
       here and waits on the acquire load of state below. */
    __atomic_store_n(&cpucycles, selection.read, __ATOMIC_RELEASE);
    __atomic_store_n(&state, DONE, __ATOMIC_RELEASE);
    selecting = 0;
    return;
  }
  if (selecting) return; /* re-entered from our own selection: see first_call */
  while (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != DONE) sched_yield();
}

static long long first_call(void)
{
  select_once();
  /* Only a signal handler re-entering during selection gets here early. */
  if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != DONE) return 0;
  return __atomic_load_n(&cpucycles, __ATOMIC_ACQUIRE)();
}

long long cpucycles_persecond(void)
{
  select_once();
  return selection.persecond;
}

const char *cpucycles_implementation(void)
{
  select_once();
  if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != DONE) return "default-zero";
  return cpucycles_counters[selection.chosen].name;
}

const struct cpucycles_selection *cpucycles_selection(void)
{
  select_once();
  return &selection;
}

const struct cpucycles_counter *cpucycles_table(void)
{
  return cpucycles_counters;
}

void cpucycles_tracesetup(void)
{
  int i;
  select_once();
  for (i = 0; i < selection.count; ++i)
    printf("cpucycles tracesetup %d %s precision %lld scaling %f only32 %d\n", i,
           cpucycles_counters[i].name, selection.trace[i].precision,
           selection.trace[i].scaling, selection.trace[i].only32);
}
