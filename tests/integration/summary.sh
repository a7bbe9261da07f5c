# scripts/test's own report, on a sandbox with three made-up tests (one
# passes, one fails, one dies silently): each failure is repeated, with
# its test, just before the last line "N passed, N failed"; results and
# outputs stay in build/0/tests; PATTERN picks tests; the exit status says.
. tests/lib.sh
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
sandbox() { # DIR: the runner and an empty configured build, without tests
  mkdir -p "$1/scripts" "$1/tests/integration" "$1/tests/unit" "$1/build/x"
  cp scripts/test scripts/ticking.sh "$1/scripts/"
  cp tests/lib.sh "$1/tests/"
  ln -s x "$1/build/0"
  printf '%s\n' 'ARCH=x B=build/x PACKAGE=build/x/package PREFIX=/usr/local CC=false AR=ar LIBPTHREAD= INC=' \
    'RUN= COUNTERS= COMMANDS= LIBSRCS=' > "$1/build/x/config.sh"
}
sandbox "$d"
printf '. tests/lib.sh\npass alpha_ok\n' > "$d/tests/integration/alpha.sh"
printf '. tests/lib.sh\nfail beta_check "the beta reason"\npass beta_other\n' > "$d/tests/integration/beta.sh"
printf 'echo some noise\nexit 7\n' > "$d/tests/integration/gamma.sh"

(cd "$d" && unset CPUCYCLES_IMPLEMENTATION cpucyclespersecond DESTDIR PKG_CONFIG_SYSROOT_DIR \
   PKG_CONFIG_LIBDIR PKG_CONFIG_PATH TEST_CC TEST_PACKAGE && sh scripts/test) > "$d/out" 2>&1
st=$?
last=$(tail -n 1 "$d/out")
before=$(tail -n 3 "$d/out" | head -n 2)
if [ $st = 1 ] && [ "$last" = "2 passed, 2 failed" ] &&
   echo "$before" | grep -q '^  beta: fail beta_check: the beta reason$' &&
   echo "$before" | grep -q '^  gamma: fail gamma: exited with status 7$' &&
   tail -n 4 "$d/out" | head -n 1 | grep -q '^failures, by test (whole outputs in build/x/tests/TEST.out):$'; then
  pass test_summary_repeats_failures
else
  fail test_summary_repeats_failures "status $st: $(tail -n 5 "$d/out" | tr '\n' '|')"
fi
if grep -qx 'fail beta_check: the beta reason' "$d/build/x/tests/results" &&
   grep -qx 'pass alpha_ok' "$d/build/x/tests/results" && grep -qx 'some noise' "$d/build/x/tests/gamma.out"; then
  pass test_results_kept
else
  fail test_results_kept "$(ls "$d/build/x/tests")"
fi
(cd "$d" && sh scripts/test alpha) > "$d/out" 2>&1
st=$?
if [ $st = 0 ] && [ "$(tail -n 1 "$d/out")" = "1 passed, 0 failed" ] && ! grep -q beta "$d/out" &&
   ! grep -q '^failures' "$d/out"; then
  pass test_pattern_picks_tests
else
  fail test_pattern_picks_tests "status $st: $(tail -n 3 "$d/out" | tr '\n' '|')"
fi

# Side by side (TEST_JOBS): an alone test runs first with nothing beside
# it; two others run at once (each waits to see the other); the ticker
# says what is still running; each test's start and end are said.
e=$d/jobs
sandbox "$e"
m=$e/marks
mkdir "$m"
printf '# test: alone (it checks)\n. tests/lib.sh\ntouch %s/alone; sleep 1\n[ -z "$(ls %s | grep -v alone)" ] && pass quiet_alone || fail quiet_alone "$(ls %s)"\nrm %s/alone\n' \
  "$m" "$m" "$m" "$m" > "$e/tests/integration/quiet.sh"
for n in 1 2; do
  o=$((3 - n))
  printf '. tests/lib.sh\n[ -e %s/alone ] && fail side%s_not_beside_alone "it ran beside the alone test"\ntouch %s/side%s\ni=0; while [ ! -e %s/side%s ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done\nsleep 1.5\n[ -e %s/side%s ] && pass side%s_beside_side%s || fail side%s_beside_side%s "side%s never ran at the same time"\n' \
    "$m" "$n" "$m" "$n" "$m" "$o" "$m" "$o" "$n" "$o" "$n" "$o" "$o" > "$e/tests/integration/side$n.sh"
done
(cd "$e" && TEST_JOBS=2 TEST_TICK=1 sh scripts/test) > "$e/out" 2>&1
st=$?
first=$(grep -m 1 '^-- .* started' "$e/out")
if [ $st = 0 ] && [ "$(tail -n 1 "$e/out")" = "3 passed, 0 failed" ] &&
   [ "$first" = "-- quiet started (alone)" ] && grep -q '^-- side1 done in [0-9]*s (CPU [0-9]*s)$' "$e/out" &&
   grep -q '^-- [0-9]*s: still running: side[12] [0-9]*s, side[12] [0-9]*s$' "$e/out"; then
  pass test_jobs_side_by_side_alone_first_ticker
else
  fail test_jobs_side_by_side_alone_first_ticker "status $st: $(tr '\n' '|' < "$e/out")"
fi

# Stopped by a signal (Ctrl-C, a CI timeout): every job ends, with what
# it started (here a test's child that would sleep on for a minute), and
# the runner says so and fails.
f=$d/stop
sandbox "$f"
printf '. tests/lib.sh\nsleep 60 &\necho $! > %s/child\nwait\npass slow_done\n' "$f" > "$f/tests/integration/slow.sh"
gone() { # PID: no such process, or only its zombie
  [ ! -e "/proc/$1/stat" ] || [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -c1)" = Z ]
}
if ! command -v setsid > /dev/null 2>&1; then
  skip test_stopped_ends_its_jobs "no setsid (util-linux): jobs run in the runner's process group"
elif [ ! -d /proc/self ]; then
  skip test_stopped_ends_its_jobs "no /proc to see the processes"
else
  (cd "$f" && exec sh scripts/test) > "$f/out" 2>&1 &
  runner=$!
  i=0
  while [ ! -s "$f/child" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  kill -TERM $runner 2> /dev/null
  wait $runner
  st=$?
  child=$(cat "$f/child" 2> /dev/null)
  i=0
  while [ -n "$child" ] && ! gone "$child" && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
  if [ -n "$child" ] && gone "$child" && [ $st != 0 ] && grep -qx -- '-- stopped by a signal: ended slow' "$f/out"; then
    pass test_stopped_ends_its_jobs
  else
    fail test_stopped_ends_its_jobs "status $st, child ${child:-none} $(gone "${child:-0}" || echo 'still running'): $(tr '\n' '|' < "$f/out")"
    [ -n "$child" ] && kill "$child" 2> /dev/null
  fi
fi

# the same, with the signal as soon as the job is started: the runner
# waits for the job to say its pid, so nothing it starts runs on
if command -v setsid > /dev/null 2>&1 && [ -d /proc/self ]; then
  rm -f "$f/child"
  (cd "$f" && exec sh scripts/test) > "$f/out" 2>&1 &
  runner=$!
  i=0
  while ! grep -q '^-- slow started' "$f/out" 2> /dev/null && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done
  kill -TERM $runner 2> /dev/null
  wait $runner
  st=$?
  sleep 2 # a job that escaped has started its child by now
  child=$(cat "$f/child" 2> /dev/null)
  i=0
  while [ -n "$child" ] && ! gone "$child" && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
  if { [ -z "$child" ] || gone "$child"; } && [ $st != 0 ]; then
    pass test_stopped_at_start_ends_its_jobs
  else
    fail test_stopped_at_start_ends_its_jobs "status $st, child ${child:-none} still running: $(tr '\n' '|' < "$f/out")"
    [ -n "$child" ] && kill "$child" 2> /dev/null
  fi
fi
