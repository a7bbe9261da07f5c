/* The handlers of the five signals the crash guard catches, noted before
   the library runs (SIG_DFL, the test's own, or a sanitizer's: ASan has
   its own for SIGSEGV, SIGBUS and SIGFPE), and whether exactly those are
   back: the guard must give back what it took. */
#ifndef CPUCYCLES_TEST_HANDLERS_H
#define CPUCYCLES_TEST_HANDLERS_H

#include <signal.h>

static const int handled[] = { SIGILL, SIGFPE, SIGBUS, SIGSEGV, SIGABRT };
#define HANDLED (sizeof handled / sizeof handled[0])
static void (*noted[HANDLED])(int);

static void note_handlers(void)
{
  unsigned int i;
  for (i = 0; i < HANDLED; ++i) {
    struct sigaction a;
    sigaction(handled[i], 0, &a);
    noted[i] = a.sa_handler;
  }
}

static int handlers_back(void)
{
  unsigned int i;
  for (i = 0; i < HANDLED; ++i) {
    struct sigaction a;
    sigaction(handled[i], 0, &a);
    if (a.sa_handler != noted[i]) return 0;
  }
  return 1;
}

#endif
