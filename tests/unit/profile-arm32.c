/* Machine profile of arm32 (tests/profile.h), on any Linux host: the
   table an arm32 build has (checked against cpucycles/options), its
   default-* rows this build's own.  The arm32 counters' files run
   coprocessor instructions this host lacks, so stand-ins take their
   places: their setups say what the files' setups say (EXTEND32, read once
   under the guard), and their reads are models on the simulated clock:
   the Cortex PMU's 32-bit PMCCNTR counting core cycles (a module granted
   user access), the ARM1176 register trapping, as it does on a Cortex. */
#define _GNU_SOURCE
#include "profile.h"

#define ARM32_ROWS 6
PROFILE_TABLE(ARM32_ROWS)

/* the setup of arm32-cortex and arm32-1176 (cpucycles/arm32-pmu.h) */
static long long arm32_setup(struct cpucycles_probe *probe)
{
  probe->may_trap = 1;
  return CPUCYCLES_EXTEND32;
}

static long long model_pmccntr32(void)
{
  return model_core_cycles() & 0xffffffffLL;
}

static void arm32_rows(void)
{
  set_stand_in(0, "arm32-cortex", arm32_setup, model_pmccntr32, 0);
  set_stand_in(1, "arm32-1176", arm32_setup, model_trap, 0);
  if (default_rows(2) != ARM32_ROWS) abort();
}

static char cpuinfo[4096];

/* A Cortex-A board (four cores at 1.2 GHz) running Debian armhf, with a
   kernel module that grants user access to the PMU; cpufreq with the
   ondemand governor (scaling_max_freq 1.2 GHz); Debian's
   perf_event_paranoid 3, so no perf for a user. */
static void arm32_pmu(void)
{
  size_t n = 0;
  int i;
  for (i = 0; i < 4; ++i)
    n += (size_t) snprintf(cpuinfo + n, sizeof cpuinfo - n,
                           "processor\t: %d\nmodel name\t: ARMv7 Processor rev 4 (v7l)\nBogoMIPS\t: 38.40\n"
                           "Features\t: half thumb fastmult vfp edsp neon vfpv3 tls vfpv4 idiva idivt vfpd32 lpae "
                           "evtstrm crc32\nCPU implementer\t: 0x41\nCPU architecture: 7\nCPU variant\t: 0x0\n"
                           "CPU part\t: 0xd03\nCPU revision\t: 4\n\n", i);
  snprintf(cpuinfo + n, sizeof cpuinfo - n, "Hardware\t: BCM2835\nRevision\t: a02082\n");
  file("/proc/cpuinfo", cpuinfo);
  file("/proc/sys/kernel/perf_event_paranoid", "3\n");
  file("/sys/devices/system/cpu/cpu0/cpufreq/scaling_setspeed", "<unsupported>\n");
  file("/sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq", "1200000\n");
  M.core_hz = 1200000000;
  M.syscall_ns = 1000;
  M.syscall_user_ns = 100;
  arm32_rows();
}

/* The same board with perf_event_paranoid 2: default-perfevent's reads
   step by the user-mode cycles around the system call (perf counts with
   the kernel excluded), about 120 here, which beats arm32-cortex's few
   cycles plus the 32-bit penalty of 300. */
static void arm32_pmu_perf(void)
{
  arm32_pmu();
  file("/proc/sys/kernel/perf_event_paranoid", "2\n");
}

/* The 5 s that cpucycles() is read across are 6e9 cycles: the 32-bit
   counter wraps once, and the extension must count it. */
static const struct profile profiles[] = {
  { "arm32_pmu", "arm32 Cortex-A board, Debian armhf (perf_event_paranoid 3), PMU user access granted by a module, cpufreq max 1.2 GHz",
    arm32_pmu, "arm32-cortex", 1200000000LL, "sysfs cpufreq scaling_max_freq", "1.000000", "core32", 1200000000LL, 0 },
  { "arm32_pmu_perf", "the same arm32 board with perf_event_paranoid 2",
    arm32_pmu_perf, "default-perfevent", 1200000000LL, "sysfs cpufreq scaling_max_freq", "1.000000", "core", 1200000000LL, 1 },
};

int main(void)
{
  char want[256], have[256];
  const char *cannot = 0;
  if (!host_row("default-perfevent")) cannot = "not a Linux build: no default-perfevent to complete an arm32 table";
  if (!cannot) {
    arm32_rows();
    table_order(ARM32_ROWS, have, sizeof have);
    check(options_order("arm32", want, sizeof want) && !strcmp(want, have), "profile_arm32_table_is_an_arm32_build",
          "test plays '%s', cpucycles/options gives '%s'", have, want);
  }
  return run_profiles("profile-arm32", profiles, (int) (sizeof profiles / sizeof profiles[0]), cannot);
}
