/* The first call leaves errno as it found it (issue 37, row 10), as the
   reads do: the probes' refused opens and missing files set it (ENOENT
   from a perf_event_open without a PMU, or from a missing sysfs file),
   and a program may be about to read its own errno. */
#include <errno.h>
#include "check.h"
#include "cpucycles.h"

int main(void)
{
  long long count;
  errno = EDOM;
  count = cpucycles();
  check(errno == EDOM, "firstcall_errno_kept", "errno %d after the first call (was EDOM, %d), which chose %s",
        errno, EDOM, cpucycles_implementation());
  errno = ERANGE;
  cpucycles_persecond();
  check(errno == ERANGE, "firstcall_persecond_errno_kept", "errno %d after the first cpucycles_persecond() (was %d)",
        errno, ERANGE);
  errno = EILSEQ;
  count = cpucycles() - count;
  check(errno == EILSEQ && count >= 0, "read_errno_kept", "errno %d after a read (was %d); %lld counted", errno,
        EILSEQ, count);
  return checks_failed();
}
