/* Makes the first call and nothing else ("none": not even that), so a
   tracer sees exactly what the first call asks of the kernel. */
#include <stdio.h>
#include <string.h>
#include <cpucycles.h>

int main(int argc, char **argv)
{
  if (argc > 1 && !strcmp(argv[1], "none")) return 0;
  cpucycles();
  return 0;
}
