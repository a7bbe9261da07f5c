/* What counters' setups and the frequency estimate share (counter.h):
   the words a setup reports through its probe, the one number parser, the
   knobs, and /proc/cpuinfo's "key: value" lines. */
#include <stdarg.h>
#include <string.h>
#include "counter.h"

void cpucycles_say(struct cpucycles_probe *probe, const char *format, ...)
{
  va_list ap;
  if (!probe->format) return;
  va_start(ap, format);
  probe->format(probe->words, sizeof probe->words, format, ap);
  va_end(ap);
}

/* Exact, in integers only, so every ISA gets the same bits: the first
   SIGNIFICANT digits are kept as v, and v * 10^e is the number (digits
   dropped after them can only decide a rounding that v's own remainder
   already decides). */
#define SIGNIFICANT 18 /* decimal digits kept: 10^18 < 2^63 */
#define DECIMAL_LIMIT 100000000000000000LL /* 10^17: one more digit still fits */
#define EXPONENT_MOST 100000 /* an exponent beyond any rate: read no further */
#define DIGIT(c) ((c) >= '0' && (c) <= '9')

const char *cpucycles_decimal(const char *s, int exp10, int exponent, long long *out)
{
  const char *start = s;
  long long v = 0, unit = 1, x = 0;
  long e = exp10;
  int kept = 0, point = 0, minus;
  for (; DIGIT(*s) || (*s == '.' && !point); ++s)
    if (*s == '.') point = 1;
    else if (kept == SIGNIFICANT) e += !point;
    else v = v * 10 + (*s - '0'), kept += v != 0, e -= point;
  if (s == start + point) return 0; /* no digit, only perhaps the point */
  if (exponent && (*s == 'e' || *s == 'E')) {
    minus = s[1] == '-';
    s += 1 + (s[1] == '+' || s[1] == '-');
    if (!DIGIT(*s)) return 0;
    for (; DIGIT(*s); ++s) x = x < EXPONENT_MOST ? x * 10 + (*s - '0') : x;
    e += minus ? -x : x;
  }
  for (; v && e > 0; --e, v *= 10)
    if (v >= DECIMAL_LIMIT) return 0;
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

/* value() of the line's VALUE where line is "KEY<blanks>:<blanks>VALUE"
   with a KEY of keys[], else 0 */
static long long match(const char *const keys[], long long (*value)(const char *s, const char *eol),
                       const char *line, const char *eol, int *key)
{
  long long got;
  for (*key = 0; keys[*key]; ++*key) {
    size_t length = strlen(keys[*key]);
    const char *s = blanks(line + length);
    if ((size_t) (eol - line) > length && !strncmp(line, keys[*key], length) && *s == ':' &&
        (got = value(blanks(s + 1), eol)))
      return got;
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
long long cpucycles_cpuinfo(const char *const keys[], long long (*value)(const char *s, const char *eol),
                            char *text, size_t size, size_t first, long most, int *key)
{
  long offset = 0, n, room;
  size_t kept = 0;
  int cut = 0;
  for (room = (long) first - 1; offset < most; room = (long) (size - kept) - 1) {
    char *line = text, *end, *eol;
    long long got;
    if ((n = cpucycles_os_read_text("/proc/cpuinfo", offset, text + kept, (size_t) room + 1)) < 0) return 0;
    offset += n;
    end = text + kept + n;
    for (; line < end && ((eol = memchr(line, '\n', (size_t) (end - line))) || n < room); line = eol + 1) {
      if (!eol) eol = end;
      if (!cut && (got = match(keys, value, line, eol, key))) return got;
      cut = 0;
    }
    if (n < room) return 0;
    kept = (size_t) (end - line);
    if (kept == size - 1) cut = 1, kept = 0; /* the whole buffer is one line */
    memmove(text, line, kept);
  }
  return 0;
}
