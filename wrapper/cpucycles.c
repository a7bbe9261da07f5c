/* The public entry points.  The first call of cpucycles(),
   cpucycles_persecond() or cpucycles_implementation() runs the selection
   exactly once, even when many threads make it at the same moment; after
   that cpucycles points straight at the chosen read function, so the
   steady-state call costs what the counter costs and nothing more. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>
#include <stdio.h>
#include "cpucycles.h"
#include "internal.h"
#include "os.h"

static long long first_call(void);

long long (*cpucycles)(void) = first_call;

/* The ABI makes cpucycles a plain data pointer that callers load without
   synchronisation, so the one store of the chosen function races, in the
   C memory model, with a caller's load in another thread.  The race is
   benign: the store is a single aligned pointer write (release), and a
   caller that still sees first_call waits in once() with an acquire load.
   ThreadSanitizer builds are told about exactly this one pointer, so that
   every other access stays checked (tests/integration/tsan.sh). */
#if defined(__SANITIZE_THREAD__)
#define CPUCYCLES_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CPUCYCLES_TSAN 1
#endif
#endif
#ifdef CPUCYCLES_TSAN
void AnnotateBenignRaceSized(const char *file, int line, const volatile void *mem,
                             unsigned long size, const char *description);
#define ABI_POINTER_RACE() \
  AnnotateBenignRaceSized(__FILE__, __LINE__, &cpucycles, sizeof cpucycles, "cpucycles ABI pointer")
#else
#define ABI_POINTER_RACE()
#endif

#define NOT_STARTED 0
#define RUNNING 1
#define DONE 2

static int selection_state = NOT_STARTED;
static int persecond_state = NOT_STARTED;
static CPUCYCLES_THREAD int running_here; /* this thread is inside once() */
static int trace_wanted;
static struct cpucycles_selection selection;

/* Runs job exactly once per process; callers that lose the race wait for
   the winner.  Returns 0 only to a caller re-entering from inside the job
   on the same thread (a signal handler), which must not wait for itself. */
#define WAIT_FIRST_NS 1000      /* a waiter sleeps 1 microsecond, then ... */
#define WAIT_MOST_NS 256000     /* ... twice as long each time, up to this */

static int once(int *state, void (*job)(void))
{
  int expected = NOT_STARTED;
  long wait_ns = WAIT_FIRST_NS;
  if (__atomic_load_n(state, __ATOMIC_ACQUIRE) == DONE) return 1;
  if (__atomic_compare_exchange_n(state, &expected, RUNNING, 0,
                                  __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    running_here = 1;
    job();
    running_here = 0;
    __atomic_store_n(state, DONE, __ATOMIC_RELEASE);
    return 1;
  }
  if (running_here) return 0;
  /* Wait asleep, not spinning: on a machine with fewer cores than waiting
     threads, spinning waiters would slow the selection they wait for and
     disturb its timing. */
  while (__atomic_load_n(state, __ATOMIC_ACQUIRE) != DONE) {
    struct timespec pause;
    pause.tv_sec = 0;
    pause.tv_nsec = wait_ns;
    nanosleep(&pause, 0);
    if (wait_ns < WAIT_MOST_NS) wait_ns *= 2;
  }
  return 1;
}

/* Writable, so it sits on the data page that loading already touched;
   as a literal it would be the first call's only read of .rodata, a page
   fault (over 10 microseconds in a virtual machine). */
static char wanted_name[] = "CPUCYCLES_IMPLEMENTATION";

static void select_job(void)
{
  struct cpucycles_select_options options;
  int count = 0;
  ABI_POINTER_RACE();
  while (cpucycles_counters[count].name) ++count;
  options.persecond = cpucycles_persecond_estimate;
  options.wanted = cpucycles_os.getenv(wanted_name);
  options.measure_all = trace_wanted;
  cpucycles_select(cpucycles_counters, count, &options, &selection);
  /* The release store publishes the chosen counter's state along with the
     pointer.  A caller whose plain load still sees first_call comes here
     and waits on the acquire load in once(). */
  __atomic_store_n(&cpucycles, selection.read, __ATOMIC_RELEASE);
}

static long long first_call(void)
{
  if (!once(&selection_state, select_job)) return 0;
  return __atomic_load_n(&cpucycles, __ATOMIC_ACQUIRE)();
}

const struct cpucycles_selection *cpucycles_selection(void)
{
  once(&selection_state, select_job);
  return &selection;
}

/* Selection asks for persecond only when a counter needs scaling; if it
   did not, the estimate is made on the first cpucycles_persecond(). */
static void persecond_job(void)
{
  if (!selection.persecond)
    selection.persecond = cpucycles_persecond_estimate(&selection.persecond_source);
}

long long cpucycles_persecond(void)
{
  if (!once(&selection_state, select_job)) return 0;
  if (!once(&persecond_state, persecond_job)) return 0;
  return selection.persecond;
}

const char *cpucycles_implementation(void)
{
  if (!once(&selection_state, select_job)) return "default-zero";
  return cpucycles_counters[selection.chosen].name;
}

void cpucycles_tracesetup(void)
{
  int i;
  /* Called before the first call, the trace measures every counter;
     afterwards it shows what the (shorter) selection measured. */
  if (__atomic_load_n(&selection_state, __ATOMIC_ACQUIRE) == NOT_STARTED) trace_wanted = 1;
  if (!once(&selection_state, select_job)) return;
  for (i = 0; i < selection.count; ++i) {
    const struct cpucycles_trace *t = &selection.trace[i];
    double scaling = t->scaling ? t->scaling : t->precision ? 1 : 0;
    printf("cpucycles tracesetup %d %s precision %lld scaling %f only32 %d\n", i,
           cpucycles_counters[i].name, t->precision, scaling, t->only32);
  }
}
