/* RDHWR $2, the MIPS cycle count register, times RDHWR $3, the number of
   core cycles per count.  CC is 32 bits; the product is taken modulo 2^32,
   which still wraps cleanly (2^32 times an integer scale is 0 modulo 2^32),
   and the wrapper extends it to 64 bits.  RDHWR traps where the kernel
   does not enable these registers for user code. */
#include "counter.h"

static unsigned int scale; /* read at the first ticks(), under the guard */

static unsigned int hardware(int which)
{
  unsigned long long v;
  if (which == 2)
    __asm__ __volatile__(".set push\n.set mips32r2\nrdhwr %0, $2\n.set pop" : "=r"(v));
  else
    __asm__ __volatile__(".set push\n.set mips32r2\nrdhwr %0, $3\n.set pop" : "=r"(v));
  return (unsigned int) v;
}

long long ticks(void)
{
  if (!scale) scale = hardware(3); /* 0 stays 0: counts never move, dropped */
  return (unsigned int) (hardware(2) * scale);
}

long long ticks_setup(struct cpucycles_probe *probe)
{
  probe->may_trap = 1;
  return CPUCYCLES_EXTEND32;
}

void ticks_close(void)
{
}
