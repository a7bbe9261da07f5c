/* A user's program: monotone counts, and counts that agree with
   cpucycles_persecond() across a 50 ms sleep. The sleep's real length comes
   from CLOCK_MONOTONIC: a loaded or emulated machine oversleeps (64 ms under
   qemu-ppc64 in CI), which is not the library's error. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>
#include <cpucycles.h>

int main(int argc, char **argv)
{
  const char *tag = argc > 1 ? argv[1] : "client";
  long long i, previous, now, backwards = 0, before, after, persecond;
  struct timespec pause = { 0, 50000000 }, start, end;
  double ratio, seconds;

  previous = cpucycles();
  for (i = 0; i < 1000000; ++i) {
    now = cpucycles();
    if (now < previous) ++backwards;
    previous = now;
  }
  printf("%s %s_monotone_over_a_million_calls%s\n", backwards ? "fail" : "pass", tag,
         backwards ? ": went backwards" : "");

  persecond = cpucycles_persecond();
  clock_gettime(CLOCK_MONOTONIC, &start);
  before = cpucycles();
  nanosleep(&pause, 0);
  after = cpucycles();
  clock_gettime(CLOCK_MONOTONIC, &end);
  seconds = (double) (end.tv_sec - start.tv_sec) + 1e-9 * (double) (end.tv_nsec - start.tv_nsec);
  ratio = (double) (after - before) / (seconds * (double) persecond);
  printf("%s %s_sleep_agrees_with_persecond%s%f\n",
         ratio > 0.8 && ratio < 1.25 ? "pass" : "fail", tag,
         ratio > 0.8 && ratio < 1.25 ? " ratio " : ": ratio ", ratio);
  printf("info %s %s\n", cpucycles_implementation(), cpucycles_version());
  return 0;
}
