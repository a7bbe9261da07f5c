/* Serves fixture text the way the OS seam's read_text fills a buffer:
   from offset on, at most size-1 bytes, NUL-terminated; no text is a
   missing file. */
#ifndef CPUCYCLES_TEST_SERVE_H
#define CPUCYCLES_TEST_SERVE_H

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

#endif
