/* What counters' setups share: the words a setup reports through its
   probe, and the knobs they read (counter.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "counter.h"

void cpucycles_say(struct cpucycles_probe *probe, const char *format, ...)
{
  va_list ap;
  va_start(ap, format);
  vsnprintf(probe->why, sizeof probe->why, format, ap);
  va_end(ap);
}

int cpucycles_read_knob(const char *path, long *value)
{
  char text[64], *end;
  if (cpucycles_os_read_text(path, 0, text, sizeof text) <= 0) return 0;
  *value = strtol(text, &end, 10);
  return end != text;
}
