/* What counters' setups and the frequency estimate share (counter.h):
   the words a setup reports through its probe (kept unformatted), the one
   number parser, the knobs, and /proc/cpuinfo read in pieces of whole
   lines. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counter.h"

void cpucycles_say(struct cpucycles_probe *probe, const char *format, ...)
{
  va_list ap;
  if (!probe->speak) return;
  va_start(ap, format);
  vsnprintf(probe->words, sizeof probe->words, format, ap);
  va_end(ap);
}

/* Exact, in integers only, so every ISA gets the same bits: the first
   SIGNIFICANT digits are kept as v, and v * 10^e is the number (digits
   dropped after them can only decide a rounding that v's own remainder
   already decides). */
#define SIGNIFICANT 18 /* decimal digits kept: 10^18 < 2^63 */
#define DECIMAL_LIMIT 100000000000000000LL /* 10^17: one more digit still fits */
#define EXPONENT_MOST 100000 /* an exponent beyond any rate: read no further */

static int digit(char c)
{
  return c >= '0' && c <= '9';
}

const char *cpucycles_decimal(const char *s, int exp10, int exponent, long long *out)
{
  const char *start = s;
  long long v = 0, unit = 1;
  long e = exp10;
  int kept = 0, point = 0;

  for (; digit(*s) || (*s == '.' && !point); ++s) {
    if (*s == '.') {
      point = 1;
    } else if (kept == SIGNIFICANT) {
      e += !point;
    } else {
      v = v * 10 + (*s - '0');
      kept += v != 0;
      e -= point;
    }
  }
  if (s == start + point) return 0; /* no digit, only perhaps the point */
  if (exponent && (*s == 'e' || *s == 'E')) {
    long x = 0;
    int negative = 0;
    ++s;
    if (*s == '+' || *s == '-') negative = *s++ == '-';
    if (!digit(*s)) return 0;
    for (; digit(*s); ++s)
      if (x < EXPONENT_MOST) x = x * 10 + (*s - '0');
    e += negative ? -x : x;
  }
  for (; v && e > 0; --e) {
    if (v >= DECIMAL_LIMIT) return 0;
    v *= 10;
  }
  /* v < 10^18, so unit stays a power of ten no greater: where e is still
     negative after it passed v, v is under a tenth of the divisor and
     rounds to 0 */
  for (; e < 0 && unit <= v; ++e) unit *= 10;
  *out = e < 0 ? 0 : v / unit + (2 * (v % unit) >= unit);
  return s;
}

int cpucycles_read_knob(const char *path, long *value)
{
  char text[64];
  long long v;
  int minus;
  if (cpucycles_os_read_text(path, 0, text, sizeof text) <= 0) return 0;
  minus = text[0] == '-';
  if (!cpucycles_decimal(text + minus, 0, 0, &v) || v > 1000000000) return 0;
  *value = minus ? (long) -v : (long) v;
  return 1;
}

static const char *blanks(const char *s)
{
  while (*s == ' ' || *s == '\t' || *s == '\r') ++s;
  return s;
}

/* The next piece of path that holds only whole lines, read into text from
   *offset on, which it advances.  Returns the piece's length (its start
   in *piece; the byte after it is NUL), or 0 at the end, on an error or
   past most bytes.  A piece after the first is read from one byte
   earlier: that byte must be a newline, else the piece starts inside a
   line (one longer than the buffer, or the file changed between reads),
   which is skipped.  A last line without its newline counts only at the
   end of the file: a line cut by the buffer is never read as a shorter
   one.  A read short of its buffer is the last: read_text stops short
   only at the file's end (or on a read error, where nothing further is
   trusted). */
static long read_lines(const char *path, long *offset, long most, char *text, size_t size, char **piece)
{
  while (*offset < most) {
    long start = *offset > 0 ? *offset - 1 : 0;
    long n = cpucycles_os_read_text(path, start, text, size);
    char *first = text + (*offset > 0), *p = first, *end, *q;
    if (n <= (*offset > 0)) return 0;
    end = text + n;
    if (*offset > 0 && text[0] != '\n') {
      q = memchr(p, '\n', (size_t) (end - p));
      p = q ? q + 1 : end;
    }
    if (n < (long) size - 1) {
      *offset = most;
    } else {
      for (q = end; q > p && q[-1] != '\n'; --q) {}
      if (q == p) {
        /* no whole line here: read again from p, or, if p is where the
           piece began, skip a line longer than the buffer */
        *offset = start + (p > first ? p - text : n);
        continue;
      }
      *q = 0;
      end = q;
      *offset = start + (q - text);
    }
    if (end > p) {
      *piece = p;
      return (long) (end - p);
    }
  }
  return 0;
}

long long cpucycles_cpuinfo(const char *const keys[], long long (*value)(const char *s, const char *eol),
                            char *text, size_t size, size_t first, long most, int *key)
{
  long offset = 0, n;
  char *piece;
  while ((n = read_lines("/proc/cpuinfo", &offset, most, text, offset ? size : first, &piece)) > 0) {
    const char *line = piece, *end = piece + n;
    for (; line < end; ++line) {
      const char *eol = memchr(line, '\n', (size_t) (end - line)), *s;
      long long got;
      if (!eol) eol = end;
      for (*key = 0; keys[*key]; ++*key) {
        size_t length = strlen(keys[*key]);
        if ((size_t) (eol - line) <= length || strncmp(line, keys[*key], length)) continue;
        s = blanks(line + length);
        if (*s == ':' && (got = value(blanks(s + 1), eol))) return got;
      }
      line = eol;
    }
  }
  return 0;
}
