# Sourced by the long scripts (cross-test, system-test) and by the test
# runner: never ten seconds of silence while something runs.
# ticker SECONDS COMMAND...: in the background, runs COMMAND N every
# SECONDS (N: the seconds so far) until this shell ends or $tick_pid is
# killed.
ticker() {
  tick_every=${1%%.*} # whole seconds: sh counts in integers
  case $tick_every in ''|*[!0-9]*|0) tick_every=1 ;; esac
  shift
  (
    trap 'kill $tick_sleep 2> /dev/null; exit 0' TERM
    s=0
    while kill -0 $$ 2> /dev/null; do
      sleep "$tick_every" &
      tick_sleep=$!
      wait $tick_sleep
      s=$((s + tick_every))
      kill -0 $$ 2> /dev/null && "$@" "$s"
    done
  ) &
  tick_pid=$!
}
# ticking LABEL COMMAND...: runs COMMAND in this shell; every 10 seconds
# (TEST_TICK) while it runs, says "LABEL: still running (Ns)".
ticking() {
  tick_label=$1
  shift
  ticker "${TEST_TICK:-10}" ticking_says
  "$@"
  tick_status=$?
  kill $tick_pid 2> /dev/null
  wait $tick_pid 2> /dev/null
  return $tick_status
}
ticking_says() {
  echo "$tick_label: still running (${1}s)"
}
