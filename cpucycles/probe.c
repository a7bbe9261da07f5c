/* What counters' setups and the frequency estimate share (counter.h):
   the words a setup reports through its probe, the one number parser, the
   knobs, and /proc/cpuinfo's "key: value" lines. */
#include <stdarg.h>
#include <string.h>
#include "counter.h"

int cpucycles_say(struct cpucycles_probe *probe, const char *format, ...)
{
  va_list ap;
  if (!probe->format) return 0;
  va_start(ap, format);
  probe->format(probe->words, sizeof probe->words, format, ap);
  va_end(ap);
  return 0;
}

/* Exact, in integers only, so every ISA gets the same bits: v keeps the
   first 18 significant digits (while v < 10^17, one more fits under
   10^18 < 2^63), and v * 10^e is the number (digits dropped after them can
   only decide a rounding that v's own remainder already decides). */
#define DECIMAL_LIMIT 100000000000000000LL /* 10^17 */
#define EXPONENT_MOST 100000 /* an exponent beyond any rate: read no further */
#define DIGIT(c) ((c) >= '0' && (c) <= '9')

const char *cpucycles_decimal(const char *s, int exp10, int exponent, long long *out)
{
  const char *start = s;
  long long v = 0, unit = 1, x = 0, e = exp10;
  int point = 0;
  for (; DIGIT(*s) || (*s == '.' && !point); ++s) {
    if (*s == '.') {
      point = 1;
    } else if (v >= DECIMAL_LIMIT) {
      e += !point;
    } else {
      v = v * 10 + (*s - '0');
      e -= point;
    }
  }
  if (s == start + point) return 0; /* no digit, only perhaps the point */
  if (exponent && (*s == 'e' || *s == 'E')) {
    int minus = s[1] == '-';
    for (s += 1 + (minus || s[1] == '+'), start = s; DIGIT(*s); ++s)
      x = x < EXPONENT_MOST ? x * 10 + (*s - '0') : x;
    if (s == start) return 0; /* a bare exponent mark */
    e += minus ? -x : x;
  }
  for (; v && e > 0; --e, v *= 10) if (v >= DECIMAL_LIMIT) return 0;
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
  if (cpucycles_os_read_text(path, 0, text, sizeof text) <= 0) return 0;
  if (!cpucycles_decimal(text + (text[0] == '-'), 0, 0, &v) || v > 1000000000) return 0;
  *value = text[0] == '-' ? (long) -v : (long) v;
  return 1;
}

#define BLANKS " \t\r" /* between a cpuinfo line's key, colon and value */

/* value() of the line's VALUE where line is "KEY<blanks>:<blanks>VALUE"
   with a KEY of keys[], else 0.  (*eol, a newline or the text's closing
   NUL, is no ':' and no blank.) */
static long long match(const char *const keys[], long long (*value)(const char *s, const char *eol),
                       const char *line, const char *eol, int *key)
{
  long long got;
  for (*key = 0; keys[*key]; ++*key) {
    size_t length = strlen(keys[*key]);
    const char *s =
        (size_t) (eol - line) > length && !strncmp(line, keys[*key], length) ? line + length : eol;
    s += strspn(s, BLANKS);
    if (*s == ':' && (got = value(s + 1 + strspn(s + 1, BLANKS), eol))) return got;
  }
  return 0;
}

/* The file is read a buffer at a time; the partial line at a buffer's end
   is carried to the front of the next.  A line that fills the whole
   buffer is skipped to its end (cut), and a last line without its
   newline counts only at the end of the file: a line cut short is never
   read as a shorter one.  A read short of its room is the last (read_text
   stops short only at the end, or on an error, past which nothing is
   trusted). */
long long cpucycles_cpuinfo(const char *const keys[],
                            long long (*value)(const char *s, const char *eol), char *text,
                            size_t size, size_t first, long most, int *key)
{
  long offset = 0, n, room, kept = 0;
  int cut = 0;
  for (room = (long) first - 1; offset < most; offset += n, room = (long) size - kept - 1) {
    char *line = text, *end, *eol;
    long long got;
    if ((n = cpucycles_os_read_text("/proc/cpuinfo", offset, text + kept, (size_t) room + 1)) < 0)
      return 0;
    end = text + kept + n;
    while (line < end) {
      eol = memchr(line, '\n', (size_t) (end - line));
      if (!eol && n >= room) break; /* it goes on in the next piece */
      if (!eol) eol = end; /* the last line, at the end of the file */
      if (!cut && (got = match(keys, value, line, eol, key))) return got;
      line = eol + 1;
      cut = 0;
    }
    if (n < room) return 0;
    kept = end - line;
    if (kept == (long) size - 1) { /* the whole buffer is one line */
      cut = 1;
      kept = 0;
    }
    memmove(text, line, (size_t) kept);
  }
  return 0;
}
