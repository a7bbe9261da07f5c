/* A fault that a fake counter raises, for the tests of the crash guard
   and the machine profiles (a counter whose instruction traps there). */
#ifndef CPUCYCLES_TEST_CRASH_H
#define CPUCYCLES_TEST_CRASH_H

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A fault as the kernel reports one (si_code > 0): a real one for SIGSEGV
   and, where this file knows an illegal instruction, for SIGILL; abort()
   for SIGABRT; for the others the signal queued to this thread with a
   fault's si_code (Linux lets a process send itself that).  qemu-user takes
   such a queued signal for a fault of its own and dies, so under emulation
   the fakes of SIGFPE and SIGBUS execute the illegal instruction instead,
   or where none is known here, all three fault on memory: fake_signal()
   says which signal a fake really raises. */
#if defined(__x86_64__) || defined(__i386__)
#define ILLEGAL_INSTRUCTION() __asm__ __volatile__("ud2")
#elif defined(__aarch64__) || defined(__riscv) || defined(__powerpc__) || defined(__s390x__) || defined(__sparc__)
#define ILLEGAL_INSTRUCTION() __asm__ __volatile__(".long 0") /* all zero bits: undefined here */
#elif defined(__arm__)
#define ILLEGAL_INSTRUCTION() __builtin_trap() /* udf */
#endif

static int fake_signal(int sig)
{
  if (sig == SIGSEGV || sig == SIGABRT || !getenv("CPUCYCLES_TEST_EMULATED")) return sig;
#ifdef ILLEGAL_INSTRUCTION
  return SIGILL;
#else
  return SIGSEGV;
#endif
}

static void fake_crash(int sig)
{
  siginfo_t info;
  sig = fake_signal(sig);
  if (sig == SIGSEGV) *(volatile int *) 0 = 1;
  if (sig == SIGABRT) abort();
#ifdef ILLEGAL_INSTRUCTION
  if (sig == SIGILL) ILLEGAL_INSTRUCTION();
#endif
  memset(&info, 0, sizeof info);
  info.si_signo = sig;
  info.si_code = sig == SIGILL ? ILL_ILLOPC : sig == SIGFPE ? FPE_INTDIV : BUS_ADRERR;
  info.si_pid = getpid();
  syscall(SYS_rt_tgsigqueueinfo, getpid(), syscall(SYS_gettid), sig, &info);
}

#endif
