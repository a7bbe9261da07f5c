/* Machine profiles of amd64 (tests/profile.h): this build's own table,
   every setup and close the real one, with CPUID, files and perf_event
   those of the machine; RDPMC and RDTSC, which this host cannot make as
   that machine would, read models on the simulated clock.  Runs on any
   x86_64 Linux host, Intel or AMD, with or without a PMU: nothing of the
   host's CPUID, /proc or /sys is read. */
#define _GNU_SOURCE
#include "profile.h"

PROFILE_TABLE(PROFILE_HOST_ROWS)

/* RDPMC of Intel's fixed-function counter 1: counts core cycles while a
   cycles event keeps it running, else stands still */
static long long fixed1;
static long long model_rdpmc_fixed(void)
{
  sim_now += 10;
  if (core_event_open()) fixed1 = user_cycles();
  return fixed1;
}

/* amd64-perfpmcff: its event, then the fixed counter */
static long long model_perfpmcff(void)
{
  lazy_core_event();
  return model_rdpmc_fixed();
}

/* RDPMC of the counter perf's page names (AMD) */
static long long model_rdpmc(void)
{
  lazy_core_event();
  sim_now += 10;
  return user_cycles();
}

/* This build's rows, with the reads this host cannot make modelled. */
static void amd64_rows(void)
{
  static const struct { const char *name; long long (*model)(void); } models[] = {
    { "amd64-perfpmcff", model_perfpmcff }, { "amd64-pmcff", model_rdpmc_fixed },
    { "amd64-perfpmc", model_rdpmc }, { "amd64-tsc", model_tick_clock }, { "amd64-tscasm", model_tick_clock },
    { "default-monotonic", model_monotonic }, { "default-gettimeofday", model_gettimeofday },
    { "default-perfevent", 0 }, { "default-zero", 0 }, /* real reads: through the seam, or none */
  };
  int i;
  unsigned int k;
  for (i = 0; i < PROFILE_HOST_ROWS; ++i) {
    for (k = 0; k < sizeof models / sizeof models[0]; ++k)
      if (!strcmp(models[k].name, profile_host_table[i].name)) break;
    if (k == sizeof models / sizeof models[0]) abort(); /* a counter this test cannot play: says "runs" failed */
    set_row(i, profile_host_table[i].name, &profile_host_table[i], models[k].model);
  }
}

/* Intel server, bare metal (Sapphire Rapids: family 6 model 0x8f):
   leaf 0x15 states a 2.1 GHz TSC from a 25 MHz crystal, PMC version 5
   with 4 fixed counters of 48 bits; cpucycles-open has run (paranoid 2,
   rdpmc 2); the userspace governor holds the cores at 2.1 GHz. */
static void intel_server(void)
{
  x86_cpu("GenuineIntel", 0x20, 0x000806f8, 0);
  x86_pmu(5, 4, 48);
  leaf(0x15, 2, 168, 25000000, 0);
  leaf(0x16, 2100, 3800, 100, 0);
  file("/proc/sys/kernel/perf_event_paranoid", "2\n");
  file("/sys/devices/cpu/rdpmc", "2\n");
  file("/sys/devices/system/cpu/cpu0/cpufreq/scaling_setspeed", "2100000\n");
  file("/sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq", "3800000\n");
  file("/proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
                        "cpu MHz\t\t: 2100.000\n");
  M.core_hz = 2100000000;
  M.tick_hz = 2100000000;
  M.syscall_ns = 300;
  M.syscall_user_ns = 35;
  amd64_rows();
}

/* Hybrid Intel desktop (Alder Lake: family 6 model 0x97, P-cores and
   E-cores): the kernel has two PMUs, cpu_core and cpu_atom (type 8), and
   their rdpmc files, no /sys/devices/cpu; leaf 0x15 states 3187.2 MHz from
   a 38.4 MHz crystal; intel_pstate (no userspace governor) caps cpu0, a
   P-core, at 5.2 GHz; cpucycles-open has run. */
static void intel_hybrid(void)
{
  x86_cpu("GenuineIntel", 0x20, 0x00090672, 0);
  x86_pmu(5, 3, 48);
  leaf(7, 0, 0, 0, 1u << 15); /* hybrid part (not read by the library) */
  leaf(0x15, 2, 166, 38400000, 0);
  leaf(0x16, 3200, 5200, 100, 0);
  file("/proc/sys/kernel/perf_event_paranoid", "2\n");
  file("/sys/devices/cpu_core/rdpmc", "2\n");
  file("/sys/devices/cpu_atom/rdpmc", "2\n");
  file("/sys/bus/event_source/devices/cpu_core/type", "4\n");
  file("/sys/bus/event_source/devices/cpu_atom/type", "8\n");
  file("/sys/devices/system/cpu/cpu0/cpufreq/scaling_setspeed", "<unsupported>\n");
  file("/sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq", "5200000\n");
  file("/proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu MHz\t\t: 4900.123\n");
  M.atom_type = 8;
  M.core_hz = 5200000000LL;
  M.tick_hz = 3187200000LL;
  M.syscall_ns = 250;
  M.syscall_user_ns = 35;
  amd64_rows();
}

/* AMD Zen 4 server, bare metal (EPYC: family 0x19 model 0x11): highest
   leaf 0x10, so no stated TSC rate; cpucycles-open has run (rdpmc 2) and
   perf puts the cycles event on a 48-bit counter user code may read; the
   administrator wrote the base clock, 2.4 GHz with boost off in the
   firmware, into /etc/cpucyclespersecond (cpufreq says 3.7 GHz). */
static void amd_zen(void)
{
  x86_cpu("AuthenticAMD", 0x10, 0x00a10f11, 0);
  file("/etc/cpucyclespersecond", "2400000000\n");
  file("/proc/sys/kernel/perf_event_paranoid", "2\n");
  file("/sys/devices/cpu/rdpmc", "2\n");
  file("/sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq", "3700000\n");
  file("/proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu MHz\t\t: 2400.000\n");
  M.cap_user_rdpmc = 1;
  M.pmc_width = 48;
  M.core_hz = 2400000000LL;
  M.tick_hz = 2400000000LL;
  M.syscall_ns = 300;
  M.syscall_user_ns = 35;
  amd64_rows();
}

/* A 6 GHz desktop out of the box (hybrid Intel, family 6 model 0xb7):
   Ubuntu's perf_event_paranoid 4 and the kernel's rdpmc 1, so no perf
   and no RDPMC; boost capped with scaling_max_freq at 3.2 GHz, the
   hardware's 6 GHz left in cpuinfo_max_freq (which is not read); leaf
   0x15 states 3187.2 MHz. */
static void desktop_6ghz(void)
{
  x86_cpu("GenuineIntel", 0x20, 0x000b0671, 0);
  x86_pmu(5, 3, 48);
  leaf(0x15, 2, 166, 38400000, 0);
  leaf(0x16, 3200, 6000, 100, 0);
  file("/proc/sys/kernel/perf_event_paranoid", "4\n");
  file("/sys/devices/cpu_core/rdpmc", "1\n");
  file("/sys/devices/cpu_atom/rdpmc", "1\n");
  file("/sys/bus/event_source/devices/cpu_atom/type", "8\n");
  file("/sys/devices/system/cpu/cpu0/cpufreq/scaling_setspeed", "<unsupported>\n");
  file("/sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq", "3200000\n");
  file("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "6000000\n");
  file("/proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu MHz\t\t: 3200.000\n");
  M.atom_type = 8;
  M.core_hz = 3200000000LL;
  M.tick_hz = 3187200000LL;
  M.syscall_ns = 250;
  M.syscall_user_ns = 35;
  amd64_rows();
}

/* KVM guest on an Intel host (Ice Lake server, family 6 model 0x6a) with
   an invariant TSC whose rate QEMU states in leaf 0x40000010
   (vmware-cpuid-freq): 2593.906 MHz.  Leaf 0x15 still shows the host's
   crystal (2592 MHz), which a guest must ignore.  No PMU (leaf 0xA 0,
   perf ENOENT), no cpufreq; /proc/cpuinfo says the TSC rate. */
static void kvm_guest(void)
{
  x86_cpu("GenuineIntel", 0x1f, 0x000606a6, 1);
  leaf(0x15, 2, 216, 24000000, 0);
  leaf(0x40000000, 0x40000010, word("KVMKVMKVM\0\0\0", 0), word("KVMKVMKVM\0\0\0", 1),
       word("KVMKVMKVM\0\0\0", 2));
  leaf(0x40000010, 2593906, 1000000, 0, 0);
  file("/proc/sys/kernel/perf_event_paranoid", "2\n");
  file("/proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel Xeon Processor (Icelake)\n"
                        "cpu MHz\t\t: 2593.906\n");
  M.perf_errno = ENOENT;
  M.core_hz = 2593906000LL;
  M.tick_hz = 2593906000LL;
  M.syscall_ns = 400;
  M.syscall_user_ns = 35;
  amd64_rows();
}

static const struct profile profiles[] = {
  { "intel_server", "Intel server, bare metal: CPUID 0x15 TSC rate, PMU version 5, rdpmc 2, userspace governor at 2.1 GHz",
    intel_server, "amd64-perfpmcff", 2100000000LL, "sysfs cpufreq scaling_setspeed", "1.000000", "core", 2100000000LL, 1 },
  { "intel_hybrid", "hybrid Intel (Alder Lake): cpu_core and cpu_atom PMUs, rdpmc 2, intel_pstate cap 5.2 GHz",
    intel_hybrid, "amd64-perfpmcff", 5200000000LL, "sysfs cpufreq scaling_max_freq", "1.000000", "core", 5200000000LL, 2 },
  { "amd_zen", "AMD Zen 4 server, bare metal: rdpmc 2, /etc/cpucyclespersecond 2.4 GHz",
    amd_zen, "amd64-perfpmc", 2400000000LL, "file /etc/cpucyclespersecond", "1.000000", "core", 2400000000LL, 1 },
  { "desktop_6ghz", "6 GHz Intel desktop out of the box (paranoid 4, rdpmc 1), boost capped: scaling_max_freq 3.2 GHz, TSC 3187.2 MHz",
    desktop_6ghz, "amd64-tsc", 3200000000LL, "sysfs cpufreq scaling_max_freq", "1.004016", "offcore rate 3187200000", 3200000000LL, 0 },
  { "kvm_guest", "KVM guest, no PMU: hypervisor CPUID 0x40000010 states the TSC rate 2593.906 MHz",
    kvm_guest, "amd64-tsc", 2593906000LL, "cpuinfo /proc/cpuinfo cpu MHz", "1.000000", "offcore rate 2593906000", 2593906000LL, 0 },
};

int main(void)
{
  static const char *const needed[] = { "amd64-perfpmcff", "amd64-perfpmc", "amd64-tsc", "default-perfevent" };
  const char *cannot = 0;
  unsigned int k;
  for (k = 0; k < sizeof needed / sizeof needed[0]; ++k)
    if (!host_row(needed[k])) cannot = "not an x86_64 Linux build: its table lacks the counters these profiles choose";
  return run_profiles("profile-amd64", profiles, (int) (sizeof profiles / sizeof profiles[0]), cannot);
}
