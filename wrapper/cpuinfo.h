/* /proc/cpuinfo: read once, and its "KEY : VALUE" lines. */
#ifndef CPUCYCLES_CPUINFO_H
#define CPUCYCLES_CPUINFO_H

/* The text of /proc/cpuinfo (its first 16 KiB), read through the OS seam
   at most once per process: the persecond estimate, the PowerPC time base
   and cpucycles-info all look in it.  0 if it cannot be read. */
const char *cpucycles_cpuinfo(void);

/* Forgets the text, for tests that play another machine. */
void cpucycles_cpuinfo_forget(void);

/* If line begins "KEY<blanks>:<blanks>", where its value begins; else 0. */
const char *cpucycles_cpuinfo_value(const char *line, const char *key);

/* Whether s, after blanks and then unit (if not 0) if it is there, is at
   the end of its line: what may follow a number in a value. */
int cpucycles_cpuinfo_ends(const char *s, const char *unit);

/* The line after line, or 0 at the end of the text. */
const char *cpucycles_cpuinfo_next(const char *line);

#endif
