/* The crash guard, for the few counters whose first read nothing can
 * vouch for (arm32, mips64, sparc64, arm64-pmc, riscv*-rdcycle on kernels
 * without perf_user_access, systems that cannot say): SIGILL, SIGFPE,
 * SIGBUS, SIGSEGV or SIGABRT in that one read becomes a return value.
 * It borrows process state for that read only and gives back what it took:
 * - its handlers go in just around the read, and the program's go back
 *   only where ours is still installed (one installed meanwhile is kept);
 * - a signal that is not this thread's read faulting (another thread's
 *   fault, a kill from outside) goes to the program's handler with its
 *   own siginfo, or gets the default action;
 * - the guarded signals are unblocked for the read (a fault while blocked
 *   would kill the process) and the caller's mask is put back.
 * Another copy of this file in the process (a plugin bundling the library)
 * is not told apart: copies guarding one after the other each give back
 * what they found, but two guarding at the same instant may each save the
 * other's handler, and a fault that is neither's read then kills the
 * process. */
#define _XOPEN_SOURCE 700 /* SA_ONSTACK, ucontext_t */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>
#include "internal.h"

#define GUARDED 5
#define SIGNALS 64 /* Linux's; more than the BSDs' */
static const int guarded[GUARDED] = { SIGILL, SIGFPE, SIGBUS, SIGSEGV, SIGABRT };

static struct sigaction previous[GUARDED]; /* the program's */
static volatile int up, ever; /* a read is guarded now; ever was */
static CPUCYCLES_THREAD sigjmp_buf *volatile escape; /* this thread's read */
static CPUCYCLES_THREAD volatile sig_atomic_t caught;

CPUCYCLES_COLD static void handler(int sig, siginfo_t *info, void *context);

static int ours(const struct sigaction *a)
{
  return (a->sa_flags & SA_SIGINFO) && a->sa_sigaction == handler;
}

/* Puts the program's handler back where ours is still installed (one
   that goes in between the look and the swap is put back in turn). */
static void put_back(int i)
{
  struct sigaction now;
  if (sigaction(guarded[i], 0, &now) == 0 && ours(&now) &&
      sigaction(guarded[i], &previous[i], &now) == 0 && !ours(&now))
    sigaction(guarded[i], &now, 0);
}

/* qemu-user (7.2) can enter an x86 handler with the stack 8 bytes off the
   ABI's alignment, where struct copies use aligned SSE stores. */
#if (defined(__i386__) || defined(__x86_64__)) && defined(__GNUC__)
__attribute__((force_align_arg_pointer))
#endif
static void handler(int sig, siginfo_t *info, void *context)
{
  struct sigaction theirs, dfl = { .sa_handler = SIG_DFL };
  sigset_t during, mask;
  int i, k;
  /* this thread's read: a fault (si_code > 0, sent by the kernel) or its abort() */
  if (escape && (info->si_code > 0 || (sig == SIGABRT && info->si_pid == getpid()))) {
    caught = sig;
    siglongjmp(*escape, 1);
  }
  for (i = GUARDED - 1; i > 0 && guarded[i] != sig; --i) continue;
  theirs = previous[i];
  if (theirs.sa_handler == SIG_IGN || theirs.sa_handler == SIG_DFL) {
    /* with the default back, a fault happens again when we return, and a
       sent signal is sent again; an ignored one stays ignored */
    if (theirs.sa_handler == SIG_DFL || info->si_code > 0) sigaction(sig, &dfl, 0);
    if (theirs.sa_handler == SIG_DFL && info->si_code <= 0) raise(sig);
  } else {
    /* run as the kernel would: the interrupted mask plus the handler's own */
    if (theirs.sa_flags & SA_RESETHAND) previous[i] = dfl;
    during = ((ucontext_t *) context)->uc_sigmask; /* the kernel calls with a context */
    for (k = 1; k <= SIGNALS; ++k)
      if (sigismember(&theirs.sa_mask, k) == 1) sigaddset(&during, k);
    if (!(theirs.sa_flags & SA_NODEFER)) sigaddset(&during, sig);
    pthread_sigmask(SIG_SETMASK, &during, &mask);
    if (theirs.sa_flags & SA_SIGINFO) theirs.sa_sigaction(sig, info, context);
    else theirs.sa_handler(sig);
    pthread_sigmask(SIG_SETMASK, &mask, 0);
  }
  /* someone put ours back after the guard came down: give theirs back */
  if (!up) put_back(i);
}

/* The guarded signals are unblocked for the read, except one the caller
   blocked and that is already pending (for sigwait, say). */
int cpucycles_guard_read(cpucycles_ticks *ticks)
{
  struct sigaction guard = { .sa_sigaction = handler, .sa_flags = SA_SIGINFO | SA_ONSTACK }, old;
  sigjmp_buf here;
  sigset_t unblock, mask, pending;
  int i;
  pthread_sigmask(SIG_SETMASK, 0, &mask);
  sigpending(&pending);
  sigemptyset(&unblock);
  up = ever = 1;
  for (i = 0; i < GUARDED; ++i) {
    if (!sigismember(&mask, guarded[i]) || !sigismember(&pending, guarded[i]))
      sigaddset(&unblock, guarded[i]);
    /* saved before the swap, so another thread's signal finds it at once;
       ours, left by a guard still up, stands for what that one saved */
    if (sigaction(guarded[i], 0, &old) == 0 && !ours(&old)) previous[i] = old;
    if (sigaction(guarded[i], &guard, &old) == 0 && !ours(&old)) previous[i] = old;
  }
  pthread_sigmask(SIG_UNBLOCK, &unblock, 0);
  if (!sigsetjmp(here, 0)) {
    caught = 0;
    escape = &here;
    ticks();
  }
  escape = 0;
  pthread_sigmask(SIG_SETMASK, &mask, 0);
  cpucycles_guard_forget();
  return caught;
}

/* Also after fork (the reading thread is not in the child) and at
   dlclose: no handler of ours stays installed. */
void cpucycles_guard_forget(void)
{
  int i;
  up = 0;
  for (i = 0; ever && i < GUARDED; ++i) put_back(i);
}

__attribute__((destructor)) static void guard_unload(void) { cpucycles_guard_forget(); }
