/* CPUID facts for the TSC counters (amd64-tsc*, x86-tsc*) and the RDPMC
   counters (amd64-perfpmcff, amd64-perfpmc, amd64-pmcff).  In a guest each
   CPUID exits to the hypervisor (3.5-5.7 us seen), so a leaf is asked
   only when an answer needs it, and once a selection: the probes of one
   selection share the answers (probe->round), the next asks anew. */
#include <string.h>
#include "x86.h"

#if defined(__x86_64__) || defined(__i386__)
#define KEPT 8 /* the leaves one selection asks, at most */
static unsigned int kept_round, kept_count; /* whose answers, how many */
static struct {
  unsigned int n, r[4];
} kept[KEPT];

/* CPUID leaf n (subleaf 0) into r, as this probe's selection first got it;
   returns EAX (0 where there is no CPUID) */
static unsigned int leaf(const struct cpucycles_probe *probe, unsigned int n, unsigned int r[4])
{
  unsigned int i;
  if (probe->round != kept_round) kept_count = 0; /* a new selection asks anew */
  kept_round = probe->round;
  for (i = 0; probe->round && i < kept_count; ++i)
    if (kept[i].n == n) {
      memcpy(r, kept[i].r, sizeof kept[i].r);
      return r[0];
    }
  cpucycles_os_cpuid(n, 0, r);
  if (probe->round && kept_count < KEPT) {
    kept[kept_count].n = n;
    memcpy(kept[kept_count].r, r, sizeof kept[0].r);
    ++kept_count;
  }
  return r[0];
}

/* The vendor that leaf 0's answer r names (EBX, EDX, ECX spell it), or 0 */
static int vendor(const unsigned int r[4])
{
  const unsigned int name[3] = { r[1], r[3], r[2] };
  if (!memcmp(name, "GenuineIntel", 12)) return CPUCYCLES_X86_INTEL;
  return !memcmp(name, "AuthenticAMD", 12) || !memcmp(name, "HygonGenuine", 12) ? CPUCYCLES_X86_AMD
                                                                                : 0;
}

/* CPUID 0x80000007 EDX bit 8: the TSC runs at a constant rate */
static int invariant(const struct cpucycles_probe *probe)
{
  unsigned int r[4];
#ifdef __i386__
  if (leaf(probe, 0x80000000, r) < 0x80000007) return 0;
#endif
  leaf(probe, 0x80000007, r); /* every amd64 CPU has this leaf */
  return (r[3] >> 8) & 1;
}

/* Intel parts whose leaf 0x15 gives the TSC/crystal ratio but no crystal
   rate (ECX 0): the nominal crystal of these family 6 models, from the
   table "Nominal Core Crystal Clock Frequency" of Intel's SDM (Skylake and
   Kaby Lake 24 MHz, 0x55 25 MHz, 0x5c 19.2 MHz) and the same facts in
   Linux (0x5f 25 MHz in tsc.c; Comet Lake 24 MHz and Goldmont Plus
   19.2 MHz in turbostat). */
static long long crystal_table(unsigned int model)
{
  /* Skylake client; Kaby, Amber, Whiskey, Coffee Lake; Comet Lake */
  if (model == 0x4e || model == 0x5e || model == 0x8e || model == 0x9e || model == 0xa5 ||
      model == 0xa6)
    return 24000000;
  /* Skylake, Cascade Lake, Cooper Lake server; Goldmont D (Denverton) */
  if (model == 0x55 || model == 0x5f) return 25000000;
  /* Goldmont (Apollo Lake); Goldmont Plus (Gemini Lake) */
  return model == 0x5c || model == 0x7a ? 19200000 : 0;
}

/* In a guest, only the hypervisor's TSC leaf (the guest's leaf 0x15
   describes the host); on bare metal the crystal leaves. */
long long cpucycles_x86_tsc_hz(const struct cpucycles_probe *probe, const char **words)
{
  unsigned int r[4], max = leaf(probe, 0, r), model, guest, khz;
  int intel = vendor(r) == CPUCYCLES_X86_INTEL;

  if (!max && !r[1]) {
    *words = "no CPUID";
    return 0;
  }
  leaf(probe, 1, r);
  /* only family 6 models are in the crystal table: 0 for other families */
  model = ((r[0] >> 8) & 15) == 6 ? ((r[0] >> 4) & 15) | ((r[0] >> 12) & 0xf0) : 0;
  guest = (r[2] >> 31) & 1;

  /* a guest without a stated rate asks no more leaves */
  khz = guest && leaf(probe, 0x40000000, r) >= 0x40000010 ? leaf(probe, 0x40000010, r) : 0;
  if (guest && !khz) {
    *words = "hypervisor states no TSC rate";
    return 0;
  }
  if (!invariant(probe)) {
    *words = "TSC not invariant (CPUID 0x80000007)";
    return 0;
  }
  if (khz) {
    *words = "TSC rate from hypervisor CPUID 0x40000010";
    return khz * 1000LL;
  }
  if (max >= 0x15) {
    unsigned int den = leaf(probe, 0x15, r), num = r[1];
    long long hz, base;
    if (den && num && r[2]) {
      *words = "TSC rate from CPUID 0x15";
      return (long long) r[2] * num / den;
    }
    /* leaf 0x16's base frequency, asked only now that 0x15 falls short */
    base = max >= 0x16 && intel ? (leaf(probe, 0x16, r) & 0xffff) * 1000000LL : 0;
    /* The table's crystal, unless the base frequency disagrees by more
       than 2%: model 0x55 is also the Xeon W workstation, whose crystal
       is 24 MHz (a 25 MHz guess is 4% fast, and the base frequency
       right).  The tolerance allows Skylake's 4008 MHz TSC at a 4000 MHz
       base, and the -0.25% that 0x55 servers' spread spectrum takes off
       their 25 MHz. */
    hz = den && num && intel ? crystal_table(model) * num / den : 0;
    if (base && (hz * 50 < base * 49 || hz * 50 > base * 51)) hz = 0;
    if (hz) {
      *words = "TSC rate from CPUID 0x15 and the crystal table";
      return hz;
    }
    if (base) {
      *words = "TSC rate from CPUID 0x16 base frequency";
      return base;
    }
  }
  *words = "CPUID states no TSC rate";
  return 0;
}

const struct cpucycles_x86_facts *cpucycles_x86_facts(const struct cpucycles_probe *probe)
{
  static struct cpucycles_x86_facts facts; /* made anew on each call */
  unsigned int r[4], max = leaf(probe, 0, r);
  facts.vendor = vendor(r);
  /* leaf 0xA (architectural PMU) matters only to the Intel counters; its
     fixed-counter fields exist from version 2 */
  facts.pmc_version =
      facts.vendor == CPUCYCLES_X86_INTEL && max >= 0xa ? leaf(probe, 0xa, r) & 0xff : 0;
  facts.fixed_counters = facts.pmc_version >= 2 ? r[3] & 0x1f : 0;
  facts.fixed_width = facts.pmc_version >= 2 ? (r[3] >> 5) & 0xff : 0;
  return &facts;
}

const struct cpucycles_x86_facts *cpucycles_x86_intel_pmu(struct cpucycles_probe *probe)
{
  const struct cpucycles_x86_facts *cpu = cpucycles_x86_facts(probe);
  int intel = cpu->vendor == CPUCYCLES_X86_INTEL;
  if (intel && cpu->pmc_version) return cpu;
  if (intel) probe->need = CPUCYCLES_NEED_PMU;
  cpucycles_say(probe, intel ? "no PMU exposed (CPUID leaf 0xA reports version 0)"
                             : "not an Intel CPU (fixed-function counter 0x40000001 is Intel's)");
  return 0;
}

/* Whether RDTSC faults is asked once a selection: one prctl, and always
   this process's answer (a child of fork may have turned RDTSC off before
   it selects). */
long long cpucycles_x86_tsc_probe(struct cpucycles_probe *probe)
{
  static unsigned int round;
  static int faults;
  const char *words;
  long long hz;
  if (!probe->round || probe->round != round) faults = cpucycles_os_tsc_faults();
  round = probe->round;
  if (faults > 0)
    return cpucycles_say(probe, "RDTSC faults in this process (prctl PR_SET_TSC)"); /* SKIP */
  /* this OS cannot say whether RDTSC may run: the wrapper tries it under
     its guard */
  if (faults < 0) probe->may_trap = 1;
  hz = cpucycles_x86_tsc_hz(probe, &words);
  cpucycles_say(probe, "%s", words);
  return hz > 0 ? hz : CPUCYCLES_MAYBECYCLECOUNTER;
}

#else
typedef int cpucycles_x86_unused; /* ISO C wants something in a file */
#endif
