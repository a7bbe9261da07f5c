/* Measuring one function honestly with libcpucycles.

   The checklist: fixed inputs (the run repeats exactly), warm-up runs
   (caches and clock settle), many timed runs, the best and the median of
   them (noise only ever adds time; the gap between the two shows how much),
   a checksum that proves the work ran, and a report line that names the
   hardware and the counter, so a reader knows what the figure means.

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

static uint32_t input[INPUTS];

/* The function under test: a 64-bit FNV-1a style hash of the inputs. */
static uint64_t work(const uint32_t *x, int n)
{
  uint64_t h = 0xcbf29ce484222325ULL;
  int i;
  for (i = 0; i < n; ++i) {
    h ^= x[i];
    h *= 0x100000001b3ULL;
  }
  return h;
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

int main(void)
{
  long long cycles[TIMED];
  uint64_t check = 0;
  struct utsname os;
  char model[128];
  int i, changed = 0;

  fill(input, INPUTS);
  for (i = 0; i < WARMUPS; ++i) check = work(input, INPUTS);
  for (i = 0; i < TIMED; ++i) {
    long long t0 = cpucycles();
    uint64_t h = work(input, INPUTS);
    long long t1 = cpucycles();
    cycles[i] = t1 - t0;
    if (h != check) changed = 1; /* fixed inputs must give one answer */
  }
  qsort(cycles, TIMED, sizeof cycles[0], by_value);

  cpu_model(model, sizeof model);
  if (uname(&os) != 0) strcpy(os.machine, "?"), strcpy(os.sysname, "?"), strcpy(os.release, "?");
  printf("hardware %s; %s %s %s\n", model, os.machine, os.sysname, os.release);
  printf("counter %s persecond %lld library %s\n", cpucycles_implementation(),
         cpucycles_persecond(), cpucycles_version());
  printf("checksum %016llx%s\n", (unsigned long long) check, changed ? " CHANGED" : "");
  printf("cycles best %lld median %lld per-input %.2f over %d timed runs after %d warm-ups of %d inputs\n",
         cycles[0], cycles[TIMED / 2], (double) cycles[0] / INPUTS, TIMED, WARMUPS, INPUTS);
  return changed;
}
