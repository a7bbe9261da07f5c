/* A program that loads the library late, when the pthread key it makes
   gets an index of 32 or more (issue 37, row 7): glibc's
   pthread_setspecific allocates for such a key, so arming the library's
   exit destructor in a signal handler would call the allocator there.
   This program takes 40 keys, dlopens the library named by argv[1],
   makes the first call, and then lets each of argv[2] threads (default
   50) make its first read in a SIGUSR1 handler.  Its own calloc, malloc
   and realloc count the calls made inside that handler.  Prints one line:
     keylate keys K implementation NAME threads N allocs_in_handler A
       backwards B
   Exits 1 (a message on stderr) when the library cannot be loaded, 2
   where the C library is not glibc (nothing to learn). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef __GLIBC__
int main(void)
{
  printf("keylate skip not glibc\n");
  return 2;
}
#else
void *__libc_calloc(size_t n, size_t size);
void *__libc_malloc(size_t size);
void *__libc_realloc(void *p, size_t size);

/* default visibility whatever the flags (the tests build with
   -fvisibility=hidden): these must take the C library's own calls */
#define VISIBLE __attribute__((visibility("default")))

static __thread volatile int in_handler;
static volatile int allocs_in_handler, backwards;
static long long (**counter)(void);

VISIBLE void *calloc(size_t n, size_t size)
{
  if (in_handler) __atomic_add_fetch(&allocs_in_handler, 1, __ATOMIC_RELAXED);
  return __libc_calloc(n, size);
}

VISIBLE void *malloc(size_t size)
{
  if (in_handler) __atomic_add_fetch(&allocs_in_handler, 1, __ATOMIC_RELAXED);
  return __libc_malloc(size);
}

VISIBLE void *realloc(void *p, size_t size)
{
  if (in_handler) __atomic_add_fetch(&allocs_in_handler, 1, __ATOMIC_RELAXED);
  return __libc_realloc(p, size);
}

static __thread long long in_handler_count;

static void first_read(int sig)
{
  (void) sig;
  in_handler = 1;
  in_handler_count = (*counter)();
  in_handler = 0;
}

static void *thread(void *unused)
{
  (void) unused;
  pthread_kill(pthread_self(), SIGUSR1);
  if ((*counter)() < in_handler_count) __atomic_add_fetch(&backwards, 1, __ATOMIC_RELAXED);
  return 0;
}

int main(int argc, char **argv)
{
  pthread_key_t key;
  pthread_t t;
  struct sigaction sa;
  const char *(*implementation)(void);
  void *h, *sym;
  long threads = 50, i;
  int keys = 0;
  if (argc < 2) {
    fprintf(stderr, "usage: keylate LIBRARY [THREADS]\n");
    return 1;
  }
  if (argc > 2) threads = atol(argv[2]);
  while (keys < 40 && pthread_key_create(&key, 0) == 0) ++keys;
  h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "keylate: dlopen %s: %s\n", argv[1], dlerror());
    return 1;
  }
  counter = (long long (**)(void)) dlsym(h, "cpucycles");
  sym = dlsym(h, "cpucycles_implementation");
  if (!counter || !sym) {
    fprintf(stderr, "keylate: %s lacks cpucycles or cpucycles_implementation\n", argv[1]);
    return 1;
  }
  memcpy(&implementation, &sym, sizeof implementation);
  (void) (*counter)();
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = first_read;
  sigaction(SIGUSR1, &sa, 0);
  for (i = 0; i < threads; ++i)
    if (pthread_create(&t, 0, thread, 0) == 0) pthread_join(t, 0);
  printf("keylate keys %d implementation %s threads %ld allocs_in_handler %d backwards %d\n", keys,
         implementation(), threads, allocs_in_handler, backwards);
  return 0;
}
#endif
