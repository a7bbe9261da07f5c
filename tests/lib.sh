# Helpers for integration tests (sourced).  Each check prints one line.
pass() { echo "pass $1"; }
fail() { echo "fail $1: $2"; }
skip() { echo "skip $1: $2"; }
# check NAME WHY COMMAND...: pass if COMMAND succeeds
check() {
  name=$1; why=$2; shift 2
  if "$@"; then pass "$name"; else fail "$name" "$why"; fi
}
# field LINE KEY: the value after KEY on a client's report line
# ("NAME KEY VALUE KEY VALUE ..."); the first such line where LINE has more
field() {
  echo "$1" | awk -v k="$2" '{ for (i = 2; i < NF; ++i) if ($i == k) { print $(i + 1); exit } }'
}
# d=$(tmpdir): a fresh scratch directory.  Called in $(...), where exit
# would leave the script going on with an empty d (and writing its files
# to /, or installing into /usr): so a failure ends the script itself
# ($$ is the script's shell, even in the subshell).
tmpdir() {
  d=$(mktemp -d "${TMPDIR:-/tmp}/cpucycles-test.XXXXXX") && [ -n "$d" ] && [ -d "$d" ] || {
    fail tmpdir "cannot make a directory under ${TMPDIR:-/tmp}" >&2
    kill -TERM $$
    exit 1
  }
  echo "$d"
}
# scratch_tree DIR: a copy of the source tree (no build/) in DIR, for tests
# that configure, build, clean or install on their own.  Taken from the
# tree itself, also from a build directory whose entries link to it (a
# copy of those links would write into the tree).
scratch_tree() {
  (cd -P scripts/.. && tar cf - configure Makefile include cpucycles wrapper command compilers \
    scripts tests doc README.md LICENSE 2>/dev/null) | (cd "$1" && tar xf -)
  chmod -R u+w "$1" # a read-only source tree gives a copy the tests may change
}
# own_build_env: forget the build variables of the caller and of an outer
# make (make test CC=clang reaches an inner make through MAKEFLAGS), so
# that a scratch configure picks its compiler from compilers/ and a
# scratch make uses what that configure chose.  $CC is the configured
# test compiler: a script that calls this does not use it afterwards.
own_build_env() {
  unset CC CFLAGS CPPFLAGS LDFLAGS LIBS AR MAKEFLAGS MFLAGS MAKELEVEL
}
# into_scratch_tree: own_build_env, then a scratch copy of the tree in $d
# (removed when the script exits) becomes the working directory
into_scratch_tree() {
  own_build_env
  d=$(tmpdir)
  trap 'rm -rf "$d"' EXIT
  scratch_tree "$d"
  cd "$d" || exit 1
}
# lines_have LOG CC WORD...: every compile line in LOG (make's output)
# starts with the compiler CC and carries WORDS and the library's flags
lines_have() { # (its own variable names: a caller's cc or log stays)
  lh_log=$1 lh_cc=$2; shift 2
  lh_n=$(grep -c -- ' -c ' "$lh_log")
  [ "$lh_n" -gt 0 ] || { echo "$lh_log: no compile lines"; return 1; }
  lh_m=$(grep -- ' -c ' "$lh_log" | grep -c "^$lh_cc ")
  [ "$lh_m" = "$lh_n" ] || { echo "$lh_log: $lh_m of $lh_n compile lines run $lh_cc"; return 1; }
  for lh_w in "$@" -fPIC -fvisibility=hidden -fwrapv; do
    lh_m=$(grep -- ' -c ' "$lh_log" | grep -c -- " $lh_w\( \|$\)")
    [ "$lh_m" = "$lh_n" ] || { echo "$lh_log: $lh_w on $lh_m of $lh_n compile lines"; return 1; }
  done
}
# warned CONFOUT MAKEOUT: the compiler warned in configure (which compiles
# most objects and says which warned) or in make
warned() {
  grep 'the compiler warned' "$1"; grep 'warning:' "$2"
}
# softperf_library DIR: DIR/libsoftperf.so, a test build of the shared
# library whose perf cycles event is the software task clock
# (tests/clients/softperf.c over the OS seam of tests/fakeos.c, in place
# of the library's os.o), so that a perf counter wins on a machine
# without a PMU and really holds fds.  1 with the compiler's words in
# DIR/log if it does not build.
softperf_library() {
  sl_objs=$(sed -n 's/^LIBOBJS = //p' "$B/rules.mk" 2>/dev/null | sed "s|\$(B)|$B|g")
  [ -n "$sl_objs" ] || sl_objs="$(ls "$B"/obj/wrapper/*.o "$B"/obj/cpucycles/*.o) $B/obj/counters.o"
  sl_keep=
  for sl_o in $sl_objs; do
    case "$sl_o" in */obj/cpucycles/os.o) ;; *) sl_keep="$sl_keep $sl_o" ;; esac
  done
  { $CC $INC -Itests -fPIC -c tests/clients/softperf.c -o "$1/softperf.o" &&
    $CC $INC -Itests -fPIC -c tests/fakeos.c -o "$1/fakeos.o" &&
    $CC -shared -Wl,--version-script=wrapper/exports.map $sl_keep "$1/softperf.o" "$1/fakeos.o" \
      -o "$1/libsoftperf.so" -lpthread; } > "$1/log" 2>&1
}
# softperf_client NAME CLIENT DIR: for a script that loads that library
# into a client of tests/clients (CLIENT.c): NAME is skipped where that
# proves nothing or cannot be (qemu-user, no default-perfevent, not
# Linux, no shared library, no dlopen), failed where the library does not
# build (status 1 either way); else DIR/CLIENT and DIR/libsoftperf.so
# are built (status 0).
softperf_client() {
  if [ -n "$RUN" ]; then skip "$1" "runs only natively (dlopen under $RUN, qemu-user, proves nothing more)"; return 1; fi
  case "$COUNTERS" in
    *default-perfevent*) ;;
    *) skip "$1" "no default-perfevent in this build"; return 1 ;;
  esac
  if [ "$(uname -s)" != Linux ]; then skip "$1" "perf_event is Linux only"; return 1; fi
  [ -f "$PACKAGE/lib/libcpucycles.so.1" ] || { skip "$1" "no shared library was built"; return 1; }
  if ! $CC -Itests "tests/clients/$2.c" -o "$3/$2" -lpthread > "$3/log" 2>&1 &&
     ! $CC -Itests "tests/clients/$2.c" -o "$3/$2" -lpthread -ldl > "$3/log" 2>&1; then
    skip "$1" "dlopen is unavailable: $(head -n 3 "$3/log" | tr '\n' ' ')"
    return 1
  fi
  softperf_library "$3" && return 0
  fail "$1" "the software-perf test library does not build: $(head -n 3 "$3/log" | tr '\n' ' ')"
  return 1
}
# staged_libdir STAGE LIBDIR: the package made for prefix /usr and
# --libdir=LIBDIR (a copy of the package tree, whose .pc and CMake files
# are written again for it: the real one stays as it is for the tests
# beside), installed with DESTDIR=STAGE.  Prints what went wrong, if
# anything, and fails.
staged_libdir() {
  sl_pkg=$1.package
  rm -rf "$sl_pkg" && cp -R "$PACKAGE" "$sl_pkg" &&
    sh scripts/package-docs "$sl_pkg" /usr "$LIBPTHREAD" "$2" /usr/include > "$1.log" 2>&1 &&
    DESTDIR=$1 sh scripts/install "$sl_pkg" /usr libdir="$2" >> "$1.log" 2>&1 || {
    tail -n 3 "$1.log"
    return 1
  }
}
# multiarch_dir: the compiler's Debian multiarch name (x86_64-linux-gnu),
# or nothing where it has none
multiarch_dir() {
  ${CC%% *} -print-multiarch 2> /dev/null | grep -v '^$' || true
}
# each_staged_libdir NAME FN: for Debian's multiarch directory and lib64,
# the package staged with that --libdir under prefix /usr in $d (see
# staged_libdir), then FN ID LIBDIR STAGE; a staging that fails fails
# NAME_ID, and a compiler without a multiarch name skips NAME_multiarch.
each_staged_libdir() {
  el_ma=$(multiarch_dir)
  [ -n "$el_ma" ] || skip "$1_multiarch" "the compiler names no multiarch directory (-print-multiarch)"
  for el_libdir in ${el_ma:+lib/$el_ma} lib64; do
    el_id=$(echo "$el_libdir" | tr -c 'a-z0-9\n' _)
    if el_why=$(staged_libdir "$d/stage-$el_id" "/usr/$el_libdir"); then
      "$2" "$el_id" "$el_libdir" "$d/stage-$el_id"
    else
      fail "$1_$el_id" "$el_why"
    fi
  done
}
# both_libraries NAME: true where configure builds both libraries; else
# says why NAME skips (its checks are of the default install; a build
# with --disable-static or --disable-shared is vendoring.sh's)
both_libraries() {
  [ "${STATIC_LIB:-yes}" != no ] && [ "${SHARED_LIB:-yes}" != no ] && return 0
  skip "$1" "configured with --disable-static or --disable-shared; it checks the default install"
  return 1
}
