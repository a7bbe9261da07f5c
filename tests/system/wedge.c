/* make test-system: issue 37's rows 1, 2, 3 and 9 on a real kernel, with
   the counter tests/system/init.c forces (arm64-perfpmc,
   riscv64-perfrdcycle or default-perfevent).  Usage: wedge MODE [N]
     longjmp N  N threads (300) each arm a one-shot timer 1-40 us away
                whose handler siglongjmps out of the thread's first read;
                then two reads around some work must differ, no perf fd
                may stay after the joins, and a new thread gets an event:
                  wedge longjmp IMPL threads N left L frozen F fds D new E
     fork       children made by _Fork and by a raw clone(SIGCHLD), which
                run no atfork handler: each must count its own cycles (it
                spins 20 ms, then sleeps 20 ms: its own count stands still
                in the sleep) and not crash:
                  wedge fork IMPL _Fork S clone S    (S: own, still, signal N)
     killed N   N threads (300) whose seccomp filter kills them at
                perf_event_open, in their first read; then a new thread
                gets an event within a second:
                  wedge killed IMPL threads N new E fds D
     parked N   (root) another process holds a pinned CPU-wide cycles
                event on every CPU; this one reads and closes its perf fds
                N times (800): the perf pages it maps stay at most 2:
                  wedge parked IMPL closes N held H pages P
   Exits 0 when all is as wanted, else 1. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include "cpucycles.h"
#include "wedge.h"

/* the read under test: cpucycles as it is at each call */
static long long counted(void)
{
  return cpucycles();
}

/* ---- row 1 (wedge.h) ---- */

static int longjmps(long n)
{
  int fds, before, fresh;
  cpucycles();
  before = perf_fds();
  workers(n);
  sleep_us(20000);
  cpucycles();
  fds = perf_fds();
  fresh = new_thread_counts();
  printf("wedge longjmp %s threads %ld left %d frozen %d fds %d new %d\n", cpucycles_implementation(), n, left,
         frozen, fds - before, fresh);
  return !frozen && fds == before && fresh ? 0 : 1;
}

/* ---- row 2 ---- */

#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
pid_t _Fork(void);
#define HAVE_FORK_WITHOUT_HANDLERS 1
#endif

/* In the child: 0 where its count moves while it spins and stands
   (mostly) still while it sleeps, 3 where it stood still, 4 where it
   moved while sleeping as fast as spinning (not its own). */
static int own(void)
{
  long long a = cpucycles(), b, c;
  spin_us(20000);
  b = cpucycles();
  sleep_us(20000);
  c = cpucycles();
  if (b <= a) return 3;
  if (c - b > (b - a) / 4) return 4;
  return 0;
}

static const char *child(pid_t pid, char *text, size_t size)
{
  int status;
  if (pid == 0) _exit(own());
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return "none";
  if (WIFSIGNALED(status)) snprintf(text, size, "signal-%d", WTERMSIG(status));
  else snprintf(text, size, "%s", WEXITSTATUS(status) == 0 ? "own" : WEXITSTATUS(status) == 3 ? "still" : "time");
  return text;
}

static int forks(void)
{
  char a[32], b[32];
  const char *by_fork = "none", *by_clone;
  cpucycles();
#ifdef HAVE_FORK_WITHOUT_HANDLERS
  by_fork = child(_Fork(), a, sizeof a);
#else
  (void) a;
#endif
  by_clone = child((pid_t) syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0), b, sizeof b);
  printf("wedge fork %s _Fork %s clone %s\n", cpucycles_implementation(), by_fork, by_clone);
  return (!strcmp(by_fork, "own") || !strcmp(by_fork, "none")) && !strcmp(by_clone, "own") ? 0 : 1;
}

/* ---- row 3 (wedge.h) ---- */

static int killed(long n)
{
  pthread_t t;
  long i;
  int before, fresh, fds;
  cpucycles();
  before = perf_fds();
  for (i = 0; i < n; ++i)
    if (pthread_create(&t, 0, sandboxed_worker, 0) == 0) pthread_join(t, 0);
  fresh = new_thread_counts();
  fds = perf_fds();
  printf("wedge killed %s threads %ld new %d fds %d\n", cpucycles_implementation(), n, fresh, fds - before);
  return fresh && fds == before ? 0 : 1;
}

/* ---- row 9 ---- */

/* Lines of /proc/self/maps that map a perf event. */
static int perf_maps(void)
{
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512];
  int n = 0;
  if (!f) return -1;
  while (fgets(line, sizeof line, f))
    if (strstr(line, "perf_event")) ++n;
  fclose(f);
  return n;
}

/* A process holding a pinned cycles event on every CPU, as a system-wide
   perf stat does; it says how many it holds through the pipe. */
static pid_t holder(int *held)
{
  int p[2], cpus = (int) sysconf(_SC_NPROCESSORS_ONLN), cpu, n = 0;
  pid_t pid;
  *held = 0;
  if (pipe(p) != 0) return -1;
  pid = fork();
  if (pid == 0) {
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_HARDWARE;
    attr.config = PERF_COUNT_HW_CPU_CYCLES;
    attr.pinned = 1;
    for (cpu = 0; cpu < cpus; ++cpu)
      if (syscall(__NR_perf_event_open, &attr, -1, cpu, -1, 0) >= 0) ++n;
    if (write(p[1], &n, sizeof n) != sizeof n) _exit(1);
    for (;;) pause();
  }
  if (pid > 0 && read(p[0], held, sizeof *held) != sizeof *held) *held = 0;
  close(p[0]);
  close(p[1]);
  return pid;
}

static int parked(long n)
{
  int held, most = 0, maps;
  long i;
  pid_t pid = holder(&held);
  cpucycles();
  for (i = 0; i < n; ++i) {
    syscall(SYS_close_range, 3U, ~0U, 0);
    cpucycles();
    sleep_us(1200); /* past the retry of a thread whose event did not count */
    cpucycles();
    maps = perf_maps();
    if (maps > most) most = maps;
  }
  if (pid > 0) kill(pid, SIGKILL);
  if (pid > 0) waitpid(pid, 0, 0);
  printf("wedge parked %s closes %ld held %d pages %d\n", cpucycles_implementation(), n, held, most);
  return most <= 2 ? 0 : 1;
}

int main(int argc, char **argv)
{
  long n = argc > 2 ? atol(argv[2]) : 0;
  wedge_read = counted;
  if (argc < 2) return 2;
  if (!strcmp(argv[1], "longjmp")) return longjmps(n ? n : 300);
  if (!strcmp(argv[1], "fork")) return forks();
  if (!strcmp(argv[1], "killed")) return killed(n ? n : 300);
  if (!strcmp(argv[1], "parked")) return parked(n ? n : 800);
  return 2;
}
