/* CPUID facts for the TSC counters (amd64-tsc*, x86-tsc*), asked once:
   CPUID exits to the hypervisor in a VM and costs about a microsecond. */
#include "counter.h"
#include "os.h"
#include "x86.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>

#define CLAIM_CHECK_NS 200000   /* measure a stated rate for 0.2 ms ... */
#define CLAIM_TOLERANCE 0.01    /* ... and drop it if off by more than 1% */

static unsigned int leaf(unsigned int n, unsigned int r[4])
{
  __cpuid_count(n, 0, r[0], r[1], r[2], r[3]);
  return r[0];
}

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

/* CPUID exits to the hypervisor in a guest (about 8 microseconds each on
   the machine this was tuned on), so ask only what the answer needs:
   leaf 1 and 0x80000007 always, then either the hypervisor's leaves or
   the bare-metal ones. */
static long long stated_hz(const char **words)
{
  unsigned int r[4], family, model, signature;

#ifdef __i386__
  if (!__get_cpuid_max(0, 0)) { *words = "no CPUID"; return 0; }
  if (__get_cpuid_max(0x80000000, 0) < 0x80000007) { *words = "CPUID has no invariant-TSC leaf"; return 0; }
#endif
  /* every amd64 CPU has leaves 1 and 0x80000007 */
  leaf(1, r);
  signature = r[0];
  family = (signature >> 8) & 15;
  model = ((signature >> 4) & 15) | (family == 6 || family == 15 ? (signature >> 12) & 0xf0 : 0);
  if ((r[2] >> 31) & 1) {
    leaf(0x80000007, r);
    if (!((r[3] >> 8) & 1)) { *words = "TSC not invariant (CPUID 0x80000007)"; return 0; }
    /* A guest's leaf 0x15 describes the host, not the TSC the guest sees;
       only the hypervisor's own TSC leaf is worth believing. */
    if (leaf(0x40000000, r) >= 0x40000010 && leaf(0x40000010, r) > 0) {
      *words = "TSC rate from hypervisor CPUID 0x40000010";
      return r[0] * 1000LL;
    }
    *words = "hypervisor states no TSC rate";
    return 0;
  }
  leaf(0x80000007, r);
  if (!((r[3] >> 8) & 1)) { *words = "TSC not invariant (CPUID 0x80000007)"; return 0; }
  {
    unsigned int max = leaf(0, r);
    int intel = r[1] == 0x756e6547 && r[3] == 0x49656e69 && r[2] == 0x6c65746e;
    if (max >= 0x15) {
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

long long cpucycles_x86_tsc_hz(void)
{
  static int asked;
  static long long hz;
  static const char *words;
  if (!asked) {
    hz = stated_hz(&words);
    if (hz > 0 && !measured_agrees(hz)) {
      words = "stated TSC rate disagrees with a measurement by more than 1%";
      hz = 0;
    }
    asked = 1;
  }
  cpucycles_counter_says(words);
  return hz;
}

#else

long long cpucycles_x86_tsc_hz(void)
{
  return 0;
}

#endif

long long cpucycles_x86_tsc_class(void)
{
  long long hz = cpucycles_x86_tsc_hz();
  return hz > 0 ? hz : CPUCYCLES_MAYBECYCLECOUNTER;
}
