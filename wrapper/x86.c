/* CPUID facts for the TSC counters (amd64-tsc*, x86-tsc*) and the RDPMC
   counters (amd64-perfpmcff, amd64-perfpmc, amd64-pmcff).  CPUID exits to
   the hypervisor in a guest (about 8 microseconds each on the machine this
   was tuned on), so each leaf is asked at most once per process and only
   the leaves an answer needs are asked.  CPUID goes through
   cpucycles_os.cpuid so tests can play other CPUs. */
#include <string.h>
#include "counter.h"
#include "os.h"
#include "x86.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>

#define CLAIM_CHECK_NS 200000   /* measure a stated rate for 0.2 ms ... */
#define CLAIM_TOLERANCE 0.01    /* ... and drop it if off by more than 1% */

#define CACHED_LEAVES 12
static struct { unsigned int leaf, r[4]; int ok; } cache[CACHED_LEAVES];
static int cached;

/* CPUID leaf n (subleaf 0) into r; returns EAX (0 where there is no CPUID) */
static unsigned int leaf(unsigned int n, unsigned int r[4])
{
  int i;
  for (i = 0; i < cached; ++i)
    if (cache[i].leaf == n) {
      memcpy(r, cache[i].r, sizeof cache[i].r);
      return cache[i].ok ? r[0] : 0;
    }
  i = cpucycles_os.cpuid(n, 0, r);
  if (!i) r[0] = r[1] = r[2] = r[3] = 0;
  if (cached < CACHED_LEAVES) {
    cache[cached].leaf = n;
    cache[cached].ok = i;
    memcpy(cache[cached].r, r, sizeof cache[cached].r);
    ++cached;
  }
  return r[0];
}

/* CPUID 0x80000007 EDX bit 8: the TSC runs at a constant rate */
static int invariant(void)
{
  unsigned int r[4];
#ifdef __i386__
  if (leaf(0x80000000, r) < 0x80000007) return 0;
#endif
  /* every amd64 CPU has leaf 0x80000007 */
  leaf(0x80000007, r);
  return (r[3] >> 8) & 1;
}

/* The vendor text of leaf 0 is EBX, EDX, ECX, four little-endian bytes
   each.  It is compared as words: the names then stay immediates in the
   code instead of strings in .rodata, a page the first call otherwise
   never reads (doc/selection.md, "First-call time"). */
#define WORD(a, b, c, d) \
  ((unsigned int) (a) | (unsigned int) (b) << 8 | (unsigned int) (c) << 16 | (unsigned int) (d) << 24)
#define VENDOR_IS(r, t) \
  ((r)[1] == WORD(t[0], t[1], t[2], t[3]) && (r)[3] == WORD(t[4], t[5], t[6], t[7]) && \
   (r)[2] == WORD(t[8], t[9], t[10], t[11]))

/* Intel parts whose leaf 0x15 gives no crystal rate (ECX 0); the rates
   are those Intel documents for these models (family 6). */
static long long known_crystal(unsigned int model)
{
  switch (model) {
    case 0x4e: case 0x5e: case 0x8e: case 0x9e: return 24000000; /* Skylake, Kaby Lake */
    case 0x5f: return 25000000;                                   /* Goldmont D */
    case 0x5c: case 0x7a: return 19200000;                        /* Goldmont, Goldmont Plus */
  }
  return 0;
}

/* Leaf 1 first; in a guest the hypervisor's leaves, and the invariance
   leaf only when there is a rate to believe; on bare metal the invariance,
   vendor and crystal leaves. */
static long long stated_hz(const char **words)
{
  unsigned int r[4], family, model, max;

  if (!leaf(0, r) && !r[1]) { *words = "no CPUID"; return 0; }
  max = r[0];
  leaf(1, r);
  family = (r[0] >> 8) & 15;
  model = ((r[0] >> 4) & 15) | (family == 6 || family == 15 ? (r[0] >> 12) & 0xf0 : 0);

  if ((r[2] >> 31) & 1) {
    /* A guest's leaf 0x15 describes the host, not the TSC the guest sees;
       only the hypervisor's own TSC leaf is worth believing. */
    unsigned int khz = leaf(0x40000000, r) >= 0x40000010 ? leaf(0x40000010, r) : 0;
    if (!khz) { *words = "hypervisor states no TSC rate"; return 0; }
    if (!invariant()) { *words = "TSC not invariant (CPUID 0x80000007)"; return 0; }
    *words = "TSC rate from hypervisor CPUID 0x40000010";
    return khz * 1000LL;
  }
  if (!invariant()) { *words = "TSC not invariant (CPUID 0x80000007)"; return 0; }
  if (max >= 0x15) {
    int intel = cpucycles_x86_facts()->vendor == CPUCYCLES_X86_INTEL;
    long long crystal;
    leaf(0x15, r);
    if (r[0] && r[1]) {
      crystal = r[2];
      if (!crystal && intel && family == 6) crystal = known_crystal(model);
      if (crystal) {
        *words = r[2] ? "TSC rate from CPUID 0x15" : "TSC rate from CPUID 0x15 and the crystal table";
        return crystal * r[1] / r[0];
      }
    }
    if (max >= 0x16 && intel && (leaf(0x16, r) & 0xffff)) {
      *words = "TSC rate from CPUID 0x16 base frequency";
      return (r[0] & 0xffff) * 1000000LL;
    }
  }
  *words = "CPUID states no TSC rate";
  return 0;
}

/* Cross-check against the monotonic clock. */
static int measured_agrees(long long hz)
{
  long long t0 = cpucycles_os.nanoseconds();
  long long r0 = (long long) __rdtsc();
  long long t1, r1;
  double measured;
  do t1 = cpucycles_os.nanoseconds(); while (t1 - t0 < CLAIM_CHECK_NS);
  r1 = (long long) __rdtsc();
  measured = (double) (r1 - r0) * 1e9 / (double) (t1 - t0);
  return measured > hz * (1 - CLAIM_TOLERANCE) && measured < hz * (1 + CLAIM_TOLERANCE);
}

static int tsc_asked;

long long cpucycles_x86_tsc_hz(void)
{
  static long long hz;
  static const char *words;
  if (!tsc_asked) {
    hz = stated_hz(&words);
    if (hz > 0 && !measured_agrees(hz)) {
      words = "stated TSC rate disagrees with a measurement by more than 1%";
      hz = 0;
    }
    tsc_asked = 1;
  }
  cpucycles_counter_says(words);
  return hz;
}

static int facts_asked;
static struct cpucycles_x86_facts facts;

const struct cpucycles_x86_facts *cpucycles_x86_facts(void)
{
  unsigned int r[4];
  if (facts_asked) return &facts;
  facts_asked = 1;
  memset(&facts, 0, sizeof facts);
  if (!leaf(0, r) && !r[1]) return &facts;
  if (VENDOR_IS(r, "GenuineIntel")) facts.vendor = CPUCYCLES_X86_INTEL;
  /* Hygon's Dhyana is a licensed Zen: same PMU, same rules */
  if (VENDOR_IS(r, "AuthenticAMD") || VENDOR_IS(r, "HygonGenuine")) facts.vendor = CPUCYCLES_X86_AMD;
  /* leaf 0xA (architectural PMU) matters only to the Intel counters */
  if (facts.vendor == CPUCYCLES_X86_INTEL && r[0] >= 0xa) {
    leaf(0xa, r);
    facts.pmc_version = r[0] & 0xff;
    /* the fixed-counter fields are defined from version 2 on */
    if (facts.pmc_version >= 2) {
      facts.fixed_counters = r[3] & 0x1f;
      facts.fixed_width = (r[3] >> 5) & 0xff;
    }
  }
  return &facts;
}

void cpucycles_x86_forget(void)
{
  facts_asked = 0;
  tsc_asked = 0;
  cached = 0;
}

#else

long long cpucycles_x86_tsc_hz(void)
{
  return 0;
}

const struct cpucycles_x86_facts *cpucycles_x86_facts(void)
{
  static const struct cpucycles_x86_facts none;
  return &none;
}

void cpucycles_x86_forget(void)
{
}

#endif

long long cpucycles_x86_tsc_class(void)
{
  long long hz = cpucycles_x86_tsc_hz();
  return hz > 0 ? hz : CPUCYCLES_MAYBECYCLECOUNTER;
}
