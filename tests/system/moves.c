/* make test-system: a perf-based counter follows the thread that made the
   first call from CPU to CPU.  Argument "I/N": this is process I of N,
   run together.  The counting thread (the only one) starts pinned to CPU
   I and is then moved through every CPU (sched_setaffinity), meeting the
   other processes on the way, so the counter is also saved and restored
   at context switches; every read must be at least the one before, and
   the count must grow across the whole run.  Prints
     moves I/N IMPLEMENTATION reads R moves M decreases D grew G
   and exits 1 on a decrease, a count that did not grow, or a move the
   kernel did not make. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "cpucycles.h"

#define ROUNDS 10
#define READS 200 /* on each CPU */

static void pin(int cpu)
{
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
}

int main(int argc, char **argv)
{
  int me = 0, n = 1, cpus = (int) sysconf(_SC_NPROCESSORS_ONLN), i, k, r;
  long reads = 0, moves = 0, decreases = 0, misplaced = 0;
  long long first, previous, now;

  if (argc > 1 && sscanf(argv[1], "%d/%d", &me, &n) != 2) return 2;
  if (cpus < 1) cpus = 1;
  if (cpus > 64) cpus = 64;
  pin(me % cpus);
  first = previous = cpucycles(); /* the selection: in this thread */
  for (r = 0; r < ROUNDS; ++r)
    for (i = 0; i < cpus; ++i) {
      int cpu = (i * (me + 1) + r) % cpus; /* the processes' paths cross */
      pin(cpu);
      ++moves;
      if (sched_getcpu() != cpu) ++misplaced;
      for (k = 0; k < READS; ++k) {
        now = cpucycles();
        ++reads;
        if (now < previous) ++decreases;
        previous = now;
      }
      sched_yield();
    }
  printf("moves %d/%d %s reads %ld moves %ld misplaced %ld decreases %ld grew %lld\n", me, n,
         cpucycles_implementation(), reads, moves, misplaced, decreases, previous - first);
  return decreases || misplaced || previous <= first;
}
