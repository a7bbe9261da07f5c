/* Serves fixture text the way the OS seam's read_text fills a buffer:
   from offset on, at most size-1 bytes, NUL-terminated; no text is a
   missing file. */
#ifndef CPUCYCLES_TEST_SERVE_H
#define CPUCYCLES_TEST_SERVE_H

#include <stdio.h>
#include <string.h>

static long serve_text(const char *text, long offset, char *buf, size_t size)
{
  size_t n;
  buf[0] = 0;
  if (!text || offset < 0) return -1;
  n = strlen(text);
  if ((size_t) offset > n) offset = (long) n;
  text += offset;
  n -= (size_t) offset;
  if (n > size - 1) n = size - 1;
  memcpy(buf, text, n);
  buf[n] = 0;
  return (long) n;
}

/* /proc/cpuinfo of an x86 machine with cpus processors (1.4 KB each, the
   rate on the 8th line of each) into buf; its length */
static size_t serve_x86_cpuinfo(char *buf, int cpus)
{
  size_t n = 0;
  int cpu, k;
  for (cpu = 0; cpu < cpus; ++cpu) {
    n += (size_t) sprintf(buf + n, "processor\t: %d\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n"
                                   "model name\t: AMD EPYC 7713 64-Core Processor\nstepping\t: 1\n"
                                   "microcode\t: 0xa0011d1\ncpu MHz\t\t: 2096.028\ncache size\t: 512 KB\nflags\t\t:", cpu);
    for (k = 0; k < 150; ++k) n += (size_t) sprintf(buf + n, " flag%d", k);
    n += (size_t) sprintf(buf + n, "\nbogomips\t: 4192.05\n\n");
  }
  return n;
}

#endif
