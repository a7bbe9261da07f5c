/* /proc/cpuinfo, read once per process and shared. */
#include <stdlib.h>
#include <string.h>
#include "cpuinfo.h"
#include "os.h"

#define CPUINFO_BYTES 16384 /* enough for the first CPU's lines */

/* On the heap, not in the library's data: a 16 KiB array there would
   spread the first call's variables over more pages (each first touch is
   a page fault, over 10 microseconds in a virtual machine). */
static char *text;
static int asked;

const char *cpucycles_cpuinfo(void)
{
  if (!asked) {
    asked = 1;
    if (!text) text = malloc(CPUINFO_BYTES);
    if (text && cpucycles_os.read_text("/proc/cpuinfo", text, CPUINFO_BYTES) <= 0) text[0] = 0;
  }
  return text && text[0] ? text : 0;
}

void cpucycles_cpuinfo_forget(void)
{
  asked = 0;
}

static const char *blanks(const char *s)
{
  while (*s == ' ' || *s == '\t') ++s;
  return s;
}

const char *cpucycles_cpuinfo_value(const char *line, const char *key)
{
  size_t n = strlen(key);
  if (strncmp(line, key, n)) return 0;
  line = blanks(line + n);
  if (*line != ':') return 0;
  return blanks(line + 1);
}

int cpucycles_cpuinfo_ends(const char *s, const char *unit)
{
  s = blanks(s);
  if (unit && !strncmp(s, unit, strlen(unit))) s = blanks(s + strlen(unit));
  while (*s == '\r') ++s;
  return !*s || *s == '\n';
}

const char *cpucycles_cpuinfo_next(const char *line)
{
  line = strchr(line, '\n');
  return line && line[1] ? line + 1 : 0;
}
