/* The public entry points.  The first call of cpucycles(),
   cpucycles_persecond() or cpucycles_implementation() runs the selection
   exactly once, even when many threads make it at the same moment; then
   cpucycles points straight at the chosen read function.  The once-only
   logic also survives what a program may do meanwhile: a fork in another
   thread, a pthread_cancel of the selecting thread, a signal handler that
   calls in, and unloading (dlclose). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
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
    __atomic_store_n(&cpucycles, first_call, __ATOMIC_RELAXED);
    __atomic_store_n(&persecond_state, NOT_STARTED, __ATOMIC_RELAXED);
    __atomic_store_n(&selection_state, NOT_STARTED, __ATOMIC_RELEASE);
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
  __atomic_store_n(&cpucycles, first_call, __ATOMIC_RELEASE);
  __atomic_store_n(&persecond_state, NOT_STARTED, __ATOMIC_RELEASE);
  __atomic_store_n(&selection_state, NOT_STARTED, __ATOMIC_RELEASE);
  cpucycles_counters[selection.chosen].close();
}

static void print_trace(void);

static void select_job(void)
{
  cpucycles_select(cpucycles_counters, cpucycles_counter_count, formatter, &selection);
  /* the release store publishes the chosen counter's state with it */
  __atomic_store_n(&cpucycles, selection.read, __ATOMIC_RELEASE);
  if (printer) print_trace();
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
   chosen counter is unscaled and its own rate is the one to report. */
static void persecond_job(void)
{
  cpucycles_persecond_decide(cpucycles_counters, &selection, selection.chosen,
                             selection.chosen + 1);
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
   whose callers would wait for a line they never see. */
static void print_trace(void)
{
  struct cpucycles_selection *s = &selection;
  once(&persecond_state, &persecond_lock, persecond_job);
  if (s->candidate[s->chosen].precision && s->candidate[s->chosen].setup > 0)
    cpucycles_rate(cpucycles_counters, s, s->chosen);
  printer(cpucycles_counters, s);
}

void cpucycles_trace_ask(cpucycles_printer *print, cpucycles_format *format)
{
  int before = __atomic_load_n(&selection_state, __ATOMIC_ACQUIRE) == NOT_STARTED;
  printer = print;
  formatter = format;
  if (!before && once(&selection_state, &selection_lock, select_job)) print_trace();
}
