# Helpers for integration tests (sourced).  Each check prints one line.
pass() { echo "pass $1"; }
fail() { echo "fail $1: $2"; }
skip() { echo "skip $1: $2"; }
# check NAME WHY COMMAND...: pass if COMMAND succeeds
check() {
  name=$1; why=$2; shift 2
  if "$@"; then pass "$name"; else fail "$name" "$why"; fi
}
tmpdir() {
  d=$(mktemp -d "${TMPDIR:-/tmp}/cpucycles-test.XXXXXX") || exit 1
  echo "$d"
}
