/* Written from the documented declarations only, without <cpucycles.h>. */
#include <stdio.h>

extern long long (*cpucycles)(void);
extern long long cpucycles_persecond(void);
extern const char *cpucycles_implementation(void);
extern const char *cpucycles_version(void);

int main(void)
{
  long long a = cpucycles(), b = cpucycles();
  int ok = b >= a && cpucycles_persecond() > 0 && cpucycles_implementation()[0] &&
           cpucycles_version()[8] == 0;
  printf("%s noheader_client_links_and_counts\n", ok ? "pass" : "fail");
  return !ok;
}
