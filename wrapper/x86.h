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

#endif
