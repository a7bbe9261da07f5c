/* One first call, traced function by function (tests/integration/walk.sh
   builds the library with -finstrument-functions): the address of each
   function of the library as it is first entered, one a line, on
   standard error.  The machine is tests/fakeos.c's, a PMU-less AMD guest
   of the Firecracker kind (CPUID leaves 0, 1 and 0x40000000, no perf
   cycles event, RDTSC allowed, no files but a /proc/cpuinfo of 2400
   MHz), so the walk is the same on every x86 host but for which counters
   the rule measures (a counter that cannot win is not). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cpucycles.h"
#include "fakeos.h"
#include "serve.h"

#define SEEN 512
static void *seen[SEEN];
static int nseen, tracing;

__attribute__((no_instrument_function)) void __cyg_profile_func_enter(void *fn, void *site);
__attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *fn, void *site);

void __cyg_profile_func_enter(void *fn, void *site)
{
  int i;
  (void) site;
  if (!tracing) return;
  for (i = 0; i < nseen; ++i)
    if (seen[i] == fn) return;
  if (nseen < SEEN) seen[nseen++] = fn;
}

void __cyg_profile_func_exit(void *fn, void *site)
{
  (void) fn;
  (void) site;
}

static int amd_guest(unsigned int leaf, unsigned int subleaf, unsigned int r[4])
{
  (void) subleaf;
  memset(r, 0, 4 * sizeof r[0]);
  if (leaf == 0) {
    r[0] = 0x10;
    memcpy(&r[1], "Auth", 4);
    memcpy(&r[3], "enti", 4);
    memcpy(&r[2], "cAMD", 4);
  }
  if (leaf == 1) r[2] = 0x80000000u; /* a guest */
  if (leaf == 0x40000000) r[0] = 0x40000001; /* no TSC leaf */
  return 1;
}

/* no file but a /proc/cpuinfo that states 2400 MHz */
static long cpuinfo_only(const char *path, long offset, char *buf, size_t size)
{
  return serve_text(strcmp(path, "/proc/cpuinfo") ? 0 : "processor\t: 0\ncpu MHz\t\t: 2400.000\n",
                    offset, buf, size);
}

static int tsc_runs(void)
{
  return 0;
}

static long no_pmu(void *attr, int pid, int cpu, int group_fd, unsigned long flags)
{
  (void) attr;
  (void) pid;
  (void) cpu;
  (void) group_fd;
  (void) flags;
  errno = ENOENT;
  return -1;
}

int main(void)
{
  int i;
  fake_os.cpuid = amd_guest;
  fake_os.tsc_faults = tsc_runs;
  fake_os.perf_event_open = no_pmu;
  fake_os.read_text = cpuinfo_only;
  tracing = 1;
  cpucycles();
  tracing = 0;
  /* offsets from main: the program may be loaded anywhere */
  for (i = 0; i < nseen; ++i) fprintf(stderr, "%ld\n", (long) ((char *) seen[i] - (char *) main));
  printf("walk %s\n", cpucycles_implementation());
  return 0;
}
