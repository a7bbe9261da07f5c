/* make test-system: the perf fds of a chosen perf counter stay in the
   process that opened them.  The parent makes the first call, counts its
   perf fds, then starts itself again with fork+exec ("child"), which
   counts what it inherited, and forks once more without exec, where the
   library's fork handler closes them.  Prints
     fds IMPLEMENTATION parent P exec-child E fork-child F
   and exits 1 unless P > 0 and E = F = 0. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cpucycles.h"
#include "perf-fds.h"

/* the exit status of the child: its count of perf fds */
static int child(int exec)
{
  int status;
  pid_t pid;
  fflush(stdout);
  pid = fork();
  if (pid == 0) {
    if (exec) {
      execl("/proc/self/exe", "fds", "child", (char *) 0);
      _exit(100);
    }
    _exit(perf_fds());
  }
  if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) return 101;
  return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
  int parent, exec_child, fork_child;
  if (argc > 1 && !strcmp(argv[1], "child")) return perf_fds();
  cpucycles();
  parent = perf_fds();
  exec_child = child(1);
  fork_child = child(0);
  printf("fds %s parent %d exec-child %d fork-child %d\n", cpucycles_implementation(), parent, exec_child,
         fork_child);
  return !(parent > 0 && exec_child == 0 && fork_child == 0);
}
