/* The body of riscv32-rdcycle and riscv64-rdcycle, which differ only in
   how their header reads the cycle CSR (riscv_cycle()).  Linux 6.6 and
   later let user code read it only when perf_user_access allows;
   otherwise the read traps. */
#include "counter.h"

long long ticks(void)
{
  return riscv_cycle();
}

/* perf_user_access 1 (Linux 6.6 and later) lets user code run rdcycle
   only in a thread whose own perf event grants it: a read that works is
   riscv*-perfrdcycle's event at work, and it traps once that event is
   closed, so this counter stands aside; 2 is the old rule, rdcycle for
   all, which needs no guard; only a kernel without the knob (or a
   system without /proc) leaves the read to the guard. */
long long ticks_setup(struct cpucycles_probe *probe)
{
  long access;
  if (!cpucycles_read_knob(CPUCYCLES_PERF_USER_ACCESS, &access))
    probe->may_trap = 1;
  else if (access != 2) {
    cpucycles_say(
        probe,
        "perf_user_access is %ld: user rdcycle only through perf (see the perfrdcycle counter)",
        access);
    return CPUCYCLES_SKIP;
  }
  return CPUCYCLES_CYCLECOUNTER;
}

void ticks_close(void)
{
}
