/* Where the OS states no rate and the chosen counter is read tick for
   tick (a TSC of unknown rate beat a core cycle counter whose reads are
   slow, say default-perfevent's read(2)), cpucycles_persecond() is the
   losing core counter's measured rate, as a trace finds it (the trace
   measures every counter), not the default; the loser is closed again
   after its rate is timed.  The table is this test's own (it replaces the
   generated one): a fake TSC, a 3 GHz core counter that steps by 1500,
   and a last resort. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <string.h>
#include "check.h"
#include "cpucycles.h"
#include "internal.h"
#include "fakeos.h"

static long long tsc;
static int core_closes;

static long long tsc_setup(struct cpucycles_probe *probe)
{
  (void) probe;
  return CPUCYCLES_MAYBECYCLECOUNTER;
}

static long long tsc_ticks(void)
{
  return tsc += 18; /* precision 1018 */
}

static long long core_setup(struct cpucycles_probe *probe)
{
  (void) probe;
  return CPUCYCLES_CYCLECOUNTER;
}

static long long core_ticks(void)
{
  return real_nanoseconds() * 3 / 1500 * 1500; /* 3 GHz, precision 1510: it loses */
}

static void core_close(void)
{
  ++core_closes;
}

static long long none_setup(struct cpucycles_probe *probe)
{
  (void) probe;
  return CPUCYCLES_SKIP;
}

static long long none_ticks(void)
{
  return 0;
}

static void no_close(void)
{
}

const struct cpucycles_counter cpucycles_counters[] = {
  { "fake-tsc", tsc_setup, tsc_ticks, no_close },
  { "fake-core", core_setup, core_ticks, core_close },
  { "fake-zero", none_setup, none_ticks, no_close },
};
const int cpucycles_counter_count = 3;

static long nothing_stated(const char *path, long offset, char *buf, size_t size)
{
  (void) path;
  (void) offset;
  (void) size;
  buf[0] = 0;
  errno = ENOENT;
  return -1;
}

static const char *no_environment(const char *name)
{
  (void) name;
  return 0;
}

int main(void)
{
  long long persecond;
  int closes;
  fake_os.read_text = nothing_stated;
  fake_os.getenv = no_environment;
  cpucycles();
  closes = core_closes;
  persecond = cpucycles_persecond();
  /* 3 GHz, give or take a busy machine's windows; the default is 2399987654 */
  check(!strcmp(cpucycles_implementation(), "fake-tsc") && persecond > 2700000000LL &&
            persecond < 3300000000LL,
        "persecond_from_losing_core_counter", "chosen %s, persecond %lld", cpucycles_implementation(),
        persecond);
  check(core_closes > closes, "persecond_loser_closed_again", "closed %d times before, %d after",
        closes, core_closes);
  return checks_failed();
}
