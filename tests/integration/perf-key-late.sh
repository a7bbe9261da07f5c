# Issue 37, row 7: a program that loads the library after taking 40
# pthread keys, so that the library's key index is 32 or more, where
# glibc's pthread_setspecific allocates.  Each thread's first read is
# made in a signal handler: the library must not call the allocator
# there (it arms its exit destructor only where that cannot allocate).
# As perf-hostile-keys.sh, on the test build whose cycles event is the
# software task clock, told to choose default-perfevent.
. tests/lib.sh
name=perf_key_late_no_alloc_in_handler
# the client's own allocator functions take the C library's calls, which
# a sanitizer's runtime must take itself
if [ -n "$SANITIZE" ]; then skip $name "under the sanitizers (the client replaces malloc)"; exit 0; fi
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
softperf_client $name keylate "$d" || exit 0
CPUCYCLES_IMPLEMENTATION=default-perfevent "$d/keylate" "$d/libsoftperf.so" 50 > "$d/out" 2> "$d/err"
st=$?
line=$(head -n 1 "$d/out")
if [ $st = 2 ]; then
  skip $name "not glibc: $line"
elif [ $st != 0 ] || ! echo "$line" | grep -q '^keylate keys '; then
  fail $name "client status $st: $line $(tr '\n' ' ' < "$d/err")"
elif [ "$(field "$line" implementation)" != default-perfevent ]; then
  skip $name "default-perfevent did not win even on the software task-clock event: $line"
elif [ "$(field "$line" keys)" -lt 32 ]; then
  skip $name "the program could take only $(field "$line" keys) keys: $line"
elif [ "$(field "$line" allocs_in_handler)" != 0 ] || [ "$(field "$line" backwards)" != 0 ]; then
  fail $name "$line"
else
  pass "$name ($line)"
fi
