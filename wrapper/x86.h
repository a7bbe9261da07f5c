/* What CPUID says about the x86 time-stamp counter. */
#ifndef CPUCYCLES_X86_H
#define CPUCYCLES_X86_H

/* The invariant TSC rate in ticks per second when the CPU (or hypervisor)
   states it and a short measurement agrees within 1%; 0 otherwise.  Also
   tells the calling counter, through cpucycles_counter_says, where the rate
   came from or why there is none.  CPUID is asked once per process. */
long long cpucycles_x86_tsc_hz(void);

/* The setup result of every TSC counter: that rate, else
   CPUCYCLES_MAYBECYCLECOUNTER. */
long long cpucycles_x86_tsc_class(void);

/* What the perf counters need to know about the CPU, from CPUID (through
   the OS seam, so tests can play any CPU).  Asked once per process. */
#define CPUCYCLES_X86_INTEL 1 /* vendor string GenuineIntel */
#define CPUCYCLES_X86_AMD 2   /* AuthenticAMD, or Hygon's licensed Zen */
struct cpucycles_x86_facts {
  int vendor;                  /* one of those, or 0 */
  unsigned int pmc_version;    /* leaf 0xA EAX[7:0]; 0 if no leaf 0xA */
  unsigned int fixed_counters; /* leaf 0xA EDX[4:0] */
  unsigned int fixed_width;    /* leaf 0xA EDX[12:5], in bits */
};
const struct cpucycles_x86_facts *cpucycles_x86_facts(void);

/* RDPMC: the performance counter the ECX value names (bit 30 set: a
   fixed-function counter).  Faults unless the OS allows user RDPMC. */
#define CPUCYCLES_X86_FIXED_CYCLES 0x40000001 /* fixed-function counter 1 */
#if defined(__x86_64__) || defined(__i386__)
static inline unsigned long long cpucycles_x86_rdpmc(unsigned int counter)
{
  unsigned int lo, hi;
  __asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
  return ((unsigned long long) hi << 32) | lo;
}
#endif

/* Forgets what CPUID said, so a test can play another CPU. */
void cpucycles_x86_forget(void);

#endif
