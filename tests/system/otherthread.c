/* make test-system: a perf counter follows the thread that made the first
   call (doc/api.md); another thread's reads must still not kill the
   process.  A helper thread makes the first call and exits; then this
   thread reads twice, 1 ms apart.  Prints
     otherthread IMPLEMENTATION first F later A B */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include "cpucycles.h"

static long long first;

static void *first_call(void *arg)
{
  (void) arg;
  first = cpucycles();
  return 0;
}

int main(void)
{
  struct timespec pause = { 0, 1000000 };
  pthread_t t;
  long long a, b;
  if (pthread_create(&t, 0, first_call, 0) != 0 || pthread_join(t, 0) != 0) return 2;
  printf("otherthread %s first %lld\n", cpucycles_implementation(), first);
  fflush(stdout);
  a = cpucycles();
  nanosleep(&pause, 0);
  b = cpucycles();
  printf("otherthread %s first %lld later %lld %lld\n", cpucycles_implementation(), first, a, b);
  return 0;
}
