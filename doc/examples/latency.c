/* Latency versus throughput of one small mixing function.

   Latency: each call takes the previous result as input (acc = mix(acc)),
   so no two calls can overlap and the time per call is the length of the
   function's critical path.  Throughput: every call has its own input from
   an array, so the CPU may run several calls at once and the time per call
   can be far below the latency.  Both loops are timed by two cpucycles()
   calls; the cost of those two calls (the median back-to-back difference)
   is reported and subtracted before dividing by the number of calls.

   Build: cc latency.c -lcpucycles */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cpucycles.h>

#define CALLS 16384
#define ROUNDS 15   /* each figure is the best of this many timed loops */
#define PAIRS 1001  /* back-to-back cpucycles() pairs for the overhead */

static uint64_t input[CALLS];

/* Three shift-xors and two multiplies: a dependent chain of about two
   multiply latencies plus a few single-cycle operations. */
static uint64_t mix(uint64_t x)
{
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ULL;
  x ^= x >> 29;
  x *= 0x9e3779b97f4a7c15ULL;
  x ^= x >> 32;
  return x;
}

static int by_value(const void *a, const void *b)
{
  long long x = *(const long long *) a, y = *(const long long *) b;
  return (x > y) - (x < y);
}

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

/* Cycles per call after subtracting the timer's own cost; never negative. */
static double per_call(long long cycles, long long cost)
{
  cycles -= cost;
  return cycles > 0 ? (double) cycles / CALLS : 0;
}

int main(void)
{
  long long best_chain = -1, best_free = -1, cost;
  uint64_t chain = 0, spread = 0;
  int r, i;

  for (i = 0; i < CALLS; ++i) input[i] = (uint64_t) i * 0x0123456789abcdefULL + 1;
  cost = overhead();

  for (r = 0; r < ROUNDS + 1; ++r) { /* round 0 is the warm-up */
    long long t0, t1, t2;
    uint64_t acc = 1, sum = 0;

    t0 = cpucycles();
    for (i = 0; i < CALLS; ++i) acc = mix(acc);  /* each call waits for the last */
    t1 = cpucycles();
    for (i = 0; i < CALLS; ++i) sum ^= mix(input[i]); /* calls are independent */
    t2 = cpucycles();

    chain = acc;
    spread = sum;
    if (r == 0) continue;
    if (best_chain < 0 || t1 - t0 < best_chain) best_chain = t1 - t0;
    if (best_free < 0 || t2 - t1 < best_free) best_free = t2 - t1;
  }

  printf("counter %s persecond %lld\n", cpucycles_implementation(), cpucycles_persecond());
  printf("overhead %lld cycles for two back-to-back cpucycles() calls (median of %d), subtracted below\n",
         cost, PAIRS);
  printf("latency %.2f cycles per call (dependent chain of %d calls, best of %d)\n",
         per_call(best_chain, cost), CALLS, ROUNDS);
  printf("throughput %.2f cycles per call (%d independent calls, best of %d)\n",
         per_call(best_free, cost), CALLS, ROUNDS);
  printf("checksum chain %016llx independent %016llx\n", (unsigned long long) chain,
         (unsigned long long) spread);
  return 0;
}
