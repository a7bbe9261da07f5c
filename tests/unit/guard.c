/* The crash guard as a good neighbour in the process, against fake
   counters: a fault is caught even when the caller blocks every signal,
   and the mask comes back exactly; other threads' faults reach their own
   handler with their own siginfo; a handler installed during a probe is
   kept, and one that chains to ours passes the probe's fault back; no
   handler is installed for counters that cannot trap; a signal sent from
   outside during a probe is not swallowed.  Two copies of the guard in one
   process: guard-copies.c.
   test: alone (other threads must fault while it runs). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "fake.h"

#define WINDOW_NS 50000000LL /* a slow probe: 50 ms of real time */
#define TOUCHERS 3
/* Emulated, a toucher rests this long between faults: three threads that
   mprotect and fault without a pause can keep qemu-user's own memory lock
   from the selecting thread (the mips64 row once ran 10 minutes with
   the selection unfinished).  The 50 ms window still sees dozens. */
#define TOUCHER_REST_NS_EMULATED 200000L

static const int guarded[] = { SIGILL, SIGFPE, SIGBUS, SIGSEGV, SIGABRT };
#define GUARDED 5

static struct cpucycles_selection s;

static long long real_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int same_mask(const sigset_t *a, const sigset_t *b)
{
  int sig;
  for (sig = 1; sig < 65; ++sig)
    if (sigismember(a, sig) != sigismember(b, sig)) return 0;
  return 1;
}

static void set_handler(int sig, void (*action)(int, siginfo_t *, void *))
{
  struct sigaction a;
  memset(&a, 0, sizeof a);
  a.sa_sigaction = action;
  a.sa_flags = SA_SIGINFO;
  sigemptyset(&a.sa_mask);
  sigaction(sig, &a, 0);
}

static void set_default(void)
{
  int i;
  for (i = 0; i < GUARDED; ++i) signal(guarded[i], SIG_DFL);
}

/* 1. Every signal blocked: faults are still caught, the mask is the same. */
static void blocked_signals(void)
{
  sigset_t all, before, after, saved;
  fake_reset();
  fake_trapper(0, SIGILL);
  fake_trapper(1, SIGSEGV);
  fake_trapper(2, SIGBUS);
  fake_stepper(3, CPUCYCLES_CYCLECOUNTER, 7);
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &saved);
  pthread_sigmask(SIG_SETMASK, 0, &before);
  fake_select(4, 1000000000, &s);
  pthread_sigmask(SIG_SETMASK, 0, &after);
  pthread_sigmask(SIG_SETMASK, &saved, 0);
  check(crash_of(&s.candidate[0]) == fake_signal(SIGILL) && crash_of(&s.candidate[1]) == SIGSEGV && crash_of(&s.candidate[2]) == fake_signal(SIGBUS) && s.chosen == 3,
        "blocked_signals_faults_caught", "crashes %d %d %d, chosen %d", crash_of(&s.candidate[0]), crash_of(&s.candidate[1]),
        crash_of(&s.candidate[2]), s.chosen);
  check(same_mask(&before, &after), "blocked_signals_mask_restored_exactly", "the mask changed");
}

/* 2. Other threads take handled faults on a protected page while a slow
   probe holds the guard up; each fault must reach their handler with
   SEGV_ACCERR and the page's address. */
static char *page;
static long pagesize;
static volatile int stop, in_window;
static long good, bad, during_window;
static int bad_code;
static void *bad_addr;

static void on_access(int sig, siginfo_t *info, void *context)
{
  (void) sig; (void) context;
  /* the kernel's own report of this fault (some emulators say MAPERR) */
  if (info->si_code > 0 && info->si_addr == (void *) page) {
    __atomic_add_fetch(&good, 1, __ATOMIC_RELAXED);
    if (in_window) __atomic_add_fetch(&during_window, 1, __ATOMIC_RELAXED);
  } else {
    __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
    bad_code = info->si_code;
    bad_addr = info->si_addr;
  }
  mprotect(page, (size_t) pagesize, PROT_READ | PROT_WRITE);
}

static long toucher_rest_ns;

static void *toucher(void *arg)
{
  struct timespec rest = { 0, toucher_rest_ns };
  (void) arg;
  while (!stop) {
    mprotect(page, (size_t) pagesize, PROT_NONE);
    ++*(volatile char *) page;
    if (toucher_rest_ns) nanosleep(&rest, 0);
  }
  return 0;
}

static void slow_window(void)
{
  long long end = real_ns() + WINDOW_NS;
  in_window = 1;
  while (real_ns() < end) continue;
  in_window = 0;
}

static void other_threads_faults(void)
{
  pthread_t t[TOUCHERS];
  int i;
  pagesize = sysconf(_SC_PAGESIZE);
  page = mmap(0, (size_t) pagesize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  set_handler(SIGSEGV, on_access);
  fake_reset();
  fake_stepper(0, CPUCYCLES_CYCLECOUNTER, 5);
  fakes[0].may_trap = 1;
  fakes[0].during = slow_window;
  fake_trapper(1, SIGILL);
  stop = 0;
  toucher_rest_ns = getenv("CPUCYCLES_TEST_EMULATED") ? TOUCHER_REST_NS_EMULATED : 0;
  for (i = 0; i < TOUCHERS; ++i) pthread_create(&t[i], 0, toucher, 0);
  fake_select(2, 1000000000, &s);
  stop = 1;
  for (i = 0; i < TOUCHERS; ++i) pthread_join(t[i], 0);
  check(bad == 0 && good > 0 && during_window > 0, "other_threads_faults_keep_their_siginfo",
        "%ld faults with the right siginfo (%ld while the guard was up), %ld without (e.g. si_code %d si_addr %p, "
        "page %p)", good, during_window, bad, bad_code, bad_addr, (void *) page);
  check(crash_of(&s.candidate[1]) == fake_signal(SIGILL) && s.chosen == 0, "other_threads_faults_selecting_thread_still_guarded",
        "crash %d chosen %d", crash_of(&s.candidate[1]), s.chosen);
  munmap(page, (size_t) pagesize);
  set_default();
}

/* 3. A handler installed while the guard is up stays installed; no
   library handler remains for any guarded signal. */
static void theirs(int sig, siginfo_t *info, void *context)
{
  (void) sig; (void) info; (void) context;
}

static void *install_theirs_thread(void *arg)
{
  (void) arg;
  set_handler(SIGSEGV, theirs);
  set_handler(SIGILL, theirs);
  return 0;
}

static void install_theirs(void)
{
  pthread_t t;
  pthread_create(&t, 0, install_theirs_thread, 0);
  pthread_join(t, 0);
}

static void installed_meanwhile(void)
{
  int i, ok = 1;
  set_default();
  fake_reset();
  fake_stepper(0, CPUCYCLES_CYCLECOUNTER, 5);
  fakes[0].may_trap = 1;
  fakes[0].during = install_theirs;
  fake_select(1, 1000000000, &s);
  for (i = 0; i < GUARDED; ++i) {
    struct sigaction now;
    int mine = guarded[i] == SIGSEGV || guarded[i] == SIGILL;
    sigaction(guarded[i], 0, &now);
    if (mine && !((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == theirs)) ok = 0;
    if (!mine && now.sa_handler != SIG_DFL) ok = 0;
  }
  check(ok && s.chosen == 0, "handlers_installed_meanwhile_kept", "a handler was lost or a library handler remains");
  set_default();
}

/* 3b. A neighbour that borrows SIGBUS while the guard is up, and puts
   back what it saved after the guard is down, puts back the library's
   handler.  That leftover passes the first signal on to the program's
   handler and then hands the disposition back to it. */
static struct sigaction borrowed;
static int borrowing, program_bus_ran;

static void program_bus(int sig, siginfo_t *info, void *context)
{
  (void) sig; (void) info; (void) context;
  ++program_bus_ran;
}

static void borrow_bus(void)
{
  struct sigaction a;
  if (borrowing++) return; /* the first read: the guarded one */
  memset(&a, 0, sizeof a);
  a.sa_sigaction = theirs;
  a.sa_flags = SA_SIGINFO;
  sigemptyset(&a.sa_mask);
  sigaction(SIGBUS, &a, &borrowed);
}

static void leftover_handed_back(void)
{
  struct sigaction now;
  int leftover;
  set_default();
  set_handler(SIGBUS, program_bus);
  fake_reset();
  fake_stepper(0, CPUCYCLES_CYCLECOUNTER, 5);
  fakes[0].may_trap = 1;
  fakes[0].during = borrow_bus;
  borrowing = program_bus_ran = 0;
  fake_select(1, 1000000000, &s);
  sigaction(SIGBUS, &borrowed, 0); /* the neighbour puts back what it saved */
  sigaction(SIGBUS, 0, &now);
  leftover = !((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == program_bus);
  raise(SIGBUS);
  sigaction(SIGBUS, 0, &now);
  check(leftover && program_bus_ran == 1 && (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == program_bus,
        "leftover_handler_hands_back_after_one_signal", "leftover %d, program's handler ran %d times, %s after",
        leftover, program_bus_ran, now.sa_sigaction == program_bus ? "the program's" : "not the program's");
  set_default();
}

/* 3c. A handler that another thread installs during the read and that
   chains to the one it replaced (as language runtimes do) passes the
   read's fault back to the guard; it stays installed.  (One that returns
   instead sends the read back to fault again, for ever: doc/selection.md.) */
static struct sigaction replaced;
static int chained;

static void chaining(int sig, siginfo_t *info, void *context)
{
  ++chained;
  if ((replaced.sa_flags & SA_SIGINFO) && replaced.sa_handler != SIG_DFL && replaced.sa_handler != SIG_IGN)
    replaced.sa_sigaction(sig, info, context);
  else
    _exit(99); /* not chained: the read would fault again for ever */
}

static void *install_chaining_thread(void *arg)
{
  struct sigaction a;
  (void) arg;
  memset(&a, 0, sizeof a);
  a.sa_sigaction = chaining;
  a.sa_flags = SA_SIGINFO;
  sigemptyset(&a.sa_mask);
  sigaction(SIGSEGV, &a, &replaced);
  return 0;
}

static void install_chaining(void)
{
  pthread_t t;
  pthread_create(&t, 0, install_chaining_thread, 0);
  pthread_join(t, 0);
}

static void chaining_installed_meanwhile(void)
{
  struct sigaction now;
#if defined(__i386__)
  /* under qemu-i386 7.2 this case dies by SIGSEGV (3 of 3 runs); that
     qemu comes back from a signal handler with another thread's
     thread-local storage (doc/cross.md), and here the fault passes
     through two handlers.  Not yet run on a native i386 (the build
     machine's kernel runs no 32-bit binaries): arm64 under qemu and
     amd64 natively pass it */
  if (getenv("CPUCYCLES_TEST_EMULATED")) {
    skip("handler_installed_during_read_chains_fault_back", "qemu-i386 loses thread-local storage across nested handlers");
    return;
  }
#endif
  set_default();
  fake_reset();
  fake_trapper(0, SIGSEGV);
  fakes[0].during = install_chaining;
  fake_stepper(1, CPUCYCLES_CYCLECOUNTER, 5);
  chained = 0;
  fake_select(2, 1000000000, &s);
  sigaction(SIGSEGV, 0, &now);
  check(crash_of(&s.candidate[0]) == SIGSEGV && chained == 1 && s.chosen == 1 && now.sa_sigaction == chaining,
        "handler_installed_during_read_chains_fault_back", "crash %d, chained %d times, chosen %d, %s after",
        crash_of(&s.candidate[0]), chained, s.chosen, now.sa_sigaction == chaining ? "theirs" : "not theirs");
  set_default();
}

/* 4. No handler for counters that cannot trap; a sent signal is not the
   probe's fault. */
static int library_handlers_seen, reads_checked;

static void look_at_handlers(void)
{
  int i;
  for (i = 0; i < GUARDED; ++i) {
    struct sigaction now;
    sigaction(guarded[i], 0, &now);
    if (now.sa_handler != SIG_DFL) ++library_handlers_seen;
  }
  ++reads_checked;
}

static void guard_only_what_can_fault(void)
{
  int i;
  set_default();
  fake_reset();
  library_handlers_seen = reads_checked = 0;
  for (i = 0; i < 3; ++i) {
    fake_stepper(i, i == 2 ? 1000000 : CPUCYCLES_CYCLECOUNTER, 5 + i);
    fakes[i].during = look_at_handlers;
  }
  fake_select(3, 1000000000, &s);
  check(reads_checked == 3 && library_handlers_seen == 0, "no_guard_for_counters_that_cannot_trap",
        "%d handlers seen in %d reads", library_handlers_seen, reads_checked);
  fake_reset();
  library_handlers_seen = reads_checked = 0;
  fake_stepper(0, CPUCYCLES_CYCLECOUNTER, 5);
  fakes[0].may_trap = 1;
  fakes[0].during = look_at_handlers;
  fake_select(1, 1000000000, &s);
  check(reads_checked == 1 && library_handlers_seen == GUARDED, "guard_up_for_a_counter_that_may_trap",
        "%d handlers seen", library_handlers_seen);
}

static volatile int sent_code = 1;

static void on_sent(int sig, siginfo_t *info, void *context)
{
  (void) sig; (void) context;
  sent_code = info->si_code;
}

static void kill_self(void)
{
  kill(getpid(), SIGSEGV);
}

static void sent_signal_not_swallowed(void)
{
  sigset_t only, saved;
  /* only this thread may take the process-directed signal */
  sigemptyset(&only);
  sigaddset(&only, SIGSEGV);
  set_handler(SIGSEGV, on_sent);
  fake_reset();
  fake_stepper(0, CPUCYCLES_CYCLECOUNTER, 5);
  fakes[0].may_trap = 1;
  fakes[0].during = kill_self;
  pthread_sigmask(SIG_UNBLOCK, &only, &saved);
  fake_select(1, 1000000000, &s);
  pthread_sigmask(SIG_SETMASK, &saved, 0);
  check(sent_code == SI_USER && crash_of(&s.candidate[0]) == 0 && s.chosen == 0, "sent_signal_reaches_program_not_guard",
        "handler saw si_code %d; crash %d chosen %d", sent_code, crash_of(&s.candidate[0]), s.chosen);
  set_default();
}

/* The program's dispositions are honoured as the kernel would: an
   ignored signal sent during a probe stays ignored (even when sa_flags
   says SA_SIGINFO), a one-shot handler (SA_RESETHAND) runs once, and a
   signal the caller blocked and left pending stays pending. */
static void kill_fpe(void)
{
  kill(getpid(), SIGFPE);
}

static int oneshot_calls;

static void oneshot(int sig)
{
  (void) sig;
  ++oneshot_calls;
}

static void kill_bus(void)
{
  kill(getpid(), SIGBUS);
}

static void dispositions(void)
{
  struct sigaction a;
  sigset_t bus, saved, pending;
  memset(&a, 0, sizeof a);
  a.sa_handler = SIG_IGN;
  a.sa_flags = SA_SIGINFO; /* legal, and the union then holds SIG_IGN */
  sigaction(SIGFPE, &a, 0);
  fake_reset();
  fake_stepper(0, CPUCYCLES_CYCLECOUNTER, 5);
  fakes[0].may_trap = 1;
  fakes[0].during = kill_fpe;
  fake_select(1, 1000000000, &s);
  check(crash_of(&s.candidate[0]) == 0 && s.chosen == 0, "ignored_signal_with_siginfo_flag_stays_ignored",
        "crash %d chosen %d", crash_of(&s.candidate[0]), s.chosen);

  /* SIGBUS with a one-shot handler: a kill runs it and puts the default
     back, as the kernel would have */
  memset(&a, 0, sizeof a);
  a.sa_handler = oneshot;
  a.sa_flags = SA_RESETHAND;
  sigemptyset(&a.sa_mask);
  sigaction(SIGBUS, &a, 0);
  fake_reset();
  fake_stepper(0, CPUCYCLES_CYCLECOUNTER, 5);
  fakes[0].may_trap = 1;
  fakes[0].during = kill_bus;
  oneshot_calls = 0;
  fake_select(1, 1000000000, &s);
  sigaction(SIGBUS, 0, &a);
  check(oneshot_calls == 1 && a.sa_handler == SIG_DFL && s.chosen == 0, "one_shot_handler_runs_once",
        "ran %d times; disposition %s after", oneshot_calls, a.sa_handler == SIG_DFL ? "default" : "not default");

  if (getenv("CPUCYCLES_TEST_EMULATED")) {
    /* qemu-user's sigpending does not see a blocked signal raised in the
       guest (it reports 0 where Linux reports 1) */
    skip("blocked_pending_signal_stays_pending", "qemu-user's sigpending does not report pending signals");
    set_default();
    return;
  }
  sigemptyset(&bus);
  sigaddset(&bus, SIGBUS);
  signal(SIGBUS, oneshot);
  pthread_sigmask(SIG_BLOCK, &bus, &saved);
  raise(SIGBUS);
  oneshot_calls = 0;
  fake_reset();
  fake_stepper(0, CPUCYCLES_CYCLECOUNTER, 5);
  fakes[0].may_trap = 1;
  fake_select(1, 1000000000, &s);
  sigpending(&pending);
  check(sigismember(&pending, SIGBUS) && oneshot_calls == 0 && s.chosen == 0,
        "blocked_pending_signal_stays_pending", "pending %d, handler ran %d times", sigismember(&pending, SIGBUS),
        oneshot_calls);
  pthread_sigmask(SIG_SETMASK, &saved, 0); /* now it is taken */
  set_default();
}

int main(void)
{
  blocked_signals();
  other_threads_faults();
  installed_meanwhile();
  leftover_handed_back();
  chaining_installed_meanwhile();
  guard_only_what_can_fault();
  sent_signal_not_swallowed();
  dispositions();
  return checks_failed();
}
