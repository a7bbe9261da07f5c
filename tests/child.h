/* Runs job(out) in a forked child, since the first call happens once a
   process: the child starts with *out as the parent set it, and what it
   leaves there is copied back.  Returns 1 if the child reported, 0 if
   not (it died, or could not start). */
#ifndef CPUCYCLES_TEST_CHILD_H
#define CPUCYCLES_TEST_CHILD_H

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static inline int in_child(void (*job)(void *), void *out, size_t size)
{
  int p[2], status, ok;
  pid_t pid;
  if (pipe(p)) return 0;
  pid = fork();
  if (pid == 0) {
    close(p[0]);
    job(out);
    _exit(write(p[1], out, size) == (ssize_t) size ? 0 : 1);
  }
  close(p[1]);
  ok = pid > 0 && read(p[0], out, size) == (ssize_t) size;
  close(p[0]);
  if (pid > 0) waitpid(pid, &status, 0);
  return ok;
}

/* Runs test in a fresh process, after prepare (the fake OS it needs):
   its exit status, 1000 + the signal that killed it, or -1. */
static inline int fresh_status(void (*prepare)(void), int (*test)(void))
{
  int status;
  pid_t pid = fork();
  if (pid == 0) {
    prepare();
    _exit(test());
  }
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  if (WIFSIGNALED(status)) return 1000 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

#endif
