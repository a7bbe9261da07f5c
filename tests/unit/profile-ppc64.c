/* Machine profile of POWER (tests/profile.h), on any Linux host: the
   table a ppc64 build has (checked against cpucycles/options), its
   default-* rows this build's own.  ppc64-mftb's file reads the time base
   with an instruction this host lacks; its stand-in's setup is that
   file's setup itself (cpucycles/ppc-timebase.h, plain C, reading the
   machine's /proc/cpuinfo through the seam), its read a model of the
   time base on the simulated clock. */
#define _GNU_SOURCE
#include "profile.h"
#include "ppc-timebase.h"

#define PPC64_ROWS 5
PROFILE_TABLE(PPC64_ROWS)

static long long ppc64_mftb_setup(struct cpucycles_probe *probe)
{
  return ppc_timebase_setup(probe);
}

static void ppc64_rows(void)
{
  set_stand_in(0, "ppc64-mftb", ppc64_mftb_setup, model_tick_clock, 0);
  if (default_rows(1) != PPC64_ROWS) abort();
}

#define CPUS 200
static char cpuinfo[CPUS * 128 + 256];
static long timebase_offset;

/* POWER9 in a PowerVM partition with 200 CPUs running Ubuntu: one block
   per CPU with its "clock", then the machine's lines with "timebase"
   past 16 KiB; no cpufreq in the partition; Ubuntu's
   perf_event_paranoid 4, so no perf for a user (with 2, default-perfevent
   would step by the user-mode cycles around its system call, about 150,
   and win). */
static void power_200cpus(void)
{
  size_t n = 0;
  int i;
  for (i = 0; i < CPUS; ++i)
    n += (size_t) snprintf(cpuinfo + n, sizeof cpuinfo - n,
                           "processor\t: %d\ncpu\t\t: POWER9 (architected), altivec supported\n"
                           "clock\t\t: 2900.000000MHz\nrevision\t: 2.2 (pvr 004e 0202)\n\n", i);
  timebase_offset = (long) n;
  snprintf(cpuinfo + n, sizeof cpuinfo - n, "timebase\t: 512000000\nplatform\t: pSeries\nmodel\t\t: IBM,9009-42A\n"
                                            "machine\t\t: CHRP IBM,9009-42A\nMMU\t\t: Radix\n");
  file("/proc/cpuinfo", cpuinfo);
  file("/proc/sys/kernel/perf_event_paranoid", "4\n");
  M.core_hz = 2900000000LL;
  M.tick_hz = 512000000;
  M.syscall_ns = 400;
  M.syscall_user_ns = 50;
  ppc64_rows();
}

/* scaling 2900 MHz / 512 MHz = 5.6640625 */
static const struct profile profiles[] = {
  { "power_200cpus", "POWER9 partition, 200 CPUs, Ubuntu (perf_event_paranoid 4): /proc/cpuinfo clock 2900 MHz, timebase 512 MHz on a line past 16 KiB, no cpufreq",
    power_200cpus, "ppc64-mftb", 2900000000LL, "cpuinfo /proc/cpuinfo clock", "5.664062", "offcore rate 512000000", 2900000000LL, 0 },
};

int main(void)
{
  char want[256], have[256];
  const char *cannot = 0;
  if (!host_row("default-perfevent")) cannot = "not a Linux build: no default-perfevent to complete a ppc64 table";
  if (!cannot) {
    power_200cpus();
    check(timebase_offset > 16384, "profile_power_timebase_line_past_16_KiB", "timebase line at byte %ld",
          timebase_offset);
    table_order(PPC64_ROWS, have, sizeof have);
    check(options_order("ppc64", want, sizeof want) && !strcmp(want, have), "profile_ppc64_table_is_a_ppc64_build",
          "test plays '%s', cpucycles/options gives '%s'", have, want);
    memset(&M, 0, sizeof M);
  }
  return run_profiles("profile-ppc64", profiles, (int) (sizeof profiles / sizeof profiles[0]), cannot);
}
