# Sourced by the long scripts (cross-test, system-test): never ten seconds
# of silence while one step runs.
# ticking LABEL COMMAND...: runs COMMAND in this shell; every 10 seconds
# (TEST_TICK) while it runs, says "LABEL: still running (Ns)".  The
# ticker ends with COMMAND, or with this shell if COMMAND exits it.
ticking() {
  tick_label=$1
  shift
  (
    trap 'kill $tick_sleep 2> /dev/null; exit 0' TERM
    s=0
    while kill -0 $$ 2> /dev/null; do
      sleep "${TEST_TICK:-10}" &
      tick_sleep=$!
      wait $tick_sleep
      s=$((s + ${TEST_TICK:-10}))
      kill -0 $$ 2> /dev/null && echo "$tick_label: still running (${s}s)"
    done
  ) &
  tick_pid=$!
  "$@"
  tick_status=$?
  kill $tick_pid 2> /dev/null
  wait $tick_pid 2> /dev/null
  return $tick_status
}
