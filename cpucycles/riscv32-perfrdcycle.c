/* riscv32: as riscv64-perfrdcycle, with the 64-bit cycle counter read in
   two halves (riscv32-cycle.h; the body is perfuser.h). */
#include "riscv32-cycle.h"

#define PERFUSER_CONFIG1 0
#define PERFUSER_INDEX 1 /* RISC-V's perf numbers the cycle counter 1 */
#define PERFUSER_READ riscv_cycle
#include "perfuser.h"
