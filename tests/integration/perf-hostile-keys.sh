# Issue 32, row 9: a program that used up the pthread keys before loading
# the library.  The library then has no key destructor to give back a
# thread's events at its exit: 600 threads that each read once must still
# leave the perf fds bounded (within the library's quarter of the fd
# limit, not one a thread), every thread must count, and dlclose must
# return (it once spun for ever holding the loader lock) and give back
# every fd.  As in unload.sh, the shared library is a test build whose
# cycles event is the software task clock (tests/clients/softperf.c), told
# to choose default-perfevent.
. tests/lib.sh
name=perf_hostile_keys_used_up
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
softperf_client $name keysgone "$d" || exit 0

CPUCYCLES_IMPLEMENTATION=default-perfevent "$d/keysgone" "$d/libsoftperf.so" 600 > "$d/out" 2> "$d/err"
st=$?
line=$(head -n 1 "$d/out")
if [ $st != 0 ] || ! echo "$line" | grep -q '^keysgone keys '; then
  fail $name "client status $st: $line $(tr '\n' ' ' < "$d/err")"
  exit 1
fi
keys=$(field "$line" keys)
impl=$(field "$line" implementation)
threads=$(field "$line" threads)
limit=$(field "$line" limit)
joined=$(field "$line" perf_fds_joined)
closed=$(field "$line" perf_fds_closed)
back=$(field "$line" backwards)
still=$(field "$line" still)
if [ "$impl" != default-perfevent ]; then
  skip $name "default-perfevent did not win even on the software task-clock event: $line"
elif [ "$keys" -lt 1 ]; then
  skip $name "the program could not take a single key: $line"
elif [ "$joined" -lt 0 ]; then
  skip $name "no /proc/self/fd to count perf fds: $line"
elif [ "$joined" -gt $((limit / 4)) ] || [ "$joined" -ge "$threads" ]; then
  fail $name "$joined perf fds left by $threads ended threads (want at most a quarter of the fd limit $limit): $line"
elif [ "$closed" != 0 ]; then
  fail $name "$closed perf fds still open after dlclose: $line"
elif [ "$back" != 0 ] || [ "$still" != 0 ]; then
  fail $name "$back threads' counts went back, $still did not move: $line"
else
  pass "$name ($line)"
fi
