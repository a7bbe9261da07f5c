/* Linux perf_event: the kernel's count of PERF_COUNT_HW_CPU_CYCLES for this
   thread, read with read(2).  A true cycle counter, but each read is a
   system call. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "counter.h"
#include "perf.h"

static int fd = -1;

long long ticks_setup(void)
{
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.type = PERF_TYPE_HARDWARE;
  attr.size = sizeof attr;
  attr.config = PERF_COUNT_HW_CPU_CYCLES;
  fd = cpucycles_perf_open(&attr);
  if (fd < 0) return CPUCYCLES_SKIP;
  return CPUCYCLES_CYCLECOUNTER;
}

long long ticks(void)
{
  long long count = 0;
  if (read(fd, &count, sizeof count) != sizeof count) return 0;
  return count;
}

void ticks_close(void)
{
  if (fd >= 0) close(fd);
  fd = -1;
}
