/* The release date; doc/changes.md, README.md and the man pages say the
   same (tests/integration/version.sh checks). */
#include "cpucycles.h"

const char *cpucycles_version(void)
{
  return "20261202";
}
