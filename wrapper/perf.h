/* Shared perf_event helpers for the perf-based counters (Linux only; the
   counters that include this fail to compile elsewhere and are left out). */
#ifndef CPUCYCLES_PERF_H
#define CPUCYCLES_PERF_H

#include <linux/perf_event.h>

/* Opens attr for this thread on any CPU, close-on-exec, trying the four
   exclude_kernel/exclude_hv combinations from most to least exclusive.
   Returns the fd, or -1 after telling the counter why (errno in words). */
int cpucycles_perf_open(struct perf_event_attr *attr);

/* Plain words for a perf_event_open errno. */
const char *cpucycles_perf_words(int err);

#endif
