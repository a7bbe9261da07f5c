/* arm32-cortex on an emulated ARMv7 PMU, with no operating system:
   tests/integration/arm32pmu.sh builds this with -DSCENARIO=NAME, links it
   with cpucycles/arm32-cortex.c (keeping only what is used) and boots it in
   qemu-system-arm (-M virt, semihosting).  qemu-user cannot do this: there
   every PMU access traps, so the counter's start is never reached.

   Here the program is the kernel.  In SVC mode it puts the PMU into the
   state a scenario names and sets PMUSERENR as a kernel module would, then
   drops to User mode and reads the counter through ticks(), exactly as the
   library would, comes back with SVC and checks what the reads saw and
   what the PMU registers hold now.  Output: pass/fail lines through
   semihosting.

   Scenarios:
   stopped   user access granted (PMUSERENR.EN), counter stopped and
             divided by 64 (PMCR.E 0, PMCR.D 1, PMCNTENSET.C 0), an old
             overflow flag set, PMCR.X set: the first ticks() must start
             it (E 1, D 0, PMCNTENSET.C 1, overflow flag cleared), keep X,
             and not reset it.
   divided   as stopped, but the counter runs, every 64th cycle (E 1,
             D 1, PMCNTENSET.C 1): the same must hold.
   running   the counter already runs (E 1, PMCNTENSET.C 1), PMCR.X set,
             an overflow flag set: nothing may be written.
   readonly  ARMv8 AArch32 (-cpu max): PMUSERENR.CR grants reads of the
             cycle counter and nothing else, the counter runs: the reads
             work and nothing traps. */

/* the counter's read, by the name the build gives it (cpucycles/counter.h);
   that header is left out here, since the harness needs nothing else of it */
long long cpucycles_arm32_cortex_ticks(void);

#define PMCR_E (1u << 0)
#define PMCR_D (1u << 3)
#define PMCR_X (1u << 4)
#define CYCLE_COUNTER (1u << 31)  /* in PMCNTENSET/CLR and PMOVSR */
#define USERENR_EN (1u << 0)
#define USERENR_CR (1u << 2)      /* ARMv8: cycle counter reads only */
#define OLD_COUNT 0x12345678u     /* where the stopped counter stands */

#define SCENARIO_stopped 1
#define SCENARIO_divided 2
#define SCENARIO_running 3
#define SCENARIO_readonly 4
#define PASTE(a, b) a##b
#define SCENARIO_ID(name) PASTE(SCENARIO_, name)
#define THIS SCENARIO_ID(SCENARIO)
#define STRING(x) #x
#define NAME(x) STRING(x)

/* --- the PMU, from SVC mode --- */
#define CP15_GET(name, crn, crm, op2)                                      \
  static unsigned int name(void)                                           \
  {                                                                        \
    unsigned int v;                                                        \
    __asm__ __volatile__("mrc p15, 0, %0, " #crn ", " #crm ", " #op2 : "=r"(v)); \
    return v;                                                              \
  }
#define CP15_SET(name, crn, crm, op2)                                      \
  static void name(unsigned int v)                                         \
  {                                                                        \
    __asm__ __volatile__("mcr p15, 0, %0, " #crn ", " #crm ", " #op2 : : "r"(v)); \
  }
CP15_GET(pmcr, c9, c12, 0)
CP15_SET(set_pmcr, c9, c12, 0)
CP15_GET(pmcntenset, c9, c12, 1)
CP15_SET(set_pmcntenset, c9, c12, 1)
CP15_SET(set_pmcntenclr, c9, c12, 2)
CP15_GET(pmovsr, c9, c12, 3)
CP15_SET(set_pmccntr, c9, c13, 0)
CP15_SET(set_pmuserenr, c9, c14, 0)

/* --- semihosting: output and exit --- */
static long semihost(long op, const void *arg)
{
  register long r0 __asm__("r0") = op;
  register const void *r1 __asm__("r1") = arg;
  __asm__ __volatile__("svc 0x123456" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

static void put(const char *s)
{
  semihost(0x04, s); /* SYS_WRITE0 */
}

static void put_hex(unsigned int v)
{
  char buf[11];
  int i;
  buf[0] = '0';
  buf[1] = 'x';
  for (i = 0; i < 8; ++i) buf[2 + i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 15];
  buf[10] = 0;
  put(buf);
}

static void stop(void)
{
  semihost(0x18, (const void *) 0x20026); /* SYS_EXIT, application exit */
  for (;;) {
  }
}

static int failures;

static void check(int ok, const char *name, const char *what, unsigned int value)
{
  put(ok ? "pass " : "fail ");
  put(name);
  if (!ok) {
    put(": ");
    put(what);
    put(" ");
    put_hex(value);
    ++failures;
  }
  put("\n");
}

/* --- what User mode saw --- */
static volatile unsigned int first, second;
static volatile unsigned int spin;

/* Runs in User mode: two reads, some work between, then back to SVC. */
void user_main(void)
{
  unsigned int i;
  first = (unsigned int) cpucycles_arm32_cortex_ticks();
  for (i = 0; i < 1000; ++i) spin = spin + i;
  second = (unsigned int) cpucycles_arm32_cortex_ticks();
  __asm__ __volatile__("svc #0");
}

void undefined_instruction(unsigned int address)
{
  check(0, "arm32pmu_no_trap", "undefined instruction at", address);
  stop();
}

/* SVC from User mode lands here (the exception is never returned from). */
void back_from_user(void)
{
  unsigned int r = pmcr();
  check(second != first, "arm32pmu_counter_moves", "two reads gave", second);
  if (THIS == SCENARIO_stopped || THIS == SCENARIO_divided) {
    check(first - OLD_COUNT < 0x1000000u, "arm32pmu_not_reset", "first read", first);
    check(r & PMCR_E, "arm32pmu_pmcr_e_set", "PMCR", r);
    check(!(r & PMCR_D), "arm32pmu_pmcr_d_cleared", "PMCR", r);
    check(r & PMCR_X, "arm32pmu_pmcr_x_kept", "PMCR", r);
    check(pmcntenset() & CYCLE_COUNTER, "arm32pmu_pmcntenset_c_set", "PMCNTENSET", pmcntenset());
    check(!(pmovsr() & CYCLE_COUNTER), "arm32pmu_overflow_cleared", "PMOVSR", pmovsr());
  } else {
    check(r & PMCR_X, "arm32pmu_pmcr_untouched", "PMCR", r);
    check(pmovsr() & CYCLE_COUNTER, "arm32pmu_overflow_untouched", "PMOVSR", pmovsr());
  }
  put(failures ? "arm32pmu: failed\n" : "arm32pmu: ok\n");
  stop();
}

/* Sets the cycle counter's overflow flag the honest way: let it wrap. */
static void overflow(void)
{
  set_pmcntenclr(CYCLE_COUNTER); /* written only while stopped */
  set_pmccntr(0xffffff00u);
  set_pmcr(pmcr() | PMCR_E);
  set_pmcntenset(CYCLE_COUNTER);
  while (!(pmovsr() & CYCLE_COUNTER)) spin = spin + 1;
}

void main_svc(void)
{
  put("arm32pmu: scenario " NAME(SCENARIO) "\n");
  overflow();
  if (THIS == SCENARIO_stopped || THIS == SCENARIO_divided) {
    set_pmcntenclr(CYCLE_COUNTER);
    set_pmcr((pmcr() & ~PMCR_E) | PMCR_D | PMCR_X);
    set_pmccntr(OLD_COUNT);
    if (THIS == SCENARIO_divided) {
      set_pmcr(pmcr() | PMCR_E);
      set_pmcntenset(CYCLE_COUNTER);
    }
    set_pmuserenr(USERENR_EN);
  } else {
    set_pmcr((pmcr() & ~PMCR_D) | PMCR_X);
    set_pmuserenr(THIS == SCENARIO_readonly ? USERENR_CR : USERENR_EN);
  }
  if (pmovsr() != CYCLE_COUNTER) check(0, "arm32pmu_setup", "PMOVSR", pmovsr());
  __asm__ __volatile__("cps #0x10\n\tbl user_main" : : : "memory");
}

/* Start-up: stacks for SVC, User and Undefined mode, the vector table
   (VBAR), then main_svc() in SVC mode. */
__asm__(
  ".section .text.start, \"ax\"\n"
  ".arm\n"
  ".global _start\n"
  "_start:\n"
  "  ldr sp, =svc_stack_top\n"
  "  ldr r0, =vectors\n"
  "  mcr p15, 0, r0, c12, c0, 0\n"
  "  cps #0x1f\n" /* System mode: sets the User stack */
  "  ldr sp, =usr_stack_top\n"
  "  cps #0x1b\n"
  "  ldr sp, =und_stack_top\n"
  "  cps #0x13\n"
  "  bl main_svc\n"
  "1: b 1b\n"
  ".balign 32\n"
  "vectors:\n"
  "  b .\n"
  "  b undefined_entry\n"
  "  b svc_entry\n"
  "  b .\n"
  "  b .\n"
  "  b .\n"
  "  b .\n"
  "  b .\n"
  "undefined_entry:\n"
  "  sub r0, lr, #4\n"
  "  bl undefined_instruction\n"
  "svc_entry:\n"
  "  ldr sp, =svc_stack_top\n"
  "  bl back_from_user\n"
  ".ltorg\n"
  ".bss\n"
  ".balign 8\n"
  "  .space 8192\n"
  "svc_stack_top:\n"
  "  .space 8192\n"
  "usr_stack_top:\n"
  "  .space 4096\n"
  "und_stack_top:\n"
  ".text\n");
