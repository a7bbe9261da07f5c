/* The crash guard: runs a probe so that SIGILL, SIGFPE, SIGBUS, SIGSEGV or
   SIGABRT in it becomes a return value instead of a dead process.
   Handlers are installed once around the whole selection and the caller's
   own handlers are put back exactly afterwards. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include "internal.h"

#define GUARDED 5
/* Each guarded signal with the caller's handler for it. */
static struct { int sig; struct sigaction old; } saved[GUARDED];
static sigjmp_buf escape;
/* Only the selecting thread's probes are ours to catch. */
static CPUCYCLES_THREAD volatile sig_atomic_t armed;

static void handler(int sig)
{
  unsigned int i;
  if (armed) {
    armed = 0;
    siglongjmp(escape, sig);
  }
  /* Not our probe (another thread crashed meanwhile): give the signal to
     whatever the program had installed. */
  for (i = 0; i < GUARDED; ++i)
    if (saved[i].sig == sig) sigaction(sig, &saved[i].old, 0);
  raise(sig);
}

void cpucycles_guard_install(void)
{
  struct sigaction ours;
  unsigned int i;
  memset(&ours, 0, sizeof ours);
  ours.sa_handler = handler;
  sigemptyset(&ours.sa_mask);
  /* SA_NODEFER: the signal stays unblocked after we jump out of the
     handler, so sigsetjmp need not save the mask (no syscall per probe). */
  ours.sa_flags = SA_NODEFER;
  /* Stored one by one, not copied from a table: a table of constants
     would be the first call's only read of .rodata, one more page fault
     (doc/selection.md, "First-call time"). */
  saved[0].sig = SIGILL;
  saved[1].sig = SIGFPE;
  saved[2].sig = SIGBUS;
  saved[3].sig = SIGSEGV;
  saved[4].sig = SIGABRT;
  for (i = 0; i < GUARDED; ++i) sigaction(saved[i].sig, &ours, &saved[i].old);
}

void cpucycles_guard_restore(void)
{
  unsigned int i;
  for (i = 0; i < GUARDED; ++i) sigaction(saved[i].sig, &saved[i].old, 0);
}

int cpucycles_guard_run(void (*probe)(void *), void *arg)
{
  int sig = sigsetjmp(escape, 0);
  if (sig) return sig;
  armed = 1;
  probe(arg);
  armed = 0;
  return 0;
}
