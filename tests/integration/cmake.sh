# The CMake package: after an install into a temporary prefix, a small
# consumer project finds it with find_package(cpucycles) and
# CMAKE_PREFIX_PATH, links cpucycles::cpucycles (shared) and
# cpucycles::cpucycles_static, and both programs count; a version newer
# than ours is refused.
. tests/lib.sh
both_libraries cmake || exit 0
if ! command -v cmake > /dev/null 2>&1; then skip cmake_package "cmake is not installed"; exit 0; fi
if [ -n "$RUN" ]; then skip cmake_package "native only (the consumer is built with cmake's own compiler)"; exit 0; fi
if [ -n "$SANITIZE" ]; then skip cmake_package "not under make test-sanitize (a consumer without the sanitizer cannot link it)"; exit 0; fi
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
# install's records of the directories it made stay in the scratch directory
export CPUCYCLES_INSTALL_RECORDS=$d
p=$d/prefix
# the package tree's CMake file was written for configure's --libdir and
# --includedir (Debian's lib/x86_64-linux-gnu...): under $p they keep
# their places relative to the prefix
under_p() { case "$1" in "$PREFIX"/*) echo "$p${1#"$PREFIX"}" ;; *) echo "$p/$2" ;; esac; }
plib=$(under_p "$LIBDIR" lib)
# (Fedora's lib64, which CMake searches only where the platform uses it)
case "$plib" in */lib64) lib64=ON ;; *) lib64=OFF ;; esac
sh scripts/install "$PACKAGE" "$p" libdir="$plib" includedir="$(under_p "$INCLUDEDIR" include)" \
  > "$d/install.out" 2>&1 || { fail cmake_package "install: $(tail -n 2 "$d/install.out")"; exit 0; }
v=$(sh scripts/version)

mkdir "$d/src"
cat > "$d/src/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.5)
project(consumer C)
# CMake searches lib64 where the platform uses it (Fedora), not on
# Debian: LIB64 plays Fedora
if(LIB64)
  set_property(GLOBAL PROPERTY FIND_LIBRARY_USE_LIB64_PATHS TRUE)
endif()
find_package(cpucycles ${WANT} REQUIRED)
add_executable(consumer main.c)
target_link_libraries(consumer cpucycles::cpucycles)
add_executable(consumer_static main.c)
target_link_libraries(consumer_static cpucycles::cpucycles_static)
message(STATUS "cpucycles version ${cpucycles_VERSION}")
EOF
cat > "$d/src/main.c" <<'EOF'
#include <stdio.h>
#include <cpucycles.h>
int main(void)
{
  long long a = cpucycles(), b = cpucycles();
  printf("%s %s %lld\n", cpucycles_version(), cpucycles_implementation(), b - a);
  return b < a;
}
EOF
# the consumer is compiled by the compiler that built the library, without
# our flags: a user's project has its own
cc=${CC%% *}
if cmake -S "$d/src" -B "$d/build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$p" -DLIB64=$lib64 -DWANT="$v" \
     > "$d/cmake.out" 2>&1 &&
   cmake --build "$d/build" > "$d/build.out" 2>&1; then
  pass cmake_find_package
else
  fail cmake_find_package "$(grep -i -m 3 'error\|could not' "$d/cmake.out" "$d/build.out")"
  exit 0
fi
grep -q "cpucycles version $v" "$d/cmake.out" && pass cmake_package_version ||
  fail cmake_package_version "$(grep 'cpucycles version' "$d/cmake.out")"

ok=1
for prog in consumer consumer_static; do
  out=$("$d/build/$prog" 2>&1) || { ok=0; echo "$prog: $out"; continue; }
  case "$out" in "$v "*) ;; *) ok=0; echo "$prog: $out" ;; esac
done
# the shared one really uses the installed libcpucycles.so.1, the static
# one no shared library at all
if command -v ldd > /dev/null 2>&1; then
  ldd "$d/build/consumer" | grep -q "libcpucycles.so.1 => $plib/libcpucycles.so.1" ||
    { ok=0; echo "consumer: $(ldd "$d/build/consumer" | grep cpucycles)"; }
  ! ldd "$d/build/consumer_static" | grep -q libcpucycles ||
    { ok=0; echo "consumer_static links libcpucycles.so"; }
fi
[ $ok = 1 ] && pass cmake_targets_link_and_count || fail cmake_targets_link_and_count "see above"

# a version after ours is not found
if cmake -S "$d/src" -B "$d/build2" -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$p" -DLIB64=$lib64 -DWANT=$((v + 1)) \
     > "$d/cmake2.out" 2>&1; then
  fail cmake_newer_version_refused "find_package($((v + 1))) succeeded"
else
  grep -q "$v" "$d/cmake2.out" && pass cmake_newer_version_refused ||
    fail cmake_newer_version_refused "$(head -n 3 "$d/cmake2.out")"
fi

# another --libdir (Debian's multiarch directory, lib64), staged with
# DESTDIR under prefix /usr: the package file in LIBDIR/cmake/cpucycles
# finds the prefix as many levels up, and the consumer links and runs
# against the staged library
cmake_libdir() { # ID LIBDIR STAGE
  id=$1 libdir=$2 st=$3
  if ! cmake -S "$d/src" -B "$d/build-$id" -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$st/usr" -DWANT="$v" \
       -DLIB64="$([ $libdir = lib64 ] && echo ON || echo OFF)" \
       > "$d/cmake-$id.out" 2>&1 || ! cmake --build "$d/build-$id" > "$d/build-$id.out" 2>&1; then
    fail "cmake_libdir_$id" "$(grep -i -m 3 'error\|could not\|missing' "$d/cmake-$id.out" "$d/build-$id.out")"
    return
  fi
  ok=1
  for prog in consumer consumer_static; do
    out=$(LD_LIBRARY_PATH=$st/usr/$libdir "$d/build-$id/$prog" 2>&1) || { ok=0; echo "$prog: $out"; continue; }
    case "$out" in "$v "*) ;; *) ok=0; echo "$prog: $out" ;; esac
  done
  if command -v ldd > /dev/null 2>&1; then
    ldd "$d/build-$id/consumer" | grep -q "libcpucycles.so.1 => $st/usr/$libdir/libcpucycles.so.1" ||
      { ok=0; echo "consumer: $(ldd "$d/build-$id/consumer" | grep cpucycles)"; }
  fi
  [ $ok = 1 ] && pass "cmake_libdir_$id" || fail "cmake_libdir_$id" "see above"
}
each_staged_libdir cmake_libdir cmake_libdir
