/* Whether the trace, printed now by cpucycles_tracesetup() (after the
   first call), has a line that starts with prefix and holds word (any
   line with prefix, if word is 0), with the reasons asked for as
   cpucycles-info asks (the environment; a fake getenv must answer it).
   It takes over stdout: for a child that reports through a pipe. */
#ifndef CPUCYCLES_TEST_TRACE_H
#define CPUCYCLES_TEST_TRACE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cpucycles.h"

static int trace_has(const char *prefix, const char *word)
{
  char line[512];
  FILE *trace = tmpfile();
  int found = 0;
  if (!trace) return 0;
  fflush(stdout);
  if (dup2(fileno(trace), 1) < 0) return 0;
  setenv("CPUCYCLES_TRACE_REASONS", "1", 1);
  cpucycles_tracesetup();
  fflush(stdout);
  rewind(trace);
  while (fgets(line, sizeof line, trace))
    if (!strncmp(line, prefix, strlen(prefix)) && (!word || strstr(line, word))) found = 1;
  fclose(trace);
  return found;
}

#endif
