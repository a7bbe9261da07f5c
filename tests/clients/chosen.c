/* Counts a little and says which counter this very run chose, for tests
   that must tell the chosen counter's own resources from leaks
   (tests/integration/valgrind.sh). */
#include <stdio.h>
#include "cpucycles.h"

int main(void)
{
  long long a = cpucycles(), b = cpucycles();
  printf("chosen %s\n", cpucycles_implementation());
  return b < a;
}
