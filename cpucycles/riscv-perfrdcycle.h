/* riscv32/64-perfrdcycle: the counter CSR that this thread's perf cycles
   event sits on, read from user code, given perf_user_access 1 (current
   kernels turn the counters off for user code otherwise; the body is
   perfuser.h).  riscv-counters.h reads the CSR for either XLEN. */
#include "riscv-counters.h"
#include "counter.h"

#define PERFUSER_CONFIG1 0
#define PERFUSER_INDEX 0 /* whichever counter the page names */
#define perfuser_read riscv_counter
#include "perfuser.h"
