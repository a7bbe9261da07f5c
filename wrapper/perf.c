/* perf_event_open done once, for every counter that needs it. */
#ifdef __linux__
#include <errno.h>
#include <linux/perf_event.h>
#include "counter.h"
#include "os.h"
#include "perf.h"

#ifndef PERF_FLAG_FD_CLOEXEC
#define PERF_FLAG_FD_CLOEXEC 0 /* old headers: nothing to ask for */
#endif

const char *cpucycles_perf_words(int err)
{
  switch (err) {
    case EACCES: return "perf_event_open: EACCES: perf_event_paranoid too high; run cpucycles-open as root";
    case EPERM: return "perf_event_open: EPERM: not permitted (paranoid setting or seccomp)";
    case ENOENT: return "perf_event_open: ENOENT: no hardware cycle event (no PMU exposed, e.g. in a guest)";
    case ENODEV: return "perf_event_open: ENODEV: no PMU for this event";
    case ENOSYS: return "perf_event_open: ENOSYS: kernel without perf_event";
    case EOPNOTSUPP: return "perf_event_open: EOPNOTSUPP: event not supported here";
    case EINVAL: return "perf_event_open: EINVAL: event rejected by this kernel";
    case EMFILE: return "perf_event_open: EMFILE: out of file descriptors";
    case EBUSY: return "perf_event_open: EBUSY: counter in use by someone else";
  }
  return "perf_event_open failed";
}

int cpucycles_perf_open(struct perf_event_attr *attr)
{
  /* preferring exclusion: count only this program where the PMU can */
  static const unsigned char exclude[4][2] = { { 1, 1 }, { 1, 0 }, { 0, 1 }, { 0, 0 } };
  int i, err = ENOSYS;
  for (i = 0; i < 4; ++i) {
    long fd;
    attr->exclude_kernel = exclude[i][0];
    attr->exclude_hv = exclude[i][1];
    fd = cpucycles_os.perf_event_open(attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0) return (int) fd;
    err = errno;
    /* these will not change with the exclude bits */
    if (err == ENOSYS || err == ENOENT || err == EMFILE || err == ENODEV) break;
  }
  cpucycles_counter_says(cpucycles_perf_words(err));
  return -1;
}

#else
typedef int cpucycles_perf_unused; /* ISO C wants something in a file */
#endif
