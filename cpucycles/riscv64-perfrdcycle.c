/* riscv64: rdcycle granted through this thread's perf event, given
   perf_user_access 1 (current kernels turn rdcycle off for user code
   otherwise; the body is perfuser.h). */
#include "riscv64-cycle.h"

#define PERFUSER_CONFIG1 0
#define PERFUSER_INDEX 1 /* RISC-V's perf numbers the cycle counter 1 */
#define PERFUSER_READ riscv_cycle
#include "perfuser.h"
