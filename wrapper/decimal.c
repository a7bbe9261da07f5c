/* Exact text-to-integer parsing for frequencies. */
#include "decimal.h"

#define DECIMAL_LIMIT 100000000000000000LL /* 10^17: one more digit still fits */

static int digit(char c)
{
  return c >= '0' && c <= '9';
}

const char *cpucycles_decimal(const char *s, int exp10, long long *out)
{
  long long v = 0;
  int digits = 0;

  for (; digit(*s); ++s, ++digits) {
    if (v >= DECIMAL_LIMIT) return 0;
    v = v * 10 + (*s - '0');
  }
  if (*s == '.') {
    ++s;
    /* the first exp10 fraction digits belong to the integer we return */
    for (; exp10 > 0 && digit(*s); --exp10, ++s, ++digits) {
      if (v >= DECIMAL_LIMIT) return 0;
      v = v * 10 + (*s - '0');
    }
    if (exp10 == 0 && digit(*s)) {
      if (*s >= '5') ++v;
      while (digit(*s)) ++s;
    }
  }
  if (!digits) return 0;
  for (; exp10 > 0; --exp10) {
    if (v >= DECIMAL_LIMIT) return 0;
    v *= 10;
  }
  *out = v;
  return s;
}

static int hexdigit(char c)
{
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

const char *cpucycles_hex(const char *s, long long *out)
{
  long long v = 0;
  int digits = 0;

  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && hexdigit(s[2]) >= 0) s += 2;
  for (; hexdigit(*s) >= 0; ++s, ++digits) {
    if (v >= DECIMAL_LIMIT / 16) return 0;
    v = v * 16 + hexdigit(*s);
  }
  if (!digits) return 0;
  *out = v;
  return s;
}
