/* The public entry points.  The first call of cpucycles(),
   cpucycles_persecond() or cpucycles_implementation() runs the selection
   exactly once, even when many threads make it at the same moment; then
   cpucycles points straight at the chosen read function.  The once-only
   logic also survives what a program may do meanwhile: a fork in another
   thread, a pthread_cancel of the selecting thread, a signal handler that
   calls in, and unloading (dlclose).  At the end, the read functions
   cpucycles may point at besides a counter's own ticks. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include "cpucycles.h"
#include "internal.h"

static long long first_call(void);

long long (*cpucycles)(void) = first_call;

/* The ABI makes cpucycles a plain data pointer that callers load without
   synchronisation: the one store of the chosen function (release; a
   caller that still sees first_call waits with an acquire load) is a
   benign race, which tests/tsan.supp tells ThreadSanitizer about. */

enum { NOT_STARTED, RUNNING, DONE }; /* a job's state */

static int selection_state = NOT_STARTED, persecond_state = NOT_STARTED;
/* the jobs of once() this thread runs: 1 selection, 2 persecond */
static CPUCYCLES_THREAD int running_here;
/* the trace printer, set by cpucycles_tracesetup() (trace.c): a program
   that never traces links neither it nor stdio */
static cpucycles_printer *printer;
static cpucycles_format *formatter;
/* a trace asked for and not yet printed: whoever takes it prints it, so
   a request racing with another thread's first call prints once */
static int trace_asked;
static volatile int exiting;
static struct cpucycles_selection selection;

/* One lock per job, robust where the system has them: when the thread
   running a job dies in it (a seccomp filter, a raw SYS_exit), the kernel
   gives the lock to a waiter with EOWNERDEAD, even when the dead thread
   was the main thread (a zombie, still there for tgkill) or its id was
   already reused.  Made robust when the library is loaded and after
   fork; a call before that finds a plain one. */
static pthread_mutex_t selection_lock = PTHREAD_MUTEX_INITIALIZER,
                       persecond_lock = PTHREAD_MUTEX_INITIALIZER;

static void make_lock(pthread_mutex_t *lock)
{
  pthread_mutexattr_t robust;
  if (pthread_mutexattr_init(&robust) != 0) return;
#ifdef CPUCYCLES_HAVE_ROBUST_MUTEX
  pthread_mutexattr_setrobust(&robust, PTHREAD_MUTEX_ROBUST);
#endif
  pthread_mutex_init(lock, &robust);
  pthread_mutexattr_destroy(&robust);
}

/* Runs job exactly once per process; callers that lose the race wait on
   the lock (no spinning, which would slow the winner on a busy machine).
   Whoever runs it can neither leave it unfinished nor be waited for in
   vain:
   - signals stay blocked meanwhile, but the synchronous ones (the faults
     the guard needs, a seccomp sandbox's SIGSYS, a debugger's SIGTRAP),
     which blocking would not hold back but turn into a kill; so no
     asynchronous handler runs inside the job, and none can leave it by
     longjmp or pthread_exit: it arrives when the job is done;
   - cancellation is off, so a pthread_cancel takes effect at the
     caller's next cancellation point;
   - a thread killed inside the job passes the lock to a waiter, which
     runs the job itself.
   Returns 0 only to a caller re-entering from inside this thread's own
   run of the same job (a program's handler of a synchronous signal),
   which must not wait for itself.  errno is left as it was found: the
   probes' failed opens set it, and the caller may be about to read it. */
static int once(int *state, pthread_mutex_t *lock, void (*job)(void))
{
  int bit = state == &selection_state ? 1 : 2, cancel;
  int saved = errno;
  sigset_t mask;
  if (__atomic_load_n(state, __ATOMIC_ACQUIRE) == DONE) return 1;
  if (running_here & bit) return 0;
  cpucycles_os_hold_signals(&mask);
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
#ifdef CPUCYCLES_HAVE_ROBUST_MUTEX
  if (pthread_mutex_lock(lock) == EOWNERDEAD) pthread_mutex_consistent(lock);
#else
  pthread_mutex_lock(lock);
#endif
  if (__atomic_load_n(state, __ATOMIC_ACQUIRE) != DONE) {
    running_here |= bit;
    __atomic_store_n(state, RUNNING, __ATOMIC_RELEASE);
    job();
    running_here &= ~bit;
    __atomic_store_n(state, DONE, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(lock);
  pthread_setcancelstate(cancel, &cancel);
  cpucycles_os_release_signals(&mask);
  errno = saved;
  return 1;
}

/* The next call selects again (after a fork that cut a selection short,
   and after dlclose). */
static void start_over(void)
{
  __atomic_store_n(&cpucycles, first_call, __ATOMIC_RELEASE);
  __atomic_store_n(&persecond_state, NOT_STARTED, __ATOMIC_RELEASE);
  __atomic_store_n(&selection_state, NOT_STARTED, __ATOMIC_RELEASE);
}

/* In a child of fork only the forking thread lives on.  A selection that
   another thread was running will never finish there: start afresh, with
   the program's handlers back (perf.c closes the parent's events itself).
   Only async-signal-safe work here. */
static void child_after_fork(void)
{
  if (running_here) return; /* forked by a handler inside our own job */
  make_lock(&selection_lock); /* held, if at all, by a thread the child lacks */
  make_lock(&persecond_lock);
  if (__atomic_load_n(&selection_state, __ATOMIC_ACQUIRE) == RUNNING) {
    cpucycles_guard_forget();
    start_over();
  } else if (__atomic_load_n(&persecond_state, __ATOMIC_ACQUIRE) == RUNNING) {
    __atomic_store_n(&persecond_state, NOT_STARTED, __ATOMIC_RELEASE);
  }
}

/* At exit other threads may still be counting, and the kernel frees
   everything anyway: nothing is taken back.  exit() runs atexit handlers
   before destructors; dlclose runs a library's destructors before its
   atexit handlers (glibc's __cxa_finalize comes last), so the flag tells
   the two apart. */
static void at_exit(void) { exiting = 1; }

/* The fork and exit hooks go in when the library is loaded, before any
   call: registered by the first call, they missed a fork that another
   thread began just as the selection started (fork holds the lock
   pthread_atfork waits for), and that child waited for ever. */
__attribute__((constructor)) static void load(void)
{
  make_lock(&selection_lock);
  make_lock(&persecond_lock);
  pthread_atfork(0, 0, child_after_fork);
  atexit(at_exit);
}

/* dlclose: give back the chosen counter's fds and mapping.  Were the
   library still called (it is not unloaded while others hold it), the
   next call would select again. */
__attribute__((destructor)) static void unload(void)
{
  if (exiting || __atomic_load_n(&selection_state, __ATOMIC_ACQUIRE) != DONE) return;
  start_over();
  cpucycles_counters[selection.chosen].close();
}

static void print_trace(void);

static void select_job(void)
{
  cpucycles_format *format = __atomic_load_n(&formatter, __ATOMIC_ACQUIRE);
  cpucycles_select(cpucycles_counters, cpucycles_counter_count, format, &selection);
  /* the release store publishes the chosen counter's state with it */
  __atomic_store_n(&cpucycles, selection.read, __ATOMIC_RELEASE);
  print_trace();
}

static long long first_call(void)
{
  if (!once(&selection_state, &selection_lock, select_job)) return 0;
  return __atomic_load_n(&cpucycles, __ATOMIC_ACQUIRE)();
}

/* Selection asks for persecond only when a counter needs scaling; if it
   did not, the estimate is made here, at the first cpucycles_persecond().
   Where the OS states no rate and a core cycle counter was chosen, its
   rate is measured instead (a few ms): also when a scaled counter earlier
   in the list took the default before this one had worked, since the
   chosen counter is unscaled and its own rate is the one to report.  A
   chosen counter read tick for tick (a TSC of unknown rate) has no rate
   to give: a working core cycle counter that lost gives it, as a trace,
   which measures every counter, finds it; read again, it is closed again. */
static void persecond_job(void)
{
  struct cpucycles_selection *s = &selection;
  int k = cpucycles_persecond_decide(cpucycles_counters, s, s->chosen, s->chosen + 1);
  if (k < 0 && s->candidate[s->chosen].scaling == 1)
    k = cpucycles_persecond_decide(cpucycles_counters, s, 0, s->count);
  if (k >= 0 && k != s->chosen) cpucycles_counters[k].close();
}

/* this thread's estimate from a handler inside its own first call */
static CPUCYCLES_THREAD long long reentered;

long long cpucycles_persecond(void)
{
  const char *source;
  /* re-entered from a handler inside the first call: estimate afresh,
     once per thread (a handler run by a fast timer must not spend its
     whole interval reading files, or the first call never ends) */
  if (!once(&selection_state, &selection_lock, select_job) ||
      !once(&persecond_state, &persecond_lock, persecond_job)) {
    if (!reentered) reentered = cpucycles_persecond_estimate(&source);
    return reentered;
  }
  return selection.persecond;
}

const char *cpucycles_implementation(void)
{
  /* re-entered from a handler inside the first call: the last resort */
  if (!once(&selection_state, &selection_lock, select_job))
    return cpucycles_counters[cpucycles_counter_count - 1].name;
  return cpucycles_counters[selection.chosen].name;
}

/* Asked for before the first call, the trace is printed by that call,
   which then measures every counter.  A chosen counter with a stated
   rate is timed for it here (the trace says when the rate is off), not
   in the first call, which must not wait, nor in cpucycles_persecond(),
   whose callers would wait for a line they never see.  A handler inside
   this thread's persecond estimate prints nothing: persecond is not made. */
static void print_trace(void)
{
  struct cpucycles_selection *s = &selection;
  if (!__atomic_exchange_n(&trace_asked, 0, __ATOMIC_SEQ_CST)) return;
  if (!once(&persecond_state, &persecond_lock, persecond_job)) return;
  if (s->candidate[s->chosen].precision && s->candidate[s->chosen].setup > 0)
    cpucycles_rate(cpucycles_counters, s, s->chosen);
  printer(cpucycles_counters, s);
}

void cpucycles_trace_ask(cpucycles_printer *print, cpucycles_format *format)
{
  printer = print;
  __atomic_store_n(&formatter, format, __ATOMIC_RELEASE);
  __atomic_store_n(&trace_asked, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&selection_state, __ATOMIC_SEQ_CST) != NOT_STARTED &&
      once(&selection_state, &selection_lock, select_job))
    print_trace();
}

/* ---- the reads ----

   The read functions cpucycles() may point at besides a counter's own
   ticks: an off-core clock scaled to cycles, and a 32-bit counter extended
   to 64 bits.  What they need is set at selection, before the release
   store of cpucycles; each read loads cpucycles again with acquire, so a
   thread that found it already set (the caller's plain load) sees the
   setting whole (on x86 a plain load; arm64 and POWER could otherwise
   show it stale).
   The precision test reads through a setting of its own, which no other
   thread can reach: a candidate's scaling is never what another thread
   sees. */

#define WRAP 4294967296.0

struct reading {
  cpucycles_ticks *raw;
  unsigned long long mult; /* scaled: base + (ticks - from) * mult >> shift */
  int shift;
  long long from, base;
  long long sec0, per_second; /* the monotonic clock: seconds apart from nanoseconds */
  double ticks_per_ns;        /* extended: the counter's rate, and its start */
  long long start_value, start_ns;
};
static struct reading trial, used; /* the precision test's; the chosen counter's */

static const struct reading *reading(void)
{
  (void) __atomic_load_n(&cpucycles, __ATOMIC_ACQUIRE);
  return &used;
}

/* In integers as kernel clocksources scale: 32 significant bits of the
   scaling, and no overflow for any gap whose result fits (the product is
   taken in two 32-bit halves).  from is the ticks seen at selection; base
   is from scaled (modulo 2^62), so that two processes get comparable
   counts. */
static unsigned long long scale_up(const struct reading *r, unsigned long long d)
{
  unsigned long long hi = (d >> 32) * r->mult, lo = (d & 0xffffffffULL) * r->mult;
  return (hi << (32 - r->shift)) + (lo >> r->shift);
}

static long long scaled(const struct reading *r)
{
  unsigned long long d = (unsigned long long) (r->raw() - r->from);
  if (d < 1ULL << 32) return r->base + (long long) ((d * r->mult) >> r->shift); /* the usual gap */
  return r->base +
         ((long long) d >= 0 ? (long long) scale_up(r, d) : -(long long) scale_up(r, 0ULL - d));
}

/* default-monotonic: the clock read here rather than through its ticks(),
   a call less per read.  Whole seconds scale exactly; nanoseconds
   (below 2^30) times mult (below 2^32) cannot overflow, and their error
   stays below one cycle per second's step, so counts never go back. */
static long long clock_scaled(const struct reading *r)
{
  struct timespec t;
  if (clock_gettime(CLOCK_MONOTONIC, &t) != 0) return r->base;
  return r->base + (t.tv_sec - r->sec0) * r->per_second +
         (long long) (((unsigned long long) t.tv_nsec * r->mult) >> r->shift);
}

long long cpucycles_read_scaled(void) { return scaled(reading()); }
long long cpucycles_read_clock(void) { return clock_scaled(reading()); }
static long long trial_scaled(void) { return scaled(&trial); }
static long long trial_clock(void) { return clock_scaled(&trial); }

/* A 32-bit counter extended to 64 bits: the clock says how many ticks
   should have passed since this thread's previous read, at the counter's
   own rate measured at selection, which says how many times the low 32
   bits wrapped. */
static CPUCYCLES_THREAD long long last_value, last_ns;
static CPUCYCLES_THREAD int last_set;

long long cpucycles_read_extended(void)
{
  const struct reading *r = reading();
  unsigned long long low = (unsigned long long) r->raw() & 0xffffffffULL;
  long long now = cpucycles_os_nanoseconds();
  long long value = last_set ? last_value : r->start_value, then = last_set ? last_ns : r->start_ns;
  long long moved = (long long) ((low - (unsigned long long) value) & 0xffffffffULL);
  double wraps = ((double) (now - then) * r->ticks_per_ns - (double) moved) / WRAP + 0.5;

  value += moved + (wraps < 1 ? 0 : (long long) wraps) * 4294967296LL;
  last_value = value;
  last_ns = now;
  last_set = 1;
  return value;
}

/* Sets r to scale ticks and returns the read through it: ticks itself at
   scaling 1, the monotonic clock read directly where clock says ticks is it */
static cpucycles_ticks *set_scale(struct reading *r, cpucycles_ticks *ticks, double scaling,
                                  int clock)
{
  struct timespec t;
  if (scaling == 1) return ticks;
  r->raw = ticks;
  for (r->shift = 32; r->shift > 0 && scaling * (double) (1ULL << r->shift) >= WRAP; --r->shift)
    continue;
  r->mult = (unsigned long long) (scaling * (double) (1ULL << r->shift) + 0.5);
  if (clock && clock_gettime(CLOCK_MONOTONIC, &t) == 0) {
    r->sec0 = t.tv_sec;
    r->per_second = (long long) (scaling * 1e9 + 0.5);
    r->base = (long long) (((unsigned long long) t.tv_sec * (unsigned long long) r->per_second) &
                           ((1ULL << 62) - 1));
    return r == &trial ? trial_clock : cpucycles_read_clock;
  }
  r->from = ticks();
  /* positive, and the same in every process (the product mod 2^64 is exact) */
  r->base = r->from > 0
                ? (long long) (scale_up(r, (unsigned long long) r->from) & ((1ULL << 62) - 1))
                : 0;
  return r == &trial ? trial_scaled : cpucycles_read_scaled;
}

cpucycles_ticks *cpucycles_read_trial(cpucycles_ticks *ticks, double scaling, int clock)
{
  return set_scale(&trial, ticks, scaling, clock);
}

cpucycles_ticks *cpucycles_read_use(cpucycles_ticks *ticks, double scaling, int only32, double hz,
                                    int clock)
{
  /* the caller's release store of cpucycles publishes used */
  if (!only32) return set_scale(&used, ticks, scaling, clock);
  used.raw = ticks;
  used.ticks_per_ns = hz / 1e9;
  used.start_value = (long long) ((unsigned long long) ticks() & 0xffffffffULL);
  used.start_ns = cpucycles_os_nanoseconds();
  last_set = 0;
  return cpucycles_read_extended;
}
