#ifndef CPUCYCLES_DECIMAL_H
#define CPUCYCLES_DECIMAL_H

/* Parses unsigned decimal text "DIGITS[.DIGITS]" at s (no sign, no exponent)
   and stores the value times 10^exp10 in *out, rounded half up, using only
   integer arithmetic, so "2596.122" with exp10 6 is exactly 2596122000 on
   every ISA.  Returns the first character after the number, or 0 if there is
   no digit or the result would not fit in 10^18. */
const char *cpucycles_decimal(const char *s, int exp10, long long *out);

/* Same for hexadecimal digits (optional 0x), with no scaling. */
const char *cpucycles_hex(const char *s, long long *out);

#endif
