/* One counter, run with no C library: for ISAs that have a cross compiler
   (clang) but no libc here (riscv32, loong64).  scripts/cross-test builds
   this with -DCOUNTER=ID -ffreestanding -nostdlib -static, links it with
   cpucycles/ARCH-NAME.c, and runs it under qemu-user.  It checks what
   selection would: setup does not skip, and 1000 reads never decrease and
   increase at least once.  Output: pass/fail/skip lines, like every test.
   Only write and exit_group are needed, as raw system calls. */
#include "counter.h"

#define READS 1000
#define SYS_WRITE 64       /* the generic Linux syscall table (riscv, loongarch) */
#define SYS_EXIT_GROUP 94

static long syscall3(long n, long a, long b, long c)
{
  register long a0 __asm__("a0") = a;
  register long a1 __asm__("a1") = b;
  register long a2 __asm__("a2") = c;
  register long a7 __asm__("a7") = n;
#if defined(__riscv)
  __asm__ __volatile__("ecall" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a7) : "memory");
#elif defined(__loongarch__)
  __asm__ __volatile__("syscall 0" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a7) : "memory");
#else
#error "no raw system call for this ISA"
#endif
  return a0;
}

/* the words a counter reports, as their format (no printf here) */
int cpucycles_say(struct cpucycles_probe *probe, const char *format, ...)
{
  unsigned int i;
  for (i = 0; format[i] && i + 1 < sizeof probe->words; ++i) probe->words[i] = format[i];
  probe->words[i] = 0;
  return 0;
}

/* no files here: every knob reads as absent, as on a kernel without it */
int cpucycles_read_knob(const char *path, long *value)
{
  (void) path;
  (void) value;
  return 0;
}

static void put(const char *s)
{
  long n = 0;
  while (s[n]) ++n;
  syscall3(SYS_WRITE, 1, (long) s, n);
}

/* long is the register width, so this needs no 64-bit division helper on
   riscv32 */
static void put_number(long v)
{
  char buf[24];
  int i = sizeof buf - 1;
  unsigned long u = v < 0 ? 0UL - (unsigned long) v : (unsigned long) v;
  buf[i] = 0;
  do {
    buf[--i] = (char) ('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0) buf[--i] = '-';
  put(buf + i);
}

static int failures;

static void result(int ok, const char *name)
{
  put(ok ? "pass " : "fail ");
  put(name);
  if (!ok) ++failures;
}

void _start(void)
{
  static struct cpucycles_probe probe;
  long long setup = ticks_setup(&probe), previous, smallest = 0;
  int decreased = 0, i;

  result(setup != CPUCYCLES_SKIP, "freestanding_setup_does_not_skip");
  put(" class ");
  put_number((long) setup);
  if (probe.words[0]) {
    put(" says: ");
    put(probe.words);
  }
  if (probe.may_trap) put(" (may trap: read unguarded here)");
  put("\n");

  previous = ticks();
  for (i = 1; i < READS; ++i) {
    long long now = ticks();
    if (now < previous) decreased = 1;
    if (now > previous && (!smallest || now - previous < smallest)) smallest = now - previous;
    previous = now;
  }
  result(!decreased, "freestanding_never_decreases");
  put("\n");
  result(smallest > 0, "freestanding_moves");
  put(" smallest step ");
  put_number((long) smallest);
  put("\n");
  ticks_close();
  syscall3(SYS_EXIT_GROUP, failures != 0, 0, 0);
  for (;;) {
  }
}
