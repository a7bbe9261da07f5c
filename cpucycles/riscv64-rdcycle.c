/* rdcycle, the RISC-V cycle CSR, 64 bits wide on RV64 (the counter's body
   is riscv-rdcycle.h). */
#include "riscv64-cycle.h"
#include "riscv-rdcycle.h"
