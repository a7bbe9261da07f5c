/* What counters' setups share (counter.h): the words a setup reports
   through its probe, the knobs it reads, and long files read in pieces
   of whole lines (also the frequency estimate's /proc/cpuinfo). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counter.h"

void cpucycles_say(struct cpucycles_probe *probe, const char *format, ...)
{
  const char *f;
  int n = 0, longer;
  va_list ap;
  va_start(ap, format);
  probe->say = format;
  for (f = format; *f && n < CPUCYCLES_SAY_ARGS; ++f) {
    if (*f != '%') continue;
    f += 1 + (longer = f[1] == 'l');
    if (*f == 's') probe->arg[n++].s = va_arg(ap, const char *);
    else if (*f == 'd') probe->arg[n++].n = longer ? va_arg(ap, long) : va_arg(ap, int);
    else if (*f == 'u') probe->arg[n++].n = longer ? (long long) va_arg(ap, unsigned long) : va_arg(ap, unsigned);
    if (!*f) break;
  }
  va_end(ap);
}

const char *cpucycles_words(struct cpucycles_probe *probe)
{
  const char *f = probe->say ? probe->say : "";
  size_t used = 0, size = sizeof probe->why;
  int n = 0;
  for (; *f && used + 1 < size; ++f) {
    char number[24];
    const char *piece = number;
    if (*f != '%') {
      probe->why[used++] = *f;
      continue;
    }
    f += 1 + (f[1] == 'l');
    if (!*f) break;
    if (*f == 's')
      piece = n < CPUCYCLES_SAY_ARGS ? probe->arg[n++].s : "";
    else
      snprintf(number, sizeof number, "%lld", n < CPUCYCLES_SAY_ARGS ? probe->arg[n++].n : 0);
    while (*piece && used + 1 < size) probe->why[used++] = *piece++;
  }
  probe->why[used] = 0;
  return probe->why;
}

int cpucycles_read_knob(const char *path, long *value)
{
  char text[64], *end;
  if (cpucycles_os_read_text(path, 0, text, sizeof text) <= 0) return 0;
  *value = strtol(text, &end, 10);
  return end != text;
}

/* The next piece of path that holds only whole lines, read into text from
   *offset on, which it advances.  Returns the piece's length (its start
   in *piece; the byte after it is NUL), or 0 at the end, on an error or
   past most bytes.  A piece after the first is read from one byte
   earlier: that byte must be a newline, else the piece starts inside a
   line (one longer than the buffer, or the file changed between reads),
   which is skipped.  A last line without its newline counts only at the
   end of the file: a line cut by the buffer is never read as a shorter
   one. */
long cpucycles_read_lines(const char *path, long *offset, long most, char *text, size_t size, char **piece)
{
  while (*offset < most) {
    long start = *offset > 0 ? *offset - 1 : 0;
    long n = cpucycles_os_read_text(path, start, text, size);
    int at_end = n < (long) size - 1;
    char *first = text + (*offset > 0), *p = first, *end, *q;
    if (n <= (*offset > 0)) return 0;
    end = text + n;
    if (*offset > 0 && text[0] != '\n') {
      q = memchr(p, '\n', (size_t) (end - p));
      if (!q) {
        if (at_end) return 0;
        *offset = start + n;
        continue;
      }
      p = q + 1;
    }
    if (at_end) {
      *offset = start + n + 1; /* the next read finds the end */
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
