# The build variables as autoconf users pass them (issue 13): CC, CFLAGS,
# CPPFLAGS, LDFLAGS, LIBS and AR from the environment, as configure
# arguments and on the make command line, with the library's own flags
# (-fPIC -fvisibility=hidden -fwrapv) kept whatever CFLAGS says; a
# compiler for another ISA refused.  In a scratch copy of the tree.
# test: long (four configure runs and a clang build)
. tests/lib.sh
if [ -n "$SANITIZE" ]; then skip buildvars "not under make test-sanitize"; exit 0; fi
if [ -n "$RUN" ]; then skip buildvars "native only"; exit 0; fi
into_scratch_tree

# works LOG: the build in LOG made a library whose program runs
works() {
  build/0/package/bin/cpucycles-info > info.out 2>&1 && grep -q '^cpucycles implementation ' info.out
}
if ! command -v clang > /dev/null 2>&1; then
  skip buildvars_cc_from_environment "clang is not installed"
else
  # CC and flags from the environment; a flag with a quoted space must
  # mean the same in configure's checks and in make's lines
  CC=clang CFLAGS='-O1 -Wall -Wextra -DCPUCYCLES_TEST_MARK="a b"' CPPFLAGS=-DCPUCYCLES_TEST_PP LDFLAGS=-Wl,-rpath,/cpucycles-ldflags-mark \
    ./configure > conf.out 2>&1
  st=$?
  if [ $st = 0 ] && grep -q '^configure: compiler CC=clang (from the environment)' conf.out &&
     grep -qx 'CC = clang' build/0/config.mk; then
    pass buildvars_cc_from_environment
  else
    fail buildvars_cc_from_environment "status $st: $(grep -E 'compiler|error' conf.out)"
  fi
  if make -j2 > make.out 2>&1 && works; then
    if lines_have make.out clang -DCPUCYCLES_TEST_PP '-DCPUCYCLES_TEST_MARK="a b"' -O1 > why 2>&1 &&
       ! grep -q -- '-O2' make.out; then
      pass buildvars_cflags_cppflags_reach_compiles
    else
      fail buildvars_cflags_cppflags_reach_compiles "$(cat why)"
    fi
    # LDFLAGS reached the shared library's link: a run path only our flag
    # can have put there (-z now would be there anyway where it is the
    # toolchain's default)
    if ! command -v readelf > /dev/null 2>&1; then
      skip buildvars_ldflags_reach_link "no readelf"
    elif readelf -d build/0/package/lib/libcpucycles.so.1 | grep -q 'cpucycles-ldflags-mark'; then
      pass buildvars_ldflags_reach_link
    else
      fail buildvars_ldflags_reach_link "libcpucycles.so.1 has no run path /cpucycles-ldflags-mark"
    fi
    # clang builds clean with -Wall -Wextra
    if warned conf.out make.out > why; then
      fail buildvars_clang_no_warnings "$(head -n 3 why)"
    else
      pass buildvars_clang_no_warnings
    fi
  else
    fail buildvars_cflags_cppflags_reach_compiles "make: $(tail -n 3 make.out)"
  fi
fi

# a line with a wrapper before the compiler and a target option after it
# (the plain compilers/ path is rebuild.sh's setup)
first=$(grep -v '^#' compilers/default | head -n 1)
cc1=${first%% *}
cp compilers/default compilers/default.orig
m=
[ "$(sh scripts/hostarch "$(uname -m)")" = amd64 ] && m=' -m64'
echo "env $cc1$m -O1 -fPIC -g -fwrapv" > compilers/default
./configure --noclean > conf.out 2>&1
if grep -qx "CC = env $cc1$m" build/0/config.mk && grep -qx 'CFLAGS = -O1 -g' build/0/config.mk; then
  pass buildvars_compilers_line_wrapper_and_target
else
  fail buildvars_compilers_line_wrapper_and_target "$(grep -E '^(CC|CFLAGS) |error' build/0/config.mk conf.out)"
fi
mv compilers/default.orig compilers/default

# AR: the one named is the one used, from configure's environment and
# from make's command line (--noclean keeps the objects: only the archive
# is made again).  The same configure takes CC and CFLAGS as arguments,
# and an empty CFLAGS is a choice, not "unset".
mkdir bin
for n in 1 2; do
  printf '#!/bin/sh\necho used > %s/ar%s.used\nexec ar "$@"\n' "$d" "$n" > "bin/ar$n"
  chmod +x "bin/ar$n"
done
a=build/0/package/lib/libcpucycles.a
AR=$d/bin/ar1 ./configure --noclean CC=gcc CFLAGS= > conf.out 2>&1
if grep -qx 'CC = gcc' build/0/config.mk && grep -qx 'CFLAGS = ' build/0/config.mk; then
  pass buildvars_configure_arguments
else
  fail buildvars_configure_arguments "$(grep -E '^(CC|CFLAGS) ' build/0/config.mk)"
fi
if grep -qx "AR = $d/bin/ar1" build/0/config.mk && rm -f "$a" && make > make.out 2>&1 &&
   [ -f ar1.used ] && works && rm -f "$a" && make AR="$d/bin/ar2" > make.out 2>&1 && [ -f ar2.used ] && works; then
  pass buildvars_ar
else
  fail buildvars_ar "$(grep -E 'archiver|error' conf.out) $(ls ar*.used) $(tail -n 2 make.out)"
fi

# errors that say what is wrong, before anything is built
out=$(CC=no-such-compiler ./configure 2>&1); st=$?
[ $st = 1 ] && echo "$out" | grep -q "CC='no-such-compiler' cannot compile" &&
  pass buildvars_bad_cc_is_error || fail buildvars_bad_cc_is_error "status $st: $out"
out=$(./configure FOO=1 2>&1); st=$?
[ $st = 1 ] && echo "$out" | grep -q "unknown variable 'FOO'" &&
  pass buildvars_unknown_variable_is_error || fail buildvars_unknown_variable_is_error "status $st"
out=$(./configure 'CFLAGS=-DX=#' 2>&1); st=$?
[ $st = 1 ] && echo "$out" | grep -q "cannot be carried" &&
  pass buildvars_hash_is_error || fail buildvars_hash_is_error "status $st: $out"
# a compiler for another ISA without --host: never a library with the
# wrong counters (a Debian cross gcc, where one is installed)
native=$(sh scripts/hostarch "$(uname -m)")
other=
for c in i686-linux-gnu-gcc aarch64-linux-gnu-gcc; do
  [ "$c" = i686-linux-gnu-gcc ] && [ "$native" = x86 ] && continue
  [ "$c" = aarch64-linux-gnu-gcc ] && [ "$native" = arm64 ] && continue
  command -v "$c" > /dev/null 2>&1 && { other=$c; break; }
done
if [ -z "$other" ]; then
  skip buildvars_other_isa_refused "no compiler for another ISA here"
else
  out=$(CC=$other ./configure 2>&1); st=$?
  if [ $st = 1 ] && echo "$out" | grep -q "does not build for this machine's $native; give --host"; then
    pass buildvars_other_isa_refused
  else
    fail buildvars_other_isa_refused "CC='$other': status $st: $(echo "$out" | tail -n 2)"
  fi
fi

# a strict ISO C mode in CFLAGS: the library asks for POSIX itself and
# builds every counter the default build has, without a warning
./configure > conf.out 2>&1 && default_counters=$(sed -n 's/^COUNTERS = *//p' build/0/config.mk)
if CFLAGS='-O2 -std=c99 -Wall -Wextra' ./configure > conf.out 2>&1 && make > make.out 2>&1 &&
   [ "$(sed -n 's/^COUNTERS = *//p' build/0/config.mk)" = "$default_counters" ] && works &&
   ! warned conf.out make.out > why; then
  pass buildvars_strict_c99_builds_every_counter
else
  fail buildvars_strict_c99_builds_every_counter "$(grep -E 'error|warning' conf.out make.out | head -n 2)"
fi

# a cross compiler behind a wrapper, and clang with --target: the target's
# strip for make install-strip, not the host's
cross=aarch64-linux-gnu
[ "$native" = arm64 ] && cross=x86_64-linux-gnu
if ! command -v $cross-gcc > /dev/null 2>&1 || ! command -v $cross-strip > /dev/null 2>&1; then
  skip buildvars_wrapped_cross_strip "no $cross-gcc and $cross-strip here"
else
  ok=1
  for cc in "env $cross-gcc" "clang --target=$cross"; do
    case "$cc" in clang*) command -v clang > /dev/null 2>&1 || continue ;; esac
    CC=$cc ./configure --host=$cross > conf.out 2>&1 &&
      grep -qx "STRIP = $cross-strip" build/0/config.mk || { ok=0; echo "CC='$cc': $(grep -E '^STRIP|error' build/0/config.mk conf.out)"; }
  done > why
  [ $ok = 1 ] && pass buildvars_wrapped_cross_strip || fail buildvars_wrapped_cross_strip "$(cat why)"
fi
