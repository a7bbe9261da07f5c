# Changed build variables make again what they affect (issue 20): make
# CFLAGS=... or make CC=clang in a tree already built recompiles every
# object with them, a plain make afterwards goes back to configure's
# values, a second make with the same values rebuilds nothing, LDFLAGS
# relinks without recompiling.  And the static library's own flags
# (STATIC_CFLAGS, for packagers), from configure and from make's command
# line: the archive gets them, the shared library does not, a client
# links against the archive and runs.  In a scratch copy of the tree.
#
# Which flags an object was made with is read from the object itself:
# -g leaves sections named .debug_info, and the compiler names itself in
# .comment ("GCC: ..." or "clang version ..."); grep finds both strings in
# the binary files, so no readelf is needed.
# test: first (the longest: several builds)
. tests/lib.sh
if [ -n "$SANITIZE" ]; then skip rebuild "not under make test-sanitize"; exit 0; fi
if [ -n "$RUN" ]; then skip rebuild "native only"; exit 0; fi
into_scratch_tree

P=build/0/package
works() { # the programs run and a client links against the archive
  $P/bin/cpucycles-info > info.out 2>&1 && grep -q '^cpucycles implementation ' info.out &&
    $CC0 -I$P/include tests/clients/client.c $P/lib/libcpucycles.a -o client -lpthread > client.log 2>&1 &&
    ./client > client.out 2>&1
}
compiles() { # LOG: how many objects LOG compiled
  grep -c -- ' -c ' "$1"
}
objects() { # every object of the library and the commands, shared and static
  find build/0/obj -name '*.o' | sort
}
# has STRING FILE...: every FILE holds STRING; hasnot: none does
has() {
  s=$1; shift
  for f in "$@"; do grep -q -- "$s" "$f" || { echo "$f has no '$s'"; return 1; }; done
}
hasnot() {
  s=$1; shift
  for f in "$@"; do grep -q -- "$s" "$f" && { echo "$f has '$s'"; return 1; }; done
  return 0
}

if ! ./configure > conf.out 2>&1 || ! make -j2 > make.out 2>&1; then
  fail rebuild_setup "configure and make: $(tail -n 3 conf.out make.out)"
  exit 0
fi
# the compilers/ path: a line split into CC and CFLAGS; gcc (or what the
# list holds first) builds clean with -Wall -Wextra
first=$(grep -v '^#' compilers/default | head -n 1)
cc1=${first%% *}
if grep -qx "CC = $cc1" build/0/config.mk && grep -q '^CFLAGS = .*-O2' build/0/config.mk &&
   grep -q "compilers/default: $first" conf.out; then
  pass buildvars_compilers_list_split
else
  fail buildvars_compilers_list_split "$(grep -E '^(CC|CFLAGS) ' build/0/config.mk)"
fi
if warned conf.out make.out > why; then
  fail buildvars_gcc_no_warnings "$(head -n 3 why)"
else
  pass buildvars_gcc_no_warnings
fi
CC0=$(sed -n 's/^CC = //p' build/0/config.mk)
lib="$P/lib/libcpucycles.a $P/lib/libcpucycles.so.1"

# the same variables: nothing is made again
make > make.out 2>&1
if [ "$(compiles make.out)" = 0 ] && ! grep -q 'changed since the last build' make.out; then
  pass rebuild_nothing_when_unchanged
else
  fail rebuild_nothing_when_unchanged "$(compiles make.out) compiles: $(head -n 2 make.out)"
fi

n=$(find build/0/obj -name '*.o' ! -path '*/static/*' | wc -l)

# make CC=clang CFLAGS=... (CFLAGS alone without clang) recompiles every
# object with them, says why, and the libraries and programs carry them
cc=
if ! command -v clang > /dev/null 2>&1; then
  skip rebuild_make_cc "clang is not installed: CFLAGS alone is changed"
elif [ "$CC0" = clang ]; then
  skip rebuild_make_cc "configure chose clang itself: CFLAGS alone is changed"
else
  cc=clang
fi
# (make's command line wins for one run and never drops the library's
# flags: make CC=clang once failed at link time, TPOFF32 without -fPIC)
if make -j2 ${cc:+CC=$cc} CFLAGS='-O1 -g' > make.out 2>&1 && works &&
   lines_have make.out "${cc:-$CC0}" -O1 -g > why 2>&1 &&
   grep -q 'libcpucycles: the compile command changed since the last build' make.out &&
   [ "$(compiles make.out)" -ge "$n" ] &&
   has .debug_info $(objects) $lib $P/bin/cpucycles-info > why 2>&1 &&
   { [ -z "$cc" ] || has 'clang version' $(objects) $lib > why 2>&1; }; then
  pass rebuild_make_${cc:+cc_}cflags
else
  fail rebuild_make_${cc:+cc_}cflags "$(cat why 2>/dev/null) $(compiles make.out) compiles of $n objects: $(tail -n 2 make.out)"
fi
# the same variables again: nothing
make ${cc:+CC=$cc} CFLAGS='-O1 -g' > make.out 2>&1
[ "$(compiles make.out)" = 0 ] && pass rebuild_same_variables_twice_nothing ||
  fail rebuild_same_variables_twice_nothing "$(compiles make.out) compiles"
# a plain make goes back to what configure chose (the variables of each
# run decide, doc/install.md)
if make -j2 > make.out 2>&1 && works && hasnot .debug_info $(objects) $lib > why 2>&1 &&
   hasnot 'clang version' $(objects) > why 2>&1; then
  pass rebuild_plain_make_returns_to_configured
else
  fail rebuild_plain_make_returns_to_configured "$(cat why) $(tail -n 2 make.out)"
fi

# LDFLAGS relinks, recompiles nothing: a run path only it can put there
if make LDFLAGS=-Wl,-rpath,/cpucycles-rebuild-mark > make.out 2>&1 && works &&
   [ "$(compiles make.out)" = 0 ] && has cpucycles-rebuild-mark $P/lib/libcpucycles.so.1 > why 2>&1; then
  pass rebuild_make_ldflags_relinks
else
  fail rebuild_make_ldflags_relinks "$(cat why 2>/dev/null) $(compiles make.out) compiles: $(tail -n 2 make.out)"
fi

# The static library with its own flags, as a packager builds it (here
# after configure --noclean, which must make again what the new value
# affects and only that): the archive's objects get STATIC_CFLAGS (-g
# leaves its mark), the shared library's do not; both install; a client
# links against the installed archive and runs.
stage=$d/stage
# (these makes run without -j: the static compiles are shown by the
# shell's trace, which parallel jobs would cut into pieces)
static_only() { # LOG: something was compiled, and only the archive's objects
  [ "$(compiles "$1")" -gt 0 ] && ! grep -- ' -c ' "$1" | grep -v ' -o build/[a-z0-9]*/obj/static/'
}
if ! ./configure --noclean --prefix=/usr STATIC_CFLAGS='-O2 -g' > conf.out 2>&1 ||
   ! grep -q '^configure: STATIC_CFLAGS=-O2 -g ' conf.out; then
  fail rebuild_static_cflags_configure "$(tail -n 3 conf.out)"
elif make > make.out 2>&1 && make install DESTDIR="$stage" > inst.out 2>&1 && works &&
     static_only make.out > why 2>&1 &&
     has .debug_info $(find build/0/obj/static -name '*.o') "$stage/usr/lib/libcpucycles.a" > why 2>&1 &&
     hasnot .debug_info $(find build/0/obj -name '*.o' ! -path '*/static/*') "$stage/usr/lib/libcpucycles.so.1" >> why 2>&1 &&
     $CC0 -I"$stage/usr/include" tests/clients/client.c "$stage/usr/lib/libcpucycles.a" -o client -lpthread > client.log 2>&1 &&
     ./client > client.out 2>&1; then
  pass rebuild_static_cflags_configure
else
  fail rebuild_static_cflags_configure "$(cat why client.log 2>/dev/null) $(tail -n 2 make.out inst.out)"
fi
make > make.out 2>&1
[ "$(compiles make.out)" = 0 ] && pass rebuild_static_cflags_stable ||
  fail rebuild_static_cflags_stable "a second make compiled $(compiles make.out) objects"

# and for one make run: only the archive's objects are compiled, the
# shared library is not linked again
if make STATIC_CFLAGS='-O1' > make.out 2>&1 && works &&
   hasnot .debug_info $P/lib/libcpucycles.a > why 2>&1 &&
   ! grep -q -- '-o [^ ]*libcpucycles.so.1' make.out && static_only make.out > why 2>&1; then
  pass rebuild_static_cflags_make
else
  fail rebuild_static_cflags_make "$(cat why 2>/dev/null) $(tail -n 2 make.out)"
fi
