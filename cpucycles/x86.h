/* What CPUID says about the x86 time-stamp counter and the PMU. */
#ifndef CPUCYCLES_X86_H
#define CPUCYCLES_X86_H

#include "counter.h"

/* The setup of every TSC counter (not named _setup: the counter x86-tsc
   owns cpucycles_x86_tsc_setup): skip where RDTSC faults, else the
   invariant TSC rate when the CPU (or hypervisor) states it, else
   MAYBECYCLECOUNTER.  No measurement here: the first call must not wait;
   the trace checks a stated rate (doc/selection.md). */
CPUCYCLES_COLD long long cpucycles_x86_tsc_probe(struct cpucycles_probe *probe);

/* The stated TSC rate behind that (0 if none), and the words saying where
   it came from or why there is none. */
CPUCYCLES_COLD long long cpucycles_x86_tsc_hz(const struct cpucycles_probe *probe,
                                              const char **words);

/* What the RDPMC counters need to know about the CPU, made on each call
   from the answers of probe's selection (setups alone call it: its struct
   is rewritten each time). */
#define CPUCYCLES_X86_INTEL 1 /* GenuineIntel */
#define CPUCYCLES_X86_AMD 2   /* AuthenticAMD, or Hygon's licensed Zen */
struct cpucycles_x86_facts {
  int vendor;                  /* one of those, or 0 */
  unsigned int pmc_version;    /* leaf 0xA EAX[7:0]; 0 if no leaf 0xA */
  unsigned int fixed_counters; /* leaf 0xA EDX[4:0] */
  unsigned int fixed_width;    /* leaf 0xA EDX[12:5], in bits */
};
CPUCYCLES_COLD const struct cpucycles_x86_facts *
cpucycles_x86_facts(const struct cpucycles_probe *probe);

/* The facts where the counters of Intel's fixed-function counter 1 can
   start: an Intel CPU with a PMU exposed.  Else 0, after saying why. */
CPUCYCLES_COLD const struct cpucycles_x86_facts *
cpucycles_x86_intel_pmu(struct cpucycles_probe *probe);

/* RDPMC of the counter ECX names (bit 30: fixed-function).  Faults unless
   the OS lets user code run RDPMC. */
#define CPUCYCLES_X86_FIXED_CYCLES 0x40000001 /* fixed-function counter 1 */
#if defined(__x86_64__) || defined(__i386__)
static inline unsigned long long cpucycles_x86_rdpmc(unsigned int counter)
{
  unsigned int lo, hi;
  __asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
  return ((unsigned long long) hi << 32) | lo;
}
#endif

#endif
