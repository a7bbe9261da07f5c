# Unloading gives back what selection took: a program that dlopens the
# shared library, makes the first call and dlcloses it, again and again,
# must not grow its heap or its fd table (the old library leaked 16 KiB a
# cycle, and one perf fd a cycle when a perf counter won).
# This machine may have no PMU, so for the perf case a test build of the
# shared library swaps the cycles event for the software task-clock event
# (tests/clients/softperf.c over the OS seam of tests/fakeos.c) and is told
# to choose default-perfevent: then a perf counter wins, really holds an
# fd, and must close it when unloaded.
. tests/lib.sh
if [ -n "$RUN" ]; then skip unload "runs only natively (dlopen cycles under $RUN, qemu-user, prove nothing more)"; exit 0; fi
so=$PACKAGE/lib/libcpucycles.so.1
if [ ! -f "$so" ]; then skip unload "no shared library $so was built"; exit 0; fi

d=$(tmpdir)
trap 'rm -rf "$d"' EXIT

# the client, with dlopen from libc or from -ldl
if ! $CC tests/clients/unload.c -o "$d/unload" > "$d/log" 2>&1 &&
   ! $CC tests/clients/unload.c -o "$d/unload" -ldl > "$d/log" 2>&1; then
  skip unload "dlopen is unavailable: $(head -n 3 "$d/log" | tr '\n' ' ')"
  exit 0
fi

# report: the client's line
report() { grep '^unload ' "$d/out"; }
# one run: the client output goes to $d/out; 0 if it ran and said its line
run() {
  "$d/unload" "$@" > "$d/out" 2> "$d/err" && grep -q '^unload cycles ' "$d/out"
}
said() { tr '\n' ' ' < "$d/out"; tr '\n' ' ' < "$d/err"; }

# a. the real library: heap and fds back where they were after every cycle
if run "$so"; then
  cycles=$(field "$(report)" cycles)
  heap=$(field "$(report)" heap_growth)
  fds=$(field "$(report)" fds_growth)
  line=$(head -n 1 "$d/out")
  if [ "$fds" != 0 ]; then
    fail unload_no_heap_growth "fds grew by $fds over $cycles cycles: $line"
  elif [ "$heap" = unknown ]; then
    pass "unload_no_heap_growth (fds only: no mallinfo2 in this C library to measure the heap; $line)"
  elif [ "$heap" -lt $((64 * cycles)) ]; then
    pass "unload_no_heap_growth ($line)"
  else
    fail unload_no_heap_growth "heap grew by $heap bytes over $cycles cycles (bound: 64 a cycle): $line"
  fi
else
  fail unload_no_heap_growth "client failed: $(said)"
fi

# b. a perf counter wins, holds its fd while loaded, and gives it back
case "$COUNTERS" in
  *default-perfevent*) ;;
  *) skip unload_releases_perf_fds "no default-perfevent in this build"; exit 0 ;;
esac
if [ "$(uname -s)" != Linux ]; then skip unload_releases_perf_fds "perf_event is Linux only"; exit 0; fi
if ! softperf_library "$d"; then
  fail unload_releases_perf_fds "the software-perf test library does not build: $(head -n 3 "$d/log" | tr '\n' ' ')"
  exit 1
fi
if ! CPUCYCLES_IMPLEMENTATION=default-perfevent run "$d/libsoftperf.so"; then
  fail unload_releases_perf_fds "client failed: $(said)"
  exit 1
fi
impl=$(field "$(report)" implementation)
cycles=$(field "$(report)" cycles)
fds=$(field "$(report)" fds_growth)
perf=$(field "$(report)" perf_fds_growth)
loaded=$(field "$(report)" perf_fds_loaded)
differ=$(field "$(report)" differ)
line=$(head -n 1 "$d/out")
if [ "$impl" != default-perfevent ] || [ "$differ" != 0 ]; then
  paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo unknown)
  skip unload_releases_perf_fds "default-perfevent did not win even on the software task-clock event (the kernel refuses perf events here: perf_event_paranoid $paranoid, or seccomp): $line"
elif [ "$loaded" -lt 1 ]; then
  fail unload_releases_perf_fds "default-perfevent won but no perf fd was open while loaded: $line"
elif [ "$perf" != 0 ] || [ "$fds" != 0 ]; then
  fail unload_releases_perf_fds "over $cycles cycles perf fds grew by $perf, fds by $fds: $line"
else
  pass "unload_releases_perf_fds ($line)"
fi
