/* The last resort: always 0.  Setup says skip so that it never wins on
   merit; selection falls back to it only when nothing else works. */
#include "counter.h"

long long ticks_setup(struct cpucycles_probe *probe)
{
  cpucycles_say(probe, "last resort, used only when nothing else works");
  return CPUCYCLES_SKIP;
}

long long ticks(void)
{
  return 0;
}

void ticks_close(void)
{
}
