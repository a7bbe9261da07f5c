/* rdcycleh and rdcycle: the RISC-V cycle CSR on RV32, read in two halves
   (riscv32-cycle.h; the counter's body is riscv-rdcycle.h). */
#include "riscv32-cycle.h"
#include "riscv-rdcycle.h"
