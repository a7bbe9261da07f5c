# ThreadSanitizer build of the library and the many-threads first-call
# test (clang -fsanitize=thread): it must report nothing.
# test: first (ThreadSanitizer builds, then mostly waits)
. tests/lib.sh
if [ -n "$SANITIZE" ]; then skip tsan_first_call "not under make test-sanitize"; exit 0; fi
if [ -n "$RUN" ]; then skip tsan_first_call "native only"; exit 0; fi
command -v clang > /dev/null 2>&1 || { skip tsan_first_call "no clang"; exit 0; }
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
echo 'int main(void){return 0;}' > "$d/t.c"
if ! clang -fsanitize=thread "$d/t.c" -o "$d/t" > /dev/null 2>&1; then
  skip tsan_first_call "clang has no ThreadSanitizer runtime here"; exit 0
fi
srcs="$LIBSRCS $B/counters.c"
for name in $COUNTERS; do srcs="$srcs cpucycles/$name.c"; done
objs=
for src in $srcs; do
  o=$d/$(echo "$src" | tr / _).o
  def=
  case "$src" in cpucycles/*-*) def="-DCOUNTER=$(basename "$src" .c | tr - _)" ;; esac
  clang -g -O1 -fsanitize=thread -fPIC $INC $def -c $src -o "$o" 2>> "$d/log" || { fail tsan_builds "$(tail -n 3 "$d/log")"; exit 1; }
  objs="$objs $o"
done
clang -g -O1 -fsanitize=thread $INC -Itests tests/unit/firstcall-threads.c $objs -o "$d/threads" -lpthread 2>> "$d/log" ||
  { fail tsan_builds "$(tail -n 3 "$d/log")"; exit 1; }
# Row 8 of issue 37: threads that come and go under a per-thread
# profiler while the program closes fds, over the fake OS (its perf
# events are the task clock): the table of every thread's events is
# shared state, and no suppression covers it
fobjs=
for o in $objs; do case "$o" in *cpucycles_os.c.o) ;; *) fobjs="$fobjs $o" ;; esac; done
if clang -g -O1 -fsanitize=thread $INC -Itests tests/clients/churn.c tests/fakeos.c $fobjs -o "$d/churn" -lpthread 2>> "$d/log"; then
  TSAN_OPTIONS="halt_on_error=0" "$d/churn" > "$d/out" 2>&1
  st=$?
  if grep -q 'WARNING: ThreadSanitizer' "$d/out"; then
    fail tsan_perf_threads "$(grep -A6 'WARNING: ThreadSanitizer' "$d/out" | head -n 14 | tr '\n' ' ')"
  elif [ $st = 2 ]; then
    skip tsan_perf_threads "$(head -n 1 "$d/out")"
  elif [ $st != 0 ]; then
    fail tsan_perf_threads "status $st: $(tail -n 3 "$d/out" | tr '\n' ' ')"
  else
    pass "tsan_perf_threads ($(head -n 1 "$d/out"))"
  fi
else
  fail tsan_builds "churn: $(tail -n 3 "$d/log")"
fi
# ThreadSanitizer reports a race from any run that reaches both accesses
# (it follows happens-before, not luck), so 20 fresh processes of 16
# racing threads each are enough; each costs 0.2 s of CPU here
# (TSAN_CHILDREN=200 for a longer run).
# The rule's own choice, then a scaled counter (whose read function reads
# what the selection set up: a thread that finds the pointer set must
# still see it whole)
for forced in "" default-monotonic; do
  name=tsan_first_call${forced:+_scaled}
  env ${forced:+CPUCYCLES_IMPLEMENTATION=$forced} CPUCYCLES_TEST_CHILDREN=${TSAN_CHILDREN:-20} CPUCYCLES_TEST_INSTRUMENTED=1 TSAN_OPTIONS="halt_on_error=0 suppressions='$(pwd)/tests/tsan.supp'" \
    "$d/threads" > "$d/out" 2>&1
  st=$?
  if grep -q 'WARNING: ThreadSanitizer' "$d/out"; then
    fail $name "$(grep -A3 'WARNING: ThreadSanitizer' "$d/out" | head -n 12 | tr '\n' ' ')"
  elif [ $st != 0 ]; then
    fail $name "status $st: $(tail -n 3 "$d/out")"
  else
    pass $name
  fi
done
