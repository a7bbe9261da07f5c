/* A program that used up the pthread keys before loading the library
   (issue 32, row 9): pthread_key_create until it fails, then dlopen of
   the library named by argv[1], the first call, argv[2] threads (default
   600) that each read a few times and end, and dlclose.  The library has
   no key for a destructor at thread exit then: its fds must still stay
   bounded (a dead thread's events are given back when a later thread
   needs their room), every thread must count, and dlclose must return.
   The fd limit is set to 1024 first, so the library's share (a quarter)
   is 256 fds.  A watchdog alarm turns a hang into a line and exit 3:
     keysgone hung in STAGE
   Otherwise prints one line:
     keysgone keys K implementation NAME threads N limit L
       perf_fds_joined P perf_fds_closed Q backwards B still S
   K: keys the program took; P: perf fds once every thread is joined;
   Q: after dlclose; B: threads whose count went back; S: threads whose
   count did not move.  Exits 1 (a message on stderr) when the library
   cannot be loaded or lacks a symbol. */
#define _DEFAULT_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include "perf-fds.h"

#define WAVE 50 /* threads alive at once */
#define LIMIT 1024

static long long (**counter)(void);
static volatile int backwards, still;
static const char *volatile stage = "start";
static volatile long spin;

static void hung(int sig)
{
  char line[96];
  int n;
  (void) sig;
  n = snprintf(line, sizeof line, "keysgone hung in %s\n", stage);
  if (write(1, line, (size_t) n) < 0) _exit(4);
  _exit(3);
}

static void *reads(void *unused)
{
  long long a, b, c;
  long i;
  (void) unused;
  a = (*counter)();
  for (i = 0; i < 10000; ++i) spin += i;
  b = (*counter)();
  for (i = 0; i < 10000; ++i) spin += i;
  c = (*counter)();
  if (b < a || c < b) __atomic_add_fetch(&backwards, 1, __ATOMIC_RELAXED);
  if (c <= a) __atomic_add_fetch(&still, 1, __ATOMIC_RELAXED);
  return 0;
}

int main(int argc, char **argv)
{
  pthread_key_t key;
  pthread_t t[WAVE];
  struct rlimit r;
  const char *(*implementation)(void);
  char name[128];
  void *h, *sym;
  long threads = 600, done = 0, keys = 0;
  int joined, closed, i;
  if (argc < 2) {
    fprintf(stderr, "usage: keysgone LIBRARY [THREADS]\n");
    return 2;
  }
  if (argc > 2) threads = atol(argv[2]);
  if (getrlimit(RLIMIT_NOFILE, &r) == 0 && (r.rlim_max == RLIM_INFINITY || r.rlim_max >= LIMIT)) {
    r.rlim_cur = LIMIT;
    setrlimit(RLIMIT_NOFILE, &r);
  }
  getrlimit(RLIMIT_NOFILE, &r);
  signal(SIGALRM, hung);
  alarm(60);

  stage = "pthread_key_create";
  while (pthread_key_create(&key, 0) == 0) ++keys;

  stage = "dlopen";
  h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "keysgone: dlopen %s: %s\n", argv[1], dlerror());
    return 1;
  }
  counter = (long long (**)(void)) dlsym(h, "cpucycles");
  sym = dlsym(h, "cpucycles_implementation");
  if (!counter || !sym) {
    fprintf(stderr, "keysgone: %s lacks cpucycles or cpucycles_implementation\n", argv[1]);
    return 1;
  }
  memcpy(&implementation, &sym, sizeof implementation);

  stage = "the first call";
  (void) (*counter)();
  snprintf(name, sizeof name, "%s", implementation());

  stage = "the threads";
  while (done < threads) {
    int n = 0;
    while (n < WAVE && done + n < threads && pthread_create(&t[n], 0, reads, 0) == 0) ++n;
    if (!n) break;
    for (i = 0; i < n; ++i) pthread_join(t[i], 0);
    done += n;
  }
  joined = perf_fds();

  stage = "dlclose";
  if (dlclose(h)) {
    fprintf(stderr, "keysgone: dlclose: %s\n", dlerror());
    return 1;
  }
  closed = perf_fds();
  alarm(0);
  printf("keysgone keys %ld implementation %s threads %ld limit %ld perf_fds_joined %d perf_fds_closed %d"
         " backwards %d still %d\n",
         keys, name, done, (long) r.rlim_cur, joined, closed, backwards, still);
  return 0;
}
