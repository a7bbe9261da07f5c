# Clients built against an installed tree (DESTDIR-style): shared, static,
# one from the documented declarations without the header, one in C++.
. tests/lib.sh
both_libraries client || exit 0
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
# install's records of the directories it made stay in the scratch directory
export CPUCYCLES_INSTALL_RECORDS=$d
sh scripts/install "$PACKAGE" "$d/usr" > /dev/null || { fail client_install "scripts/install failed"; exit 1; }
inc=$d/usr/include
lib=$d/usr/lib

if $CC -I"$inc" tests/clients/client.c -L"$lib" -lcpucycles -o "$d/shared" > "$d/log" 2>&1; then
  LD_LIBRARY_PATH=$lib $RUN "$d/shared" shared | grep -v '^info'
  LD_LIBRARY_PATH=$lib $RUN "$d/shared" > /dev/null || fail client_shared_runs "exit $?"
else
  fail client_shared_builds "$(head -n 3 "$d/log")"
fi
if $CC -I"$inc" tests/clients/client.c "$lib/libcpucycles.a" -o "$d/static" > "$d/log" 2>&1; then
  $RUN "$d/static" static | grep -v '^info'
else
  fail client_static_builds "$(head -n 3 "$d/log")"
fi
if $CC tests/clients/noheader.c -L"$lib" -lcpucycles -o "$d/noheader" > "$d/log" 2>&1; then
  LD_LIBRARY_PATH=$lib $RUN "$d/noheader"
else
  fail noheader_client_builds "$(head -n 3 "$d/log")"
fi

# the C++ compiler that goes with $CC
first=${CC%% *}
rest=${CC#"$first"}
case "$first" in
  *gcc) CXX="${first%gcc}g++$rest" ;;
  *clang) CXX="${first}++$rest" ;;
  *) CXX="c++$rest" ;;
esac
if ! command -v "${CXX%% *}" > /dev/null 2>&1; then
  skip cplusplus_client "no C++ compiler ${CXX%% *}"
elif $CXX -I"$inc" tests/clients/client.cc -L"$lib" -lcpucycles -o "$d/cxx" > "$d/log" 2>&1; then
  LD_LIBRARY_PATH=$lib $RUN "$d/cxx"
else
  fail cplusplus_client "does not build: $(head -n 3 "$d/log")"
fi
