/* riscv32: as riscv64-perfrdcycle, with the 64-bit cycle counter read in
   two halves (riscv32-cycle.h; the counter's body is riscv-perfrdcycle.h). */
#include "riscv32-cycle.h"
#include "riscv-perfrdcycle.h"
