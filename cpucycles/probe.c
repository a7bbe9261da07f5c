/* The words a counter's setup reports through its probe (counter.h). */
#include <stdarg.h>
#include <stdio.h>
#include "counter.h"

void cpucycles_say(struct cpucycles_probe *probe, const char *format, ...)
{
  va_list ap;
  va_start(ap, format);
  vsnprintf(probe->why, sizeof probe->why, format, ap);
  va_end(ap);
}
