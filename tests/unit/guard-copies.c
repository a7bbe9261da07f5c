/* Two copies of the crash guard in one process, as in a program linked
   with the library that loads a plugin bundling its own copy: the
   library's wrapper/guard.c and a second one compiled into this test
   under other names, with statics of its own.  Their reads follow one
   another; at the end the program's handlers
   must be back exactly, no read's fault may have reached the program,
   and abort() must still kill by SIGABRT (copies that forwarded to each
   other recursed until the stack overflowed: death by SIGSEGV). */
#define _GNU_SOURCE
#define cpucycles_guard_read copy2_guard_read
#define cpucycles_guard_forget copy2_guard_forget
#include "../../wrapper/guard.c"
#undef cpucycles_guard_read
#undef cpucycles_guard_forget

#include <stdlib.h>
#include <sys/wait.h>
#include "check.h"
#include "crash.h"
#include "handlers.h"

int cpucycles_guard_read(long long (*ticks)(void)); /* the library's copy */

#define READS 40 /* guarded reads, the copies in turn */
#define CHILD_SECONDS 10

typedef int guard_fn(long long (*)(void));
static guard_fn *const copies[2] = { cpucycles_guard_read, copy2_guard_read };

/* What a child says before its abort(); its death says the rest. */
enum { GOOD = 'g', BAD_RESULT = 'r', BAD_HANDLERS = 'h' };
#define LEAKED 3 /* exit status: a read's fault reached the program */

static void leaked(int sig)
{
  (void) sig;
  _exit(LEAKED);
}


/* Runs job in a child and returns how it ended: its word, and its status. */
static int run_child(char (*job)(void), int *status)
{
  int p[2];
  char word = 0;
  pid_t pid;
  if (pipe(p)) return 0;
  pid = fork();
  if (pid == 0) {
    close(p[0]);
    alarm(CHILD_SECONDS);
    word = job();
    if (write(p[1], &word, 1) != 1) _exit(1);
    abort();
  }
  close(p[1]);
  if (pid < 0 || read(p[0], &word, 1) != 1) word = 0;
  close(p[0]);
  if (pid > 0) waitpid(pid, status, 0);
  return word;
}

/* How a child ended, in words: "ok", or what went wrong (what it said,
   then how abort() ended). */
static const char *ending(char word, int status)
{
  static char text[160];
  const char *said = word == GOOD ? "" : word == BAD_RESULT ? "a read returned the wrong signal; "
                     : word == BAD_HANDLERS ? "the program's handlers were not back; " : "";
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT && word == GOOD) return "ok";
  if (WIFEXITED(status) && WEXITSTATUS(status) == LEAKED)
    snprintf(text, sizeof text, "a read's fault reached the program's handler");
  else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
    snprintf(text, sizeof text, "%shung", said);
  else if (WIFSIGNALED(status))
    snprintf(text, sizeof text, "%sdied of signal %d%s", said, WTERMSIG(status),
             WTERMSIG(status) == SIGSEGV ? " (the stack overflowed?)" : "");
  else
    snprintf(text, sizeof text, "%sexited with status %d", said, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return text;
}

/* The copies' reads fault in turn, one after the other, over and over
   (two copies reading at the same instant may pass one's fault to the
   program's handler: doc/selection.md). */
static long long fault_ill(void)
{
  fake_crash(SIGILL);
  return 1;
}

static long long fault_segv(void)
{
  fake_crash(SIGSEGV);
  return 1;
}

static char in_turn(void)
{
  int k;
  signal(SIGSEGV, leaked);
  signal(SIGILL, leaked);
  note_handlers();
  for (k = 0; k < READS; ++k)
    if (copies[k & 1](k & 2 ? fault_segv : fault_ill) != fake_signal(k & 2 ? SIGSEGV : SIGILL)) return BAD_RESULT;
  return handlers_back() ? GOOD : BAD_HANDLERS;
}

static void one_after_the_other(void)
{
  int status = 0;
  char word = (char) run_child(in_turn, &status);
  const char *how = ending(word, status);
  check(!strcmp(how, "ok"), "copies_one_after_the_other_abort_still_aborts", "%s", how);
}

int main(void)
{
  one_after_the_other();
  return checks_failed();
}
