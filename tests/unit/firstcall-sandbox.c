/* A first call inside a seccomp sandbox (issue 32, rows 3 and 10).
   Row 3: the sandbox answers a forbidden syscall from its SIGSYS handler
   (SECCOMP_RET_TRAP, as Chromium's broker and libseccomp's SCMP_ACT_TRAP
   do): the first call must let the handler run (a blocked SIGSYS is
   forced by the kernel: the process dies) and go on with its answer.
   Row 10: SECCOMP_RET_KILL_THREAD kills the main thread inside its first
   call: another thread's call must take the selection over, although a
   dead main thread stays a zombie that still answers tgkill.
   Each case runs in a fresh process; a watchdog thread ends a hung one. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "child.h"
#include "cpucycles.h"

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>

#ifndef SECCOMP_RET_KILL_THREAD
#define SECCOMP_RET_KILL_THREAD SECCOMP_RET_KILL /* its old name */
#endif
#define BOUND_S 10 /* a case this long is hung */

/* the selection opens perf events or files (knobs, cpuinfo) first */
static int forbid_opens(unsigned int action)
{
  struct sock_filter rules[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 1, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, action),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = { sizeof rules / sizeof rules[0], rules };
  return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0;
}

/* an alarm would not do: a hung first call blocks SIGALRM in every
   thread it holds */
static void *watchdog(void *unused)
{
  (void) unused;
  sleep(BOUND_S);
  _exit(14);
}

static void start_watchdog(void)
{
  pthread_t t;
  sigset_t all, mask;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &mask);
  pthread_create(&t, 0, watchdog, 0);
  pthread_sigmask(SIG_SETMASK, &mask, 0);
}

static volatile sig_atomic_t answered;

/* the sandbox's answer: the syscall fails with EACCES */
static void broker(int sig, siginfo_t *info, void *context)
{
  ucontext_t *uc = context;
  (void) sig;
  (void) info;
#ifdef __x86_64__
  uc->uc_mcontext.gregs[REG_RAX] = -EACCES;
#else
  uc->uc_mcontext.regs[0] = (unsigned long long) -EACCES;
#endif
  ++answered;
}

/* a real counter that moves, and a rate */
static int counts(void)
{
  long long a = cpucycles(), b;
  long tries = 0;
  do b = cpucycles(); while (b == a && ++tries < 10000000);
  return b > a && strcmp(cpucycles_implementation(), "default-zero") && cpucycles_persecond() > 0;
}

/* 0: counted after the handler answered; 2: the handler never ran;
   3: no count; 4: no sandbox here */
static int trapped_first_call(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = broker;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSYS, &sa, 0);
  start_watchdog();
  if (!forbid_opens(SECCOMP_RET_TRAP)) return 4;
  if (!counts()) return 3;
  return answered ? 0 : 2;
}

static void no_fake(void) {}

/* case in a fresh process: status 0 passes, 4 (no seccomp) skips, and
   meanings says what the others mean */
static void sandboxed(const char *name, int (*test)(void), const char *meanings)
{
  int status = fresh_status(no_fake, test);
  if (status == 4)
    skip(name, "no seccomp filter here (an emulator?)");
  else
    check(status == 0, name, "status %d (%s)", status, meanings);
}

static pid_t main_tid;

/* whether the main thread is dead (a zombie or gone) */
static int main_dead(void)
{
  char path[64], stat[256], *state;
  FILE *f;
  size_t n;
  snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int) main_tid);
  if (!(f = fopen(path, "r"))) return 1;
  n = fread(stat, 1, sizeof stat - 1, f);
  fclose(f);
  stat[n] = 0;
  state = strrchr(stat, ')');
  return !state || state[1] != ' ' || state[2] == 'Z' || state[2] == 'X';
}

/* exits the process: 0 took over and counted; 5 the main thread lived;
   3 no count */
static void *waiter(void *unused)
{
  int i;
  (void) unused;
  for (i = 0; i < 2000 && !main_dead(); ++i) usleep(1000);
  if (!main_dead()) _exit(5);
  _exit(counts() ? 0 : 3);
}

static int killed_main_thread(void)
{
  pthread_t t;
  main_tid = getpid();
  start_watchdog();
  if (pthread_create(&t, 0, waiter, 0) != 0) return 6;
  if (!forbid_opens(SECCOMP_RET_KILL_THREAD)) _exit(4);
  cpucycles(); /* killed in here */
  _exit(7);
}

int main(void)
{
  sandboxed("first_call_sigsys_answered_by_sandbox", trapped_first_call,
            "1031: killed by the SIGSYS the first call blocked; 14: hung; 2: handler never ran; 3: no count");
  sandboxed("first_call_of_killed_main_thread_taken_over", killed_main_thread,
            "14: the waiting thread hung; 5: main thread not killed; 7: not killed in the first call; 3: no count");
  return checks_failed();
}

#else
int main(void)
{
  skip("first_call_sigsys_answered_by_sandbox", "the test's handler knows x86_64 and arm64 Linux only");
  skip("first_call_of_killed_main_thread_taken_over", "the test's handler knows x86_64 and arm64 Linux only");
  return 0;
}
#endif
