/* Machine profile of s390x (tests/profile.h), on any Linux host: the
   table an s390x build has (checked against cpucycles/options), its
   default-* rows this build's own.  s390x-stckf's file reads the TOD clock
   with an instruction this host lacks; its stand-in's setup says what that
   file's says (the architecture's 4096 MHz), its read is a model of the
   TOD clock on the simulated clock. */
#define _GNU_SOURCE
#include "profile.h"

#define S390X_ROWS 5
PROFILE_TABLE(S390X_ROWS)

static long long s390x_stckf_setup(struct cpucycles_probe *probe)
{
  cpucycles_say(probe, "rate 4096 MHz, fixed by z/Architecture for the TOD clock");
  return 4096000000LL;
}

static void s390x_rows(void)
{
  set_stand_in(0, "s390x-stckf", s390x_stckf_setup, model_tick_clock, 0);
  if (default_rows(1) != S390X_ROWS) abort();
}

#define CPUS 16
static char cpuinfo[CPUS * 512 + 1024];

/* An IBM z15 partition with 16 CPUs at 5.2 GHz: /proc/cpuinfo has one
   "processor N:" line per CPU first, then each CPU's block, where
   "cpu MHz static" comes after "cpu MHz dynamic"; no cpufreq; the CPU
   measurement facility's cycle counter not authorized (perf ENOENT). */
static void s390x(void)
{
  size_t n = 0;
  int i;
  n += (size_t) snprintf(cpuinfo + n, sizeof cpuinfo - n,
                         "vendor_id       : IBM/S390\n# processors    : %d\nbogomips per cpu: 24038.00\n"
                         "max thread id   : 1\nfeatures\t: esan3 zarch stfle msa ldisp eimm dfp edat etf3eh highgprs "
                         "te vx vxd vxe gs vxe2 vxp sort dflt sie\n", CPUS);
  for (i = 0; i < CPUS; ++i)
    n += (size_t) snprintf(cpuinfo + n, sizeof cpuinfo - n,
                           "processor %d: version = 00,  identification = 2D1E28,  machine = 8561\n", i);
  for (i = 0; i < CPUS; ++i)
    n += (size_t) snprintf(cpuinfo + n, sizeof cpuinfo - n,
                           "\ncpu number      : %d\nphysical id     : 1\ncore id         : %d\nbook id         : 1\n"
                           "drawer id       : 1\ndedicated       : 0\naddress         : %d\nsiblings        : %d\n"
                           "cpu cores       : %d\nversion         : 00\nidentification  : 2D1E28\n"
                           "machine         : 8561\ncpu MHz dynamic : 5200\ncpu MHz static  : 5200\n",
                           i, i, i, CPUS, CPUS);
  file("/proc/cpuinfo", cpuinfo);
  file("/proc/sys/kernel/perf_event_paranoid", "2\n");
  M.perf_errno = ENOENT;
  M.core_hz = 5200000000LL;
  M.tick_hz = 4096000000LL;
  M.syscall_ns = 300;
  M.syscall_user_ns = 30;
  s390x_rows();
}

/* scaling 5200 MHz / 4096 MHz = 1.26953125 */
static const struct profile profiles[] = {
  { "s390x", "IBM z15 partition, 16 CPUs: /proc/cpuinfo cpu MHz static 5200, TOD clock 4096 MHz, no CPU-MF cycle counter",
    s390x, "s390x-stckf", 5200000000LL, "cpuinfo /proc/cpuinfo cpu MHz static", "1.269531", "offcore rate 4096000000", 5200000000LL, 0 },
};

int main(void)
{
  char want[256], have[256];
  const char *cannot = 0;
  if (!host_row("default-perfevent")) cannot = "not a Linux build: no default-perfevent to complete an s390x table";
  if (!cannot) {
    s390x_rows();
    table_order(S390X_ROWS, have, sizeof have);
    check(options_order("s390x", want, sizeof want) && !strcmp(want, have), "profile_s390x_table_is_an_s390x_build",
          "test plays '%s', cpucycles/options gives '%s'", have, want);
  }
  return run_profiles("profile-s390x", profiles, (int) (sizeof profiles / sizeof profiles[0]), cannot);
}
