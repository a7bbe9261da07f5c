/* Does unloading give back what selection took?  Loads the shared library
   named by argv[1] with dlopen, makes the first call through the public
   data symbol cpucycles, asks cpucycles_implementation(), and dlcloses it;
   argv[2] times (default 2000; a tenth under emulation).  Only the public
   behaviour is used: dlopen, dlsym and the documented symbols.
   The first tenth of the cycles (at least one) is a warm-up: whatever the
   dynamic loader and the C library keep on their first dlopen is not the
   library's.  Heap in use (glibc's mallinfo2, where there is one), open
   fds and perf_event fds are measured after the warm-up and at the end.
   Prints one line:
     unload cycles N implementation NAME heap_growth BYTES fds_growth K
       perf_fds_growth K perf_fds_loaded K differ K
   heap_growth is "unknown" without mallinfo2; perf_fds_loaded is the most
   perf fds seen open while the library was loaded; differ counts cycles
   that chose another implementation than the first did.  Exits 1 (with a
   message on stderr) when the library cannot be loaded or lacks a symbol. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
#define HAVE_MALLINFO2 1
#endif

/* Open fds (all, and those on perf events), not counting the directory
   listing them.  Returns -1 when /proc/self/fd cannot be read. */
static int count_fds(int *perf)
{
  DIR *d = opendir("/proc/self/fd");
  struct dirent *e;
  int n = 0, self;
  *perf = 0;
  if (!d) return -1;
  self = dirfd(d);
  while ((e = readdir(d))) {
    char path[300], target[256];
    ssize_t len;
    if (e->d_name[0] == '.') continue;
    if (atoi(e->d_name) == self) continue;
    ++n;
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    len = readlink(path, target, sizeof target - 1);
    if (len <= 0) continue;
    target[len] = 0;
    if (strstr(target, "perf_event")) ++*perf;
  }
  closedir(d);
  return n;
}

static long long heap_in_use(void)
{
#ifdef HAVE_MALLINFO2
  struct mallinfo2 m = mallinfo2();
  return (long long) m.uordblks;
#else
  return -1;
#endif
}

static char first_name[128], name[128];
static int most_perf_loaded;

/* One load, first call, unload.  Returns 0 on success. */
static int cycle(const char *path)
{
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  long long (**counter)(void);
  const char *(*implementation)(void);
  void *sym;
  int perf;
  if (!h) {
    fprintf(stderr, "unload: dlopen %s: %s\n", path, dlerror());
    return 1;
  }
  counter = (long long (**)(void)) dlsym(h, "cpucycles");
  sym = dlsym(h, "cpucycles_implementation");
  if (!counter || !sym) {
    fprintf(stderr, "unload: %s lacks cpucycles or cpucycles_implementation\n", path);
    dlclose(h);
    return 1;
  }
  /* (POSIX: a dlsym result for a function converts to its pointer type) */
  memcpy(&implementation, &sym, sizeof implementation);
  (void) (*counter)(); /* the first call: selection */
  (void) (*counter)(); /* and one through the chosen counter */
  /* the name lives in the library: copy it before unloading */
  snprintf(name, sizeof name, "%s", implementation());
  if (count_fds(&perf) >= 0 && perf > most_perf_loaded) most_perf_loaded = perf;
  if (dlclose(h)) {
    fprintf(stderr, "unload: dlclose: %s\n", dlerror());
    return 1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  long cycles = 500, warmup, i, differ = 0; /* 500: the bound is 64 bytes a cycle */
  long long heap0, heap1;
  int fds0, fds1, perf0, perf1;
  if (argc < 2) {
    fprintf(stderr, "usage: unload LIBRARY [CYCLES]\n");
    return 2;
  }
  if (argc > 2) cycles = atol(argv[2]);
  if (getenv("CPUCYCLES_TEST_EMULATED")) cycles /= 10;
  if (cycles < 1) cycles = 1;
  warmup = cycles / 10;
  if (warmup < 1) warmup = 1;

  for (i = 0; i < warmup; ++i) {
    if (cycle(argv[1])) return 1;
    if (i == 0) snprintf(first_name, sizeof first_name, "%s", name);
    if (strcmp(name, first_name)) ++differ;
  }
  heap0 = heap_in_use();
  fds0 = count_fds(&perf0);
  for (i = 0; i < cycles; ++i) {
    if (cycle(argv[1])) return 1;
    if (strcmp(name, first_name)) ++differ;
  }
  heap1 = heap_in_use();
  fds1 = count_fds(&perf1);

  printf("unload cycles %ld implementation %s heap_growth ", cycles, first_name);
  if (heap0 < 0 || heap1 < 0)
    printf("unknown");
  else
    printf("%lld", heap1 - heap0);
  if (fds0 < 0 || fds1 < 0)
    printf(" fds_growth unknown perf_fds_growth unknown");
  else
    printf(" fds_growth %d perf_fds_growth %d", fds1 - fds0, perf1 - perf0);
  printf(" perf_fds_loaded %d differ %ld\n", most_perf_loaded, differ);
  return 0;
}
