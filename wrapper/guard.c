/* The crash guard, and the read functions cpucycles() may point at.
 *
 * The guard runs one read of a counter that may trap (a PMU register user
 * code may not be allowed to read) so that SIGILL, SIGFPE, SIGBUS, SIGSEGV
 * or SIGABRT in it becomes a return value.  It borrows process state only
 * for that read, and gives back exactly what it took:
 * - the handlers are installed just around the read; a handler someone
 *   else installed meanwhile is kept, never overwritten;
 * - a signal that is not this thread's probe faulting (another thread's
 *   fault, a kill from outside) goes to the program's own handler with its
 *   own siginfo, or gets the default action;
 * - the guarded signals are unblocked for the read (a fault while blocked
 *   would kill the process) and the caller's mask is put back. */
#define _XOPEN_SOURCE 700 /* SA_ONSTACK */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"

#define GUARDED 5
static const int guarded[GUARDED] = { SIGILL, SIGFPE, SIGBUS, SIGSEGV, SIGABRT };

/* The program's handlers.  Kept after the guard is down: a handler
   installed meanwhile may have saved ours and still chain to it. */
static struct sigaction previous[GUARDED];
static volatile int up; /* handlers installed (a child of fork must know) */
static CPUCYCLES_THREAD sigjmp_buf *volatile escape; /* this thread's probe */
static CPUCYCLES_THREAD volatile sig_atomic_t caught;

/* qemu-user (7.2, Debian 12) can enter an x86 signal handler with the stack
   8 bytes off the ABI's 16-byte alignment, and the compiler copies a struct
   sigaction with aligned SSE stores: realign on entry.  Costs only signals. */
#if (defined(__i386__) || defined(__x86_64__)) && defined(__GNUC__)
#define REALIGN __attribute__((force_align_arg_pointer))
#else
#define REALIGN
#endif

REALIGN static void handler(int sig, siginfo_t *info, void *context)
{
  struct sigaction *old = &previous[0], dfl;
  sigset_t mask, during;
  int i;
  /* ours: a fault (si_code > 0: sent by the kernel) of this thread's probe,
     or the probe's own abort() */
  if (escape && (info->si_code > 0 || (sig == SIGABRT && info->si_pid == getpid()))) {
    caught = sig;
    siglongjmp(*escape, 1);
  }
  for (i = 0; i < GUARDED; ++i)
    if (guarded[i] == sig) old = &previous[i];
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  if (old->sa_handler == SIG_IGN) {
    /* ignored, unless it is a fault, which the kernel never ignores */
    if (info->si_code > 0) sigaction(sig, &dfl, 0);
  } else if (old->sa_handler == SIG_DFL) {
    /* the default action: with the default back, a fault happens again
       when we return, and a sent signal is sent again */
    sigaction(sig, &dfl, 0);
    if (info->si_code <= 0) raise(sig);
  } else {
    /* the program's handler, run as the kernel would have run it */
    struct sigaction theirs = *old;
    if (theirs.sa_flags & SA_RESETHAND) *old = dfl;
    during = theirs.sa_mask;
    if (!(theirs.sa_flags & SA_NODEFER)) sigaddset(&during, sig);
    pthread_sigmask(SIG_BLOCK, &during, &mask);
    if (theirs.sa_flags & SA_NODEFER) {
      sigemptyset(&during);
      sigaddset(&during, sig);
      pthread_sigmask(SIG_UNBLOCK, &during, 0);
    }
    if (theirs.sa_flags & SA_SIGINFO)
      theirs.sa_sigaction(sig, info, context);
    else
      theirs.sa_handler(sig);
    pthread_sigmask(SIG_SETMASK, &mask, 0);
  }
  /* no guard up: someone who saved ours while it was up put it back
     later; the program's disposition returns for good (unless a guard
     went up meanwhile) */
  if (!up) {
    struct sigaction now;
    sigaction(sig, old, &now);
    if (up) sigaction(sig, &now, 0);
  }
}

static int is_ours(const struct sigaction *a)
{
  return (a->sa_flags & SA_SIGINFO) && a->sa_sigaction == handler;
}

/* The program's handler is saved before ours goes in, so that a signal in
   another thread finds it at once, and saved again from what the swap
   returns, in case it changed in between. */
static void install(void)
{
  struct sigaction ours, old;
  int i;
  memset(&ours, 0, sizeof ours);
  ours.sa_sigaction = handler;
  ours.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&ours.sa_mask);
  up = 1;
  for (i = 0; i < GUARDED; ++i) {
    if (sigaction(guarded[i], 0, &old) == 0 && !is_ours(&old)) previous[i] = old;
    if (sigaction(guarded[i], &ours, &old) == 0 && !is_ours(&old)) previous[i] = old;
  }
}

static void uninstall(void)
{
  struct sigaction now;
  int i;
  for (i = 0; i < GUARDED; ++i) {
    sigaction(guarded[i], &previous[i], &now);
    /* someone installed a handler meanwhile: theirs stays */
    if (!is_ours(&now)) sigaction(guarded[i], &now, 0);
  }
  up = 0;
}

/* The guarded signals are unblocked for the read, except one the caller
   blocked and that is already pending (for sigwait, say): that one stays
   the caller's. */
int cpucycles_guard_read(long long (*ticks)(void))
{
  sigjmp_buf here;
  sigset_t unblock, mask, pending;
  int i;

  pthread_sigmask(SIG_SETMASK, 0, &mask);
  sigpending(&pending);
  sigemptyset(&unblock);
  for (i = 0; i < GUARDED; ++i)
    if (!sigismember(&mask, guarded[i]) || !sigismember(&pending, guarded[i])) sigaddset(&unblock, guarded[i]);
  install();
  pthread_sigmask(SIG_UNBLOCK, &unblock, 0);
  if (!sigsetjmp(here, 0)) {
    caught = 0;
    escape = &here;
    ticks();
  }
  escape = 0;
  pthread_sigmask(SIG_SETMASK, &mask, 0);
  uninstall();
  return caught;
}

void cpucycles_guard_forget(void)
{
  if (up) uninstall();
}

/* What the read functions below need, set at selection.  A thread that
   calls cpucycles() without the first call's acquire (it found the
   pointer already set) still sees it whole: it is reached through a
   pointer published with release and loaded with acquire (a plain load
   on x86; without it, arm64 and POWER may show a stale scaling). */
static struct reading {
  long long (*raw)(void);
  unsigned long long mult; /* scaled: base_out + (ticks - base_in) * mult >> shift */
  int shift;
  long long base_in, base_out;
  double ticks_per_ns; /* extended: the counter's rate, and its start */
  long long start_value, start_ns;
} setting;
static const struct reading *published;

static const struct reading *reading(void)
{
  const struct reading *r;
  /* null only for the moment before the publishing store is seen */
  while (!(r = __atomic_load_n(&published, __ATOMIC_ACQUIRE))) continue;
  return r;
}

/* A scaled off-core clock, in integers as kernel clocksources scale: 32
   significant bits of the scaling, and no overflow for any gap whose
   result fits (the product is taken in two 32-bit halves).  base_in is
   the ticks seen at selection; base_out is base_in scaled (modulo 2^62),
   so that two processes get comparable counts. */
static unsigned long long scale_up(const struct reading *r, unsigned long long d)
{
  unsigned long long hi = (d >> 32) * r->mult, lo = (d & 0xffffffffULL) * r->mult;
  return (hi << (32 - r->shift)) + (lo >> r->shift);
}

long long cpucycles_read_scaled(void)
{
  const struct reading *r = reading();
  unsigned long long d = (unsigned long long) (r->raw() - r->base_in);
  if (d < 1ULL << 32) return r->base_out + (long long) ((d * r->mult) >> r->shift); /* the usual gap */
  return r->base_out + ((long long) d >= 0 ? (long long) scale_up(r, d) : -(long long) scale_up(r, 0ULL - d));
}

/* A 32-bit counter extended to 64 bits: the clock says how many ticks
   should have passed since this thread's previous read, at the counter's
   own rate measured at selection, which says how many times the low 32
   bits wrapped. */
#define WRAP 4294967296.0

static CPUCYCLES_THREAD long long last_value, last_ns;
static CPUCYCLES_THREAD int last_set;

long long cpucycles_read_extended(void)
{
  const struct reading *r = reading();
  unsigned long long low = (unsigned long long) r->raw() & 0xffffffffULL;
  long long now = cpucycles_os_nanoseconds();
  long long value = last_set ? last_value : r->start_value;
  long long then = last_set ? last_ns : r->start_ns;
  long long moved = (long long) ((low - (unsigned long long) value) & 0xffffffffULL);
  double wraps = ((double) (now - then) * r->ticks_per_ns - (double) moved) / WRAP + 0.5;

  value += moved + (wraps < 1 ? 0 : (long long) wraps) * 4294967296LL;
  last_value = value;
  last_ns = now;
  last_set = 1;
  return value;
}

/* Sets up the read function for a counter and returns it: the counter
   itself when it needs no help.  Only the selecting thread calls this,
   before the function is handed out. */
long long (*cpucycles_read_use(long long (*ticks)(void), double scaling, int only32, double hz))(void)
{
  struct reading *r = &setting;
  r->raw = ticks;
  if (only32) {
    r->ticks_per_ns = hz / 1e9;
    r->start_value = (long long) ((unsigned long long) ticks() & 0xffffffffULL);
    r->start_ns = cpucycles_os_nanoseconds();
    last_set = 0;
    __atomic_store_n(&published, r, __ATOMIC_RELEASE);
    return cpucycles_read_extended;
  }
  if (scaling == 1) return ticks;
  for (r->shift = 32; r->shift > 0 && scaling * (double) (1ULL << r->shift) >= WRAP; --r->shift) continue;
  r->mult = (unsigned long long) (scaling * (double) (1ULL << r->shift) + 0.5);
  r->base_in = ticks();
  /* base_in scaled, modulo 2^62 where it does not fit: positive, and the
     same in every process (the product mod 2^64 is exact) */
  r->base_out = r->base_in > 0 ? (long long) (scale_up(r, (unsigned long long) r->base_in) & ((1ULL << 62) - 1)) : 0;
  __atomic_store_n(&published, r, __ATOMIC_RELEASE);
  return cpucycles_read_scaled;
}
