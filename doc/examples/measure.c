/* Measuring one function honestly with libcpucycles: latency, throughput,
   quartiles.

   The checklist: fixed inputs (the run repeats exactly), warm-up runs
   (caches and clock settle), many timed runs, the quartiles of them
   (noise only ever adds time: the median is the figure, the quartiles
   show the spread, the best is a lower bound), a checksum that proves the
   work ran, and a report line that names the hardware and the counter, so
   a reader knows what the figure means.

   One step (XOR an input in, multiply) is timed in the two ways that
   answer different questions.  Latency: each step takes the previous
   step's result (a hash of all the inputs), so no two steps overlap and
   the time per input is the step's critical path.  Throughput: each step
   starts from the same constant with its own input, so the CPU may run
   many at once, and the time per input is what a stream of independent
   steps costs; it can be far below the latency.  The two are timed run by
   run, interleaved, so that a change of clock rate hits both alike.

   cpucycles() has a cost of its own: the median difference of back-to-back
   calls is measured and printed.  Each timed run holds one such cost, so
   the quartiles (printed as counted) are that much high; the per-input
   figures have it subtracted.  Over 4096 inputs it is a fraction of a
   percent; for short work it is not, and then the cure is more work per
   timed run, not the subtraction (the counter's read overlaps the work
   around it on an out-of-order CPU, so its cost is not a fixed amount).

   Build: cc measure.c -lcpucycles   (or `pkg-config --cflags --libs libcpucycles`) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <cpucycles.h>

#define INPUTS 4096
#define WARMUPS 3
#define TIMED 31
#define PAIRS 1001 /* back-to-back cpucycles() pairs for its own cost */

#define BASIS 0xcbf29ce484222325ULL
#define PRIME 0x100000001b3ULL

static uint32_t input[INPUTS];

/* Latency: a 64-bit FNV-1a style hash of the inputs; every step waits for
   the one before. */
static uint64_t chain(const uint32_t *x, int n)
{
  uint64_t h = BASIS;
  int i;
  for (i = 0; i < n; ++i) {
    h ^= x[i];
    h *= PRIME;
  }
  return h;
}

/* Throughput: the same step on each input alone, from the same start;
   only the running sum (one add per input) links them. */
static uint64_t independent(const uint32_t *x, int n)
{
  uint64_t sum = 0;
  int i;
  for (i = 0; i < n; ++i) sum += (BASIS ^ x[i]) * PRIME;
  return sum;
}

/* Fixed inputs: a linear congruential sequence from a fixed seed. */
static void fill(uint32_t *x, int n)
{
  uint32_t s = 12345;
  int i;
  for (i = 0; i < n; ++i) {
    s = s * 1103515245u + 12345u;
    x[i] = s;
  }
}

static int by_value(const void *a, const void *b)
{
  long long x = *(const long long *) a, y = *(const long long *) b;
  return (x > y) - (x < y);
}

/* The CPU model where the OS says it (Linux /proc/cpuinfo), else "unknown". */
static void cpu_model(char *out, size_t size)
{
  char line[256];
  FILE *f = fopen("/proc/cpuinfo", "r");
  snprintf(out, size, "unknown");
  if (!f) return;
  while (fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (!colon || (strncmp(line, "model name", 10) && strncmp(line, "cpu\t", 4) &&
                   strncmp(line, "uarch", 5)))
      continue;
    colon += 1 + (colon[1] == ' ');
    colon[strcspn(colon, "\n")] = 0;
    if (*colon) {
      snprintf(out, size, "%s", colon);
      break;
    }
  }
  fclose(f);
}

/* The cost of one cpucycles() call as a timed run sees it: the median
   difference of two calls in a row. */
static long long overhead(void)
{
  static long long d[PAIRS];
  int i;
  for (i = 0; i < PAIRS; ++i) {
    long long t0 = cpucycles();
    long long t1 = cpucycles();
    d[i] = t1 - t0;
  }
  qsort(d, PAIRS, sizeof d[0], by_value);
  return d[PAIRS / 2];
}

/* One line of figures: quartiles and best as counted, then the median
   minus the timer's cost per input (never below 0).  Sorts t. */
static void report(const char *what, long long *t, long long cost, const char *how)
{
  long long median;
  qsort(t, TIMED, sizeof t[0], by_value);
  median = t[TIMED / 2] - cost;
  printf("%s q1 %lld median %lld q3 %lld best %lld per-input %.2f (%s)\n", what, t[TIMED / 4],
         t[TIMED / 2], t[3 * TIMED / 4], t[0], median > 0 ? (double) median / INPUTS : 0.0, how);
}

int main(void)
{
  long long latency[TIMED], throughput[TIMED], cost;
  uint64_t check_chain = 0, check_free = 0;
  struct utsname os;
  char model[128];
  int i, changed = 0;

  fill(input, INPUTS);
  cost = overhead(); /* also the first call, which picks the counter */
  for (i = 0; i < WARMUPS; ++i) {
    check_chain = chain(input, INPUTS);
    check_free = independent(input, INPUTS);
  }
  for (i = 0; i < TIMED; ++i) {
    long long t0, t1, t2;
    uint64_t h, sum;
    t0 = cpucycles();
    h = chain(input, INPUTS);
    t1 = cpucycles();
    sum = independent(input, INPUTS);
    t2 = cpucycles();
    latency[i] = t1 - t0;
    throughput[i] = t2 - t1;
    if (h != check_chain || sum != check_free) changed = 1; /* fixed inputs, one answer */
  }

  cpu_model(model, sizeof model);
  if (uname(&os) != 0) strcpy(os.machine, "?"), strcpy(os.sysname, "?"), strcpy(os.release, "?");
  printf("hardware %s; %s %s %s\n", model, os.machine, os.sysname, os.release);
  printf("counter %s persecond %lld library %s\n", cpucycles_implementation(),
         cpucycles_persecond(), cpucycles_version());
  printf("checksum latency %016llx throughput %016llx%s\n", (unsigned long long) check_chain,
         (unsigned long long) check_free, changed ? " CHANGED" : "");
  printf("runs %d timed after %d warm-ups, %d inputs each, latency and throughput interleaved\n",
         TIMED, WARMUPS, INPUTS);
  printf("overhead %lld cycles per timed run (median of %d back-to-back cpucycles() pairs): "
         "in every count below, subtracted from per-input\n", cost, PAIRS);
  report("latency", latency, cost, "dependent: each input waits for the last result");
  report("throughput", throughput, cost, "independent: inputs may overlap");
  return changed;
}
