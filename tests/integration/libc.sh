# Linux systems that are not Debian's: no kernel headers beside the C
# library (Alpine without linux-headers), and musl, which refuses to
# dlopen a library with initial-exec TLS.  Each in a scratch tree.
# test: long (a build)
. tests/lib.sh
if [ -n "$SANITIZE" ]; then skip libc_checks "not under make test-sanitize"; exit 0; fi
if [ -n "$RUN" ]; then skip libc_checks "native only"; exit 0; fi
if [ "$(uname -s)" != Linux ]; then skip libc_checks "Linux only"; exit 0; fi
own_build_env
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
scratch_tree "$d"
cd "$d" || exit 1

# One build: with musl where musl-gcc is installed, else the default
# compiler; either way without <linux/perf_event.h>.  The perf counters
# are left out, the rest builds and runs, and a musl build is dlopened
# and counts.
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
  void *h = argc < 2 ? 0 : dlopen(argv[1], RTLD_NOW);
  if (!h || !(c = (long long (**)(void)) dlsym(h, "cpucycles"))) {
    printf("dlopen: %s\n", dlerror());
    return 1;
  }
  a = (*c)();
  b = (*c)();
  printf("%s\n", a > 0 && b >= a ? "counts" : "does not count");
  return 0;
}
C
if ./configure ${cc:+CC=$cc} CPPFLAGS="-I$d/noperf" > out 2>&1 && make > make.log 2>&1; then
  info=$(build/0/package/bin/cpucycles-info 2>&1)
  if grep -q '^configure: skipping default-perfevent: it does not compile' out &&
     echo "$info" | grep -q '^cpucycles implementation ' && ! echo "$info" | grep -q 'perfevent'; then
    pass libc_no_perf_header_perf_counters_left_out
  else
    fail libc_no_perf_header_perf_counters_left_out "$(grep -E 'skipping|error' out | tr '\n' ' ') $(echo "$info" | head -n 3 | tr '\n' ' ')"
  fi
  if [ -z "$cc" ]; then
    skip libc_musl_dlopen "no musl-gcc here (Debian: musl-tools)"
  elif musl-gcc dl.c -o dl > cc.log 2>&1; then
    got=$(./dl "$d/build/0/package/lib/libcpucycles.so.1" 2>&1)
    [ "$got" = counts ] && pass libc_musl_dlopen || fail libc_musl_dlopen "$got"
  else
    fail libc_musl_dlopen "the client does not build: $(head -n 3 cc.log | tr '\n' ' ')"
  fi
else
  fail libc_no_perf_header_perf_counters_left_out "${cc:-the default compiler}: does not build: $(tail -n 3 out make.log 2>/dev/null | tr '\n' ' ')"
fi
