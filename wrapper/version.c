/* The version, a date: the one place that sets it (scripts/version reads
   this line; doc/install.md, "Cutting a release").  A file of its own, so
   that a program asking for nothing else (cpucycles-open --version) links
   nothing else of the library, constructors included. */
#include "cpucycles.h"

const char *cpucycles_version(void) { return "20261207"; }
