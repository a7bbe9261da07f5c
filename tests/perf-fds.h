/* How many perf_event fds this process holds, from /proc/self/fd; -1 if
   it cannot be read.  For the clients that prove no perf fd leaks or
   crosses fork and exec. */
#ifndef CPUCYCLES_TEST_PERF_FDS_H
#define CPUCYCLES_TEST_PERF_FDS_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int perf_fds(void)
{
  DIR *d = opendir("/proc/self/fd");
  struct dirent *e;
  int n = 0;
  if (!d) return -1;
  while ((e = readdir(d))) {
    char path[300], target[128];
    ssize_t len;
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    len = readlink(path, target, sizeof target - 1);
    if (len <= 0) continue;
    target[len] = 0;
    if (strstr(target, "perf_event")) ++n;
  }
  closedir(d);
  return n;
}

#endif
