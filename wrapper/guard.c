/* The crash guard.
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
 *   would kill the process) and the caller's mask is put back;
 * - other copies of this file in the process (a program linked with the
 *   library and a plugin bundling its own) are recognised: see "Copies". */
#define _XOPEN_SOURCE 700 /* SA_ONSTACK, ucontext_t */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>
#include "internal.h"

#define GUARDED 5
static const int guarded[GUARDED] = { SIGILL, SIGFPE, SIGBUS, SIGSEGV, SIGABRT };

/* Copies.  Two copies of this file in one process share the five
 * dispositions but none of each other's variables.  Each used to take the
 * other's handler for the program's, so a signal could be passed round
 * between them until the stack overflowed, and one copy put the program's
 * handler back while the other's read could still fault.  Now:
 * - a guard's handler carries a mark: exactly the signals mark() adds
 *   to its sa_mask, which no program gives a fault handler;
 * - a copy that finds a marked handler calls it with signal 0 (never a
 *   real signal) and gets that copy's record, below; the two then know
 *   each other;
 * - each copy saves the program's handler, never a guard's (in place of
 *   a guard's handler it saves what that guard's copy saved), so nothing
 *   forwards to a guard and nothing loops; a fault of the armed read of
 *   any copy it knows is passed to that copy before anything is forwarded;
 * - the program's handler goes back only when no copy is up; a copy that
 *   took the handler of a copy being handed back waits for the hand-back
 *   to finish (`handing`) before it arms.
 * The record's layout is shared by every copy with the same COPY_MAGIC; a
 * copy answers signal 0 only to its own magic. */
#define COPY_MAGIC 0x6370756379630001ULL /* bump when struct copy changes */
#define MET 4       /* other copies one remembers (more than one is rare) */
#define REACH 8     /* copies one walk visits */
#define SPINS 10000 /* yields to wait for another copy's few system calls;
                       past that its thread is gone (a child of fork) */

struct copy {
  unsigned long long magic;
  void (*handler)(int, siginfo_t *, void *);
  void (*claim)(int, siginfo_t *); /* takes its own read's fault: jumps */
  int up;       /* a read is guarded: from install() to uninstall() */
  int handing;  /* someone is handing back this copy's handler */
  /* the program's handlers, kept after the guard is down: a handler
     installed meanwhile may have saved ours and still chain to it */
  struct sigaction previous[GUARDED];
  struct copy *met[MET];
};

struct ask {
  unsigned long long magic;
  struct copy *copy; /* the answer */
};

static void handler(int sig, siginfo_t *info, void *context);
static void claim(int sig, siginfo_t *info);
static struct copy self = { .magic = COPY_MAGIC, .handler = handler, .claim = claim };
static int ever; /* installed once: then others may know this copy */
static volatile int installing; /* between our swaps and meeting what they displaced */
static CPUCYCLES_THREAD sigjmp_buf *volatile escape; /* this thread's probe */
static CPUCYCLES_THREAD volatile sig_atomic_t caught;

#define SIGNALS 64 /* Linux's; more than the BSDs' */

/* The mark: held back only while a guard's handler decides where a
   signal goes (the program's handler runs with its own mask) */
static void mark(sigset_t *set)
{
  sigemptyset(set);
  sigaddset(set, SIGTTIN);
  sigaddset(set, SIGTTOU);
  sigaddset(set, SIGURG);
}

static int same_mask(const sigset_t *a, const sigset_t *b)
{
  int sig;
  for (sig = 1; sig <= SIGNALS; ++sig)
    if (sigismember(a, sig) != sigismember(b, sig)) return 0;
  return 1;
}

static void guard_action(struct sigaction *a, void (*h)(int, siginfo_t *, void *))
{
  *a = (struct sigaction) { .sa_sigaction = h, .sa_flags = SA_SIGINFO | SA_ONSTACK };
  mark(&a->sa_mask);
}

static void meet(struct copy *c, struct copy *other)
{
  int i;
  for (i = 0; i < MET; ++i) {
    struct copy *none = 0;
    if (__atomic_compare_exchange_n(&c->met[i], &none, other, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) || none == other)
      return;
  }
}

/* Whose guard's handler a is: this copy's, another copy's (the two then
   know each other), or 0: the program's.  The kernel swaps a disposition
   whole; qemu-user copies its fields one by one, and a copy reading one
   half-written there may take the program's handler for a guard's. */
static struct copy *owner(const struct sigaction *a)
{
  struct ask q = { .magic = COPY_MAGIC, .copy = 0 };
  sigset_t m;
  if ((a->sa_flags & SA_SIGINFO) && a->sa_sigaction == handler) return &self;
  mark(&m);
  if (!(a->sa_flags & SA_SIGINFO) || a->sa_handler == SIG_DFL || a->sa_handler == SIG_IGN || !same_mask(&a->sa_mask, &m))
    return 0;
  a->sa_sigaction(0, 0, &q);
  if (!q.copy || q.copy->magic != COPY_MAGIC) return 0;
  meet(&self, q.copy);
  meet(q.copy, &self);
  return q.copy;
}

/* This copy and every copy it knows, directly or through another. */
static int reach(struct copy **seen)
{
  int n = 1, k, i, j;
  seen[0] = &self;
  for (k = 0; k < n; ++k)
    for (i = 0; i < MET; ++i) {
      struct copy *c = __atomic_load_n(&seen[k]->met[i], __ATOMIC_ACQUIRE);
      for (j = 0; c && j < n && seen[j] != c; ++j) continue;
      if (c && j == n && n < REACH) seen[n++] = c;
    }
  return n;
}

static void wait_free(int *flag)
{
  int k;
  for (k = 0; k < SPINS && __atomic_load_n(flag, __ATOMIC_SEQ_CST); ++k) sched_yield();
}

/* Sets flag, after waiting for whoever set it to clear it; past SPINS
   that holder is gone and the flag is taken over as it is (set). */
static void take(int *flag)
{
  int k;
  for (k = 0; __atomic_exchange_n(flag, 1, __ATOMIC_SEQ_CST) && k < SPINS; ++k) sched_yield();
}

/* Hands signal i back where no copy's read can need a guard's handler:
   what the copy on top saved goes in.  Unloading, this copy's handler
   comes off even so, and an up copy's goes in.  Only the handler read
   after taking `handing` is swapped out: one that got in between is put
   back (a copy whose handler that is waits for `handing` before arming;
   a copy that goes up after the check of `up` below either put its
   handler in before the read here, or waits). */
static void hand_back(int i, int unloading)
{
  struct sigaction top, now, back;
  struct copy *c, *seen[REACH], *up = 0;
  int n, k;
  if (sigaction(guarded[i], 0, &top) || !(c = owner(&top)) || (unloading && c != &self)) return;
  take(&c->handing);
  n = reach(seen);
  for (k = 0; k < n && !up; ++k)
    if (__atomic_load_n(&seen[k]->up, __ATOMIC_SEQ_CST)) up = seen[k];
  if (!up || unloading) {
    if (up)
      guard_action(&back, up->handler);
    else
      back = c->previous[i];
    if (sigaction(guarded[i], 0, &now) == 0 && now.sa_handler == top.sa_handler &&
        sigaction(guarded[i], &back, &now) == 0 && now.sa_handler != top.sa_handler)
      sigaction(guarded[i], &now, 0);
  }
  __atomic_store_n(&c->handing, 0, __ATOMIC_SEQ_CST);
}

/* Takes a signal for this copy's read in this thread if it is the read's
   own: a fault (si_code > 0: sent by the kernel) or the read's abort(). */
static void claim(int sig, siginfo_t *info)
{
  if (escape && (info->si_code > 0 || (sig == SIGABRT && info->si_pid == getpid()))) {
    caught = sig;
    siglongjmp(*escape, 1);
  }
}

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
  struct copy *seen[REACH];
  struct sigaction theirs, dfl = { .sa_handler = SIG_DFL };
  sigset_t mask, during;
  int i, k, n, pass;
  if (!sig) { /* another copy asks whose handler this is */
    struct ask *q = context;
    if (q && q->magic == COPY_MAGIC) q->copy = &self;
    return;
  }
  /* this copy (seen[0]) and every copy it knows claim their reads' faults.
     A fault none claims may be the read of a copy whose handler ours has
     just displaced and not yet met: once install() has met it, ask again */
  for (pass = 0;; ++pass) {
    n = reach(seen);
    for (k = 0; k < n; ++k) seen[k]->claim(sig, info);
    if (pass || info->si_code <= 0 || !installing) break;
    wait_free((int *) &installing);
  }
  for (i = GUARDED - 1; i > 0 && guarded[i] != sig; --i) continue;
  theirs = self.previous[i];
  if (theirs.sa_handler == SIG_IGN) {
    /* ignored, unless it is a fault, which the kernel never ignores */
    if (info->si_code > 0) sigaction(sig, &dfl, 0);
  } else if (theirs.sa_handler == SIG_DFL) {
    /* the default action: with the default back, a fault happens again
       when we return, and a sent signal is sent again */
    sigaction(sig, &dfl, 0);
    if (info->si_code <= 0) raise(sig);
  } else {
    /* the program's handler, run as the kernel would have run it: with
       the interrupted mask plus its own (not our mark) */
    if (theirs.sa_flags & SA_RESETHAND) self.previous[i] = dfl;
    if (context)
      during = ((ucontext_t *) context)->uc_sigmask;
    else
      pthread_sigmask(SIG_SETMASK, 0, &during);
    for (k = 1; k <= SIGNALS; ++k)
      if (sigismember(&theirs.sa_mask, k) == 1) sigaddset(&during, k);
    if (theirs.sa_flags & SA_NODEFER)
      sigdelset(&during, sig);
    else
      sigaddset(&during, sig);
    pthread_sigmask(SIG_SETMASK, &during, &mask);
    if (theirs.sa_flags & SA_SIGINFO)
      theirs.sa_sigaction(sig, info, context);
    else
      theirs.sa_handler(sig);
    pthread_sigmask(SIG_SETMASK, &mask, 0);
  }
  /* no guard up: someone who saved ours while it was up put it back
     later; the program's disposition returns for good */
  if (!__atomic_load_n(&self.up, __ATOMIC_SEQ_CST)) hand_back(i, 0);
}

/* Saves the program's handler, given what was installed: for a guard's,
   what its copy saved.  Returns that copy, or 0. */
static struct copy *save(int i, const struct sigaction *a)
{
  struct copy *c = owner(a);
  if (!c)
    self.previous[i] = *a;
  else if (c != &self)
    self.previous[i] = c->previous[i];
  return c;
}

/* The program's handler is saved before ours goes in, so that a signal in
   another thread finds it at once, and saved again from what the swap
   returns, in case it changed in between.  Where ours replaced a guard's
   handler that a copy was handing back, the hand-back may have put the
   program's handler in over ours: once it is done, ours goes in again. */
static void install(void)
{
  struct sigaction ours, old;
  struct copy *c;
  int i, tries;
  guard_action(&ours, handler);
  ever = 1;
  installing = 1;
  __atomic_store_n(&self.up, 1, __ATOMIC_SEQ_CST);
  for (i = 0; i < GUARDED; ++i) {
    if (sigaction(guarded[i], 0, &old) == 0) save(i, &old);
    for (tries = 0; tries < 3; ++tries) {
      if (sigaction(guarded[i], &ours, &old) || !(c = save(i, &old))) break;
      wait_free(&c->handing);
      if (sigaction(guarded[i], 0, &old) || owner(&old) || old.sa_handler != self.previous[i].sa_handler) break;
    }
  }
  __atomic_store_n(&installing, 0, __ATOMIC_SEQ_CST);
}

static void uninstall(void)
{
  int i;
  __atomic_store_n(&self.up, 0, __ATOMIC_SEQ_CST);
  for (i = 0; i < GUARDED; ++i) hand_back(i, 0);
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
  installing = 0; /* the thread that was installing is not in the child */
  if (self.up) uninstall();
}

/* Unloaded (dlclose), a copy leaves nothing that points into it: its
   handler comes off, and the copies it met forget it. */
__attribute__((destructor)) static void guard_unload(void)
{
  struct copy *c;
  int i, k;
  if (!ever || __atomic_load_n(&self.up, __ATOMIC_SEQ_CST)) return;
  for (i = 0; i < GUARDED; ++i) hand_back(i, 1);
  for (i = 0; i < MET; ++i)
    if ((c = __atomic_load_n(&self.met[i], __ATOMIC_ACQUIRE)))
      for (k = 0; k < MET; ++k) {
        struct copy *me = &self;
        __atomic_compare_exchange_n(&c->met[k], &me, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
      }
}
