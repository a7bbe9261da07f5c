/* The PowerPC time base rate, as Linux states it in /proc/cpuinfo. */
#ifndef CPUCYCLES_TIMEBASE_H
#define CPUCYCLES_TIMEBASE_H

/* The value of the "timebase : HZ" line in cpuinfo text, or 0 if there is
   no such line or its value is not a sane rate. */
long long cpucycles_timebase_parse(const char *cpuinfo);

/* The setup result of the mftb counters: the rate read from /proc/cpuinfo
   (through the OS seam), else CPUCYCLES_FINDMULTIPLIER.  Says which. */
long long cpucycles_timebase_class(void);

#endif
