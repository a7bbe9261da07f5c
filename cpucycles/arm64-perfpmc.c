/* arm64: perf_event opens this thread's cycles event as a 64-bit counter
   with user access, and mapping its page makes the kernel let EL0 read
   PMCCNTR_EL0, given perf_user_access 1 (the body is perfuser.h). */
#include "arm64-pmccntr.h"

#define CONFIG1_64BIT 1       /* arm_pmuv3 "long": a 64-bit counter */
#define CONFIG1_USER_ACCESS 2 /* arm_pmuv3 "rdpmc": EL0 may read it */
#define PERFUSER_CONFIG1 (CONFIG1_64BIT | CONFIG1_USER_ACCESS)
#define PERFUSER_INDEX 32 /* arm64's perf numbers PMCCNTR 32; another counter is read by read(2) */

static unsigned long long perfuser_read(unsigned int counter)
{
  (void) counter; /* the one counter it reaches */
  return (unsigned long long) arm64_pmccntr();
}
#include "perfuser.h"
