/* RDTSC through __rdtsc() on 32-bit x86: the same code as amd64-tsc. */
#include "amd64-tsc.c"
