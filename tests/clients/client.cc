// The header from C++: extern "C", and cpucycles is a function pointer.
#include <cpucycles.h>
#include <cstdio>
#include <cstring>

int main()
{
  long long (*f)(void) = cpucycles;
  long long a = f(), b = cpucycles();
  bool ok = b >= a && cpucycles_persecond() > 0 &&
            std::strlen(cpucycles_version()) == 8;
  std::printf("%s cplusplus_client\n", ok ? "pass" : "fail");
  return ok ? 0 : 1;
}
