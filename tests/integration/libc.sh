# Linux systems that are not Debian's: no kernel headers beside the C
# library (Alpine without linux-headers), and musl, which refuses to
# dlopen a library with initial-exec TLS.  Each in a scratch tree.
# test: long (a build)
. tests/lib.sh
if [ -n "$SANITIZE" ]; then skip libc_checks "not under make test-sanitize"; exit 0; fi
if [ -n "$RUN" ]; then skip libc_checks "native only"; exit 0; fi
if [ "$(uname -s)" != Linux ]; then skip libc_checks "Linux only"; exit 0; fi
into_scratch_tree

# One build of the library alone: with musl where musl-gcc is installed,
# else the default compiler; either way without <linux/perf_event.h>.
# The perf counters are left out, the rest builds, and a client that
# dlopens it (musl's loader where musl) counts with a counter that is no
# perf one.
mkdir -p noperf/linux
echo '#error no kernel headers here' > noperf/linux/perf_event.h
cc=
command -v musl-gcc > /dev/null 2>&1 && cc=musl-gcc
cat > dl.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
  long long (**c)(void), a, b;
  const char *(*name)(void) = 0;
  void *h = argc < 2 ? 0 : dlopen(argv[1], RTLD_NOW);
  if (!h || !(c = (long long (**)(void)) dlsym(h, "cpucycles")) ||
      !(*(void **) &name = dlsym(h, "cpucycles_implementation"))) {
    printf("dlopen: %s\n", dlerror());
    return 1;
  }
  a = (*c)();
  b = (*c)();
  printf("%s %s\n", a > 0 && b >= a ? "counts" : "does-not-count", name());
  return 0;
}
C
lib=
./configure ${cc:+CC=$cc} CPPFLAGS="-I$d/noperf" > out 2>&1 &&
  lib=$(sed -n 's/^PACKAGE = //p' build/0/config.mk)/lib/libcpucycles.so.1 && make "$lib" > make.log 2>&1 &&
  ${cc:-cc} dl.c -o dl -ldl > cc.log 2>&1 || lib=
if [ -n "$lib" ]; then
  got=$(./dl "$d/$lib" 2>&1)
  case "$got" in
    "counts "*perf*) fail libc_no_perf_header_perf_counters_left_out "chose ${got#counts }" ;;
    "counts "*)
      if grep -q '^configure: skipping default-perfevent: it does not compile' out; then
        pass libc_no_perf_header_perf_counters_left_out
      else
        fail libc_no_perf_header_perf_counters_left_out "configure did not leave default-perfevent out"
      fi ;;
    *) fail libc_no_perf_header_perf_counters_left_out "${cc:-cc}: $got" ;;
  esac
  if [ -z "$cc" ]; then
    skip libc_musl_dlopen "no musl-gcc here (Debian: musl-tools)"
  else
    case "$got" in "counts "*) pass libc_musl_dlopen ;; *) fail libc_musl_dlopen "$got" ;; esac
  fi
else
  fail libc_no_perf_header_perf_counters_left_out "${cc:-the default compiler}: does not build: $(tail -n 3 out make.log cc.log 2>/dev/null | tr '\n' ' ')"
fi
