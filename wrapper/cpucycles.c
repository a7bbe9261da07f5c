/* The public entry points.  The first call of cpucycles(),
   cpucycles_persecond() or cpucycles_implementation() runs the selection
   exactly once, even when many threads make it at the same moment; then
   cpucycles points straight at the chosen read function.  The once-only
   logic also survives what a program may do meanwhile: a fork in another
   thread, a pthread_cancel of the selecting thread, a signal handler that
   calls in, and unloading (dlclose). */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* syscall() */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif
#include "cpucycles.h"
#include "internal.h"

static long long first_call(void);

long long (*cpucycles)(void) = first_call;

/* The ABI makes cpucycles a plain data pointer that callers load without
   synchronisation: the one store of the chosen function (release; a
   caller that still sees first_call waits with an acquire load) is a
   benign race, which tests/tsan.supp tells ThreadSanitizer about. */

#define NOT_STARTED 0
#define RUNNING 1
#define DONE 2
#define WAIT_FIRST_NS 1000  /* a waiter sleeps 1 microsecond, then ... */
#define WAIT_MOST_NS 256000 /* ... twice as long each time, up to this */

static int selection_state = NOT_STARTED, selection_owner;
static int persecond_state = NOT_STARTED, persecond_owner;
static CPUCYCLES_THREAD int running_here; /* the jobs of once() this thread runs: 1 selection, 2 persecond */
static int trace_wanted;
static volatile int exiting;
static struct cpucycles_selection selection;

/* The kernel's id of this thread, and whether a thread of this process
   with that id is gone (0 where the OS cannot say). */
static int thread_id(void)
{
#if defined(__linux__) && defined(SYS_gettid)
  return (int) syscall(SYS_gettid);
#else
  return 0;
#endif
}

static int thread_gone(int tid)
{
#if defined(__linux__) && defined(SYS_tgkill)
  return tid > 0 && syscall(SYS_tgkill, (int) getpid(), tid, 0) != 0 && errno == ESRCH;
#else
  (void) tid;
  return 0;
#endif
}

/* mine marks the job as this thread's while it runs it (and only then:
   a thread that waits is not running it, and a handler there must wait) */
static void run(int *state, int *owner, void (*job)(void), int mine)
{
  int cancel;
  __atomic_store_n(owner, thread_id(), __ATOMIC_RELEASE);
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
  running_here |= mine;
  job();
  running_here &= ~mine;
  __atomic_store_n(state, DONE, __ATOMIC_RELEASE);
  pthread_setcancelstate(cancel, &cancel);
}

/* Runs job exactly once per process; callers that lose the race sleep
   until the winner is done (spinning would slow it on a busy machine).
   Whoever runs it can neither leave it unfinished nor be waited for in
   vain:
   - signals stay blocked meanwhile (but the faults, which the guard
     needs and which no mask holds back), so no handler runs inside the
     job, and none can leave it by longjmp or pthread_exit; a signal
     arrives when the job is done;
   - cancellation is off, so a pthread_cancel takes effect at the
     caller's next cancellation point;
   - a thread killed inside the job (a seccomp filter, a raw exit) is
     noticed by a waiter, which runs the job itself.
   Returns 0 only to a caller re-entering from inside this thread's own
   run of the same job (a program's handler of a fault the guard passed
   on), which must not wait for itself. */
static int once(int *state, int *owner, void (*job)(void))
{
  int expected = NOT_STARTED, mine = state == &selection_state ? 1 : 2, them;
  long wait_ns = WAIT_FIRST_NS;
  sigset_t all, mask;
  if (__atomic_load_n(state, __ATOMIC_ACQUIRE) == DONE) return 1;
  if (running_here & mine) return 0;
  sigfillset(&all);
  sigdelset(&all, SIGILL);
  sigdelset(&all, SIGFPE);
  sigdelset(&all, SIGBUS);
  sigdelset(&all, SIGSEGV);
  pthread_sigmask(SIG_BLOCK, &all, &mask);
  if (__atomic_compare_exchange_n(state, &expected, RUNNING, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    run(state, owner, job, mine);
  } else {
    while (__atomic_load_n(state, __ATOMIC_ACQUIRE) != DONE) {
      struct timespec pause;
      pause.tv_sec = 0;
      pause.tv_nsec = wait_ns;
      nanosleep(&pause, 0);
      if (wait_ns < WAIT_MOST_NS)
        wait_ns *= 2;
      else if (thread_gone(them = __atomic_load_n(owner, __ATOMIC_ACQUIRE)) &&
               __atomic_compare_exchange_n(owner, &them, -1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) &&
               __atomic_load_n(state, __ATOMIC_ACQUIRE) != DONE) /* it may have finished, then ended */
        run(state, owner, job, mine);
    }
  }
  pthread_sigmask(SIG_SETMASK, &mask, 0);
  return 1;
}

/* In a child of fork only the forking thread lives on.  A selection that
   another thread was running will never finish there: start afresh, with
   the program's handlers back (perf.c closes the parent's events itself).
   Only async-signal-safe work here. */
static void child_after_fork(void)
{
  if (running_here) return; /* forked by a handler inside our own job */
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
static void at_exit(void)
{
  exiting = 1;
}

/* The fork and exit hooks go in when the library is loaded, before any
   call: registered by the first call, they missed a fork that another
   thread began just as the selection started (fork holds the lock
   pthread_atfork waits for), and that child waited for ever. */
__attribute__((constructor)) static void load(void)
{
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
  struct cpucycles_select_options options;
  options.persecond = cpucycles_persecond_estimate;
  options.wanted = cpucycles_os_getenv("CPUCYCLES_IMPLEMENTATION");
  options.measure_all = trace_wanted;
  cpucycles_select(cpucycles_counters, cpucycles_counter_count, &options, &selection);
  /* the release store publishes the chosen counter's state with it */
  __atomic_store_n(&cpucycles, selection.read, __ATOMIC_RELEASE);
  if (trace_wanted) print_trace();
}

static long long first_call(void)
{
  if (!once(&selection_state, &selection_owner, select_job)) return 0;
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
  struct cpucycles_selection *s = &selection;
  if (!s->persecond) s->persecond = cpucycles_persecond_estimate(&s->persecond_source);
  cpucycles_persecond_measured(cpucycles_counters, s, s->chosen);
}

/* this thread's estimate from a handler inside its own first call */
static CPUCYCLES_THREAD long long reentered;

long long cpucycles_persecond(void)
{
  const char *source;
  /* re-entered from a handler inside the first call: estimate afresh,
     once per thread (a handler run by a fast timer must not spend its
     whole interval reading files, or the first call never ends) */
  if (!once(&selection_state, &selection_owner, select_job) || !once(&persecond_state, &persecond_owner, persecond_job)) {
    if (!reentered) reentered = cpucycles_persecond_estimate(&source);
    return reentered;
  }
  return selection.persecond;
}

const char *cpucycles_implementation(void)
{
  /* re-entered from a handler inside the first call: the last resort */
  if (!once(&selection_state, &selection_owner, select_job)) return cpucycles_counters[cpucycles_counter_count - 1].name;
  return cpucycles_counters[selection.chosen].name;
}

const char *cpucycles_version(void)
{
  return "20261202";
}

/* Asked for before the first call, the trace is printed by that call,
   which then measures every counter.  A chosen counter with a stated
   rate is timed for it here (the trace says when the rate is off), not
   in the first call, which must not wait, nor in cpucycles_persecond(),
   whose callers would wait for a line they never see. */
static void print_trace(void)
{
  struct cpucycles_selection *s = &selection;
  once(&persecond_state, &persecond_owner, persecond_job);
  if (s->trace[s->chosen].precision && s->trace[s->chosen].setup > 0) cpucycles_rate(cpucycles_counters, s, s->chosen);
  cpucycles_trace_print(cpucycles_counters, s);
}

void cpucycles_tracesetup(void)
{
  if (__atomic_load_n(&selection_state, __ATOMIC_ACQUIRE) == NOT_STARTED)
    trace_wanted = 1;
  else if (once(&selection_state, &selection_owner, select_job))
    print_trace();
}
