/* PMCCNTR_EL0, the ARMv8-A PMU cycle counter, read without perf.  Works only
   where the OS lets user code read it (PMUSERENR_EL0, set by a kernel module
   on older Linux); elsewhere the read traps. */
#include "arm64-pmccntr.h"

long long ticks(void)
{
  return arm64_pmccntr();
}

/* A kernel with perf_user_access (Linux 5.17 and later) lets user code
   read PMCCNTR_EL0 only in a thread whose own perf event grants it: here
   a read that works is arm64-perfpmc's event, set up just before, at
   work, and it traps once that event is closed.  So on such a kernel this
   counter stands aside for arm64-perfpmc, which reads the same register
   (make test-system checks that arm64-perfpmc is chosen there). */
long long ticks_setup(struct cpucycles_probe *probe)
{
  long access;
  if (cpucycles_read_knob(CPUCYCLES_PERF_USER_ACCESS, &access)) {
    cpucycles_say(
        probe, "this kernel lets user code read PMCCNTR_EL0 only through perf: see arm64-perfpmc");
    return CPUCYCLES_SKIP;
  }
  probe->may_trap = 1;
  return CPUCYCLES_CYCLECOUNTER;
}

void ticks_close(void)
{
}
