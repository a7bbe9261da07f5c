/* Machine profiles of arm64 (tests/profile.h), on any Linux host: the
   table an arm64 build has (checked against cpucycles/options), its
   default-* rows this build's own.  The arm64 counters' files read
   registers this host lacks, so stand-ins take their places: each setup
   does what that file's setup does, through the same support code where
   there is some (arm64-perfpmc's perf_user_access and page, in perf.c),
   and each read is a model on the simulated clock (PMCCNTR_EL0 counting
   core cycles, or trapping as it does without user access; CNTVCT_EL0 at
   CNTFRQ_EL0's rate). */
#define _GNU_SOURCE
#include "profile.h"

#define ARM64_ROWS 7
PROFILE_TABLE(ARM64_ROWS)

#ifdef __linux__
/* cpucycles/arm64-perfpmc.c's setup, step for step */
static unsigned long long pmccntr_model(unsigned int counter)
{
  (void) counter;
  return (unsigned long long) model_core_cycles();
}
static struct cpucycles_perf perfpmc = { 1 | 2, pmccntr_model, 0, 0, 0 };
static long long model_perfpmc(void)
{
  lazy_core_event();
  return model_core_cycles();
}
static struct cpucycles_perf_thread perfpmc_thread;
static long long arm64_perfpmc_setup(struct cpucycles_probe *probe)
{
  return cpucycles_perf_user_counter(&perfpmc, &perfpmc_thread, probe) ? CPUCYCLES_CYCLECOUNTER : CPUCYCLES_SKIP;
}

static void arm64_perfpmc_close(void)
{
  cpucycles_perf_close(&perfpmc, &perfpmc_thread);
}
#endif

/* cpucycles/arm64-pmc.c's setup: nothing can tell, so one guarded read */
static long long arm64_pmc_setup(struct cpucycles_probe *probe)
{
  probe->may_trap = 1;
  return CPUCYCLES_CYCLECOUNTER;
}

/* cpucycles/arm64-vct.c's setup: the rate CNTFRQ_EL0 holds */
static long long arm64_vct_setup(struct cpucycles_probe *probe)
{
  cpucycles_say(probe, "rate from CNTFRQ_EL0");
  return M.tick_hz;
}

static void arm64_rows(void)
{
#ifdef __linux__
  /* PMCCNTR_EL0 reads where perf lets user code read it, else traps */
  set_stand_in(0, "arm64-perfpmc", arm64_perfpmc_setup, model_perfpmc, arm64_perfpmc_close);
  set_stand_in(1, "arm64-pmc", arm64_pmc_setup, model_trap, 0);
  set_stand_in(2, "arm64-vct", arm64_vct_setup, model_tick_clock, 0);
  if (default_rows(3) != ARM64_ROWS) abort();
#endif
}

/* /proc/cpuinfo of an arm64 server: no MHz anywhere */
static char cpuinfo[64 * 1024];
static const char *arm64_cpuinfo(int cpus)
{
  size_t n = 0;
  int i;
  for (i = 0; i < cpus; ++i)
    n += (size_t) snprintf(cpuinfo + n, sizeof cpuinfo - n,
                           "processor\t: %d\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 "
                           "atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs\nCPU implementer\t: 0x41\n"
                           "CPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\nCPU revision\t: 1\n\n", i);
  return cpuinfo;
}

/* An arm64 server (80 Neoverse N1 cores at 3.0 GHz, generic timer at
   25 MHz) without cpufreq: no frequency file, no MHz line.  Out of the
   box: perf_user_access 0, PMCCNTR_EL0 traps in user code, perf counts
   cycles through read(2) at paranoid 2. */
static void arm64_server(void)
{
  file("/proc/cpuinfo", arm64_cpuinfo(80));
  file("/proc/sys/kernel/perf_event_paranoid", "2\n");
  file("/proc/sys/kernel/perf_user_access", "0\n");
  M.core_hz = 3000000000LL;
  M.tick_hz = 25000000;
  M.syscall_ns = 250;
  M.syscall_user_ns = 40;
  M.pmc_width = 64;
  arm64_rows();
}

/* The same server after cpucycles-open: perf_user_access 1, and the perf
   page says user reads are on. */
static void arm64_server_opened(void)
{
  arm64_server();
  file("/proc/sys/kernel/perf_user_access", "1\n");
  M.cap_user_rdpmc = 1;
}

/* Out of the box, arm64-vct (earlier in the list, scaled) asks for
   persecond before any core counter has worked and gets the default
   guess; default-perfevent, a core counter, wins, so the first
   cpucycles_persecond() measures it (it once kept the guess, 25% off):
   0.025% under 3 GHz here, the kernel's part of the perf reads at each
   end of a window, which an event counting user mode does not count.
   After cpucycles-open, arm64-perfpmc works before arm64-vct asks, so
   persecond is measured during the selection. */
static const struct profile profiles[] = {
  { "arm64_server", "arm64 server without cpufreq (no MHz anywhere), out of the box: perf_user_access 0, CNTFRQ 25 MHz, cores at 3 GHz",
    arm64_server, "default-perfevent", 3000000000LL, "measured default-perfevent against CLOCK_MONOTONIC", "1.000000", "core", 3000000000LL, 1 },
  { "arm64_server_opened", "the same arm64 server after cpucycles-open: perf_user_access 1",
    arm64_server_opened, "arm64-perfpmc", 3000000000LL, "measured arm64-perfpmc against CLOCK_MONOTONIC", "1.000000", "core",
    3000000000LL, 1 },
};

int main(void)
{
  char want[256], have[256];
  const char *cannot = 0;
  if (!host_row("default-perfevent")) cannot = "not a Linux build: no default-perfevent to complete an arm64 table";
  if (!cannot) {
    arm64_rows();
    table_order(ARM64_ROWS, have, sizeof have);
    check(options_order("arm64", want, sizeof want) && !strcmp(want, have), "profile_arm64_table_is_an_arm64_build",
          "test plays '%s', cpucycles/options gives '%s'", have, want);
  }
  return run_profiles("profile-arm64", profiles, (int) (sizeof profiles / sizeof profiles[0]), cannot);
}
