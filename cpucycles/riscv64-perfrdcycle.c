/* riscv64: rdcycle granted through this thread's perf event (the
   counter's body is riscv-perfrdcycle.h). */
#include "riscv64-cycle.h"
#include "riscv-perfrdcycle.h"
