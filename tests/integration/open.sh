# cpucycles-open against fake trees: never this machine's /proc or /sys.
# The installed binary takes no test option, so the fake trees are reached
# through a test binary built here with -DCPUCYCLES_OPEN_TEST (--root,
# --pretend-uid), never installed.  Refusal as non-root, --dry-run, the
# changes and their "old -> new" lines, a second run, a knob it cannot
# change; then the hardening (issue 12): no symlinked knob, no value
# outside a knob's range.  It keeps no record (issue 30): the printed
# lines are how to put the knobs back.  (Real knobs on a real kernel:
# make test-system, doc/system.md.)
. tests/lib.sh
open=$PACKAGE/bin/cpucycles-open
[ -x "$open" ] || { fail open_built "no $open"; exit 1; }
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
mkdir -p "$B/tests"
test_open=$B/tests/cpucycles-open-test
# shellcheck disable=SC2086
# (the library for cpucycles_version(), as the installed binary has it)
if ! $CC $INC -DCPUCYCLES_OPEN_TEST command/cpucycles-open.c "$PACKAGE/lib/libcpucycles.a" \
     $LIBPTHREAD -o "$test_open" > "$d/cc" 2>&1; then
  fail open_test_binary "does not compile: $(head -n 3 "$d/cc")"
  exit 1
fi
real_before=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)
asroot=--pretend-uid=0 # so the tests also run as a user, on the fake tree

tree() { # tree DIR paranoid cpu_rdpmc atom_rdpmc user_access nmi ("-": absent)
  mkdir -p "$1/proc/sys/kernel" "$1/sys/devices" "$1/run"
  [ "$2" = - ] || echo "$2" > "$1/proc/sys/kernel/perf_event_paranoid"
  [ "$3" = - ] || { mkdir -p "$1/sys/devices/cpu"; echo "$3" > "$1/sys/devices/cpu/rdpmc"; }
  [ "$4" = - ] || { mkdir -p "$1/sys/devices/cpu_atom"; echo "$4" > "$1/sys/devices/cpu_atom/rdpmc"; }
  [ "$5" = - ] || echo "$5" > "$1/proc/sys/kernel/perf_user_access"
  [ "$6" = - ] || echo "$6" > "$1/proc/sys/kernel/nmi_watchdog"
}
state() { # every knob file and its value, one line
  (cd "$1" && find proc sys -type f | sort | while read -r f; do printf '%s=%s ' "$f" "$(cat "$f")"; done)
}
value() { cat "$1$2"; }
topen() { $RUN "$test_open" "$@"; }
paranoid=/proc/sys/kernel/perf_event_paranoid

# --- the installed binary ---
t=$d/i
tree "$t" 4 1 0 0 1
start=$(state "$t")
for option in --root="$t" --pretend-uid=0 --saved="$t/run/x" --restore; do
  $RUN "$open" "$option" > "$d/out" 2>&1
  status=$?
  [ $status = 2 ] && grep -q '^usage: ' "$d/out" && grep -qxF "cpucycles-open: unknown argument '$option'" "$d/out" &&
    [ "$(state "$t")" = "$start" ] && [ ! -e "$t/run/x" ] ||
    { echo "$option: status $status: $(head -n 1 "$d/out")"; break; }
done > "$d/why"
[ -s "$d/why" ] && fail open_installed_takes_no_test_option "$(cat "$d/why")" ||
  pass open_installed_takes_no_test_option
$RUN "$open" --help 2>&1 | grep -q -- '--root\|--pretend-uid\|--saved' &&
  fail open_installed_help_names_no_test_option "$($RUN "$open" --help 2>&1 | grep -- '--root\|--pretend\|--saved')" ||
  pass open_installed_help_names_no_test_option
# --help points at the man page, which is installed, not at a source path
h=$($RUN "$open" --help 2>&1)
echo "$h" | grep -q 'cpucycles-open(1)' && ! echo "$h" | grep -q 'doc/' && pass open_help_names_man_page ||
  fail open_help_names_man_page "$(echo "$h" | tail -n 1)"

# --- the plain behaviour ---
t=$d/a
tree "$t" 4 1 0 0 1
start=$(state "$t")

topen --root="$t" --pretend-uid=1000 > "$d/out" 2>&1
status=$?
[ $status = 1 ] && grep -q 'must be run as root' "$d/out" && [ "$(state "$t")" = "$start" ] &&
  pass open_refuses_non_root || fail open_refuses_non_root "status $status: $(cat "$d/out")"

topen --root="$t" --dry-run > "$d/out" 2>&1
status=$?
[ $status = 0 ] && grep -qx '/proc/sys/kernel/perf_event_paranoid would change 4 -> 2' "$d/out" &&
  grep -qx '/sys/devices/cpu_atom/rdpmc would change 0 -> 2' "$d/out" && [ "$(state "$t")" = "$start" ] &&
  pass open_dry_run_changes_nothing || fail open_dry_run_changes_nothing "status $status: $(cat "$d/out")"
topen --root="$t" --dry-run --pretend-uid=1000 > "$d/out" 2>&1 &&
  pass open_dry_run_needs_no_root || fail open_dry_run_needs_no_root "$(cat "$d/out")"

topen --root="$t" $asroot > "$d/out" 2>&1
status=$?
ok=1
for line in '/proc/sys/kernel/perf_event_paranoid 4 -> 2' '/sys/devices/cpu/rdpmc 1 -> 2' \
            '/sys/devices/cpu_atom/rdpmc 0 -> 2' '/proc/sys/kernel/perf_user_access 0 -> 1' \
            '/proc/sys/kernel/nmi_watchdog 1 -> 0' '/sys/devices/cpu_core/rdpmc not present; nothing to do'; do
  grep -qxF "$line" "$d/out" || { ok=0; echo "missing: $line"; }
done
[ $status = 0 ] && [ $ok = 1 ] && pass open_prints_each_change || fail open_prints_each_change "status $status: $(cat "$d/out")"
[ "$(value "$t" $paranoid)" = 2 ] && [ "$(value "$t" /sys/devices/cpu/rdpmc)" = 2 ] &&
  [ "$(value "$t" /sys/devices/cpu_atom/rdpmc)" = 2 ] && [ "$(value "$t" /proc/sys/kernel/perf_user_access)" = 1 ] &&
  [ "$(value "$t" /proc/sys/kernel/nmi_watchdog)" = 0 ] && [ ! -e "$t/sys/devices/cpu_core" ] &&
  pass open_sets_the_knobs || fail open_sets_the_knobs "$(state "$t")"
[ -z "$(ls -A "$t/run")" ] && pass open_keeps_no_record ||
  fail open_keeps_no_record "$(ls -A "$t/run")"
opened=$(state "$t")
topen --root="$t" $asroot > "$d/out" 2>&1
status=$?
[ $status = 0 ] && [ "$(state "$t")" = "$opened" ] && ! grep -q -- '->' "$d/out" &&
  grep -qx '/proc/sys/kernel/perf_event_paranoid already 2' "$d/out" &&
  pass open_twice_is_harmless || fail open_twice_is_harmless "status $status: $(cat "$d/out")"

# lower or more open values stay; a knob it cannot use is reported, and
# the others are still changed
t=$d/b
tree "$t" 1 2 - 2 0
echo junk > "$t/sys/devices/cpu/rdpmc"
topen --root="$t" $asroot > "$d/out" 2>&1
status=$?
[ $status = 1 ] && grep -qx '/sys/devices/cpu/rdpmc cannot be read: does not hold a number' "$d/out" &&
  grep -qx '/proc/sys/kernel/perf_event_paranoid already 1' "$d/out" &&
  grep -qx '/proc/sys/kernel/perf_user_access already 2' "$d/out" &&
  pass open_reports_knob_it_cannot_change || fail open_reports_knob_it_cannot_change "status $status: $(cat "$d/out")"
rm -rf "$t/proc/sys/kernel/nmi_watchdog"
mkdir "$t/proc/sys/kernel/nmi_watchdog"
topen --root="$t" $asroot > "$d/out" 2>&1
[ $? = 1 ] && grep -q '^/proc/sys/kernel/nmi_watchdog cannot be read: ' "$d/out" &&
  pass open_says_why || fail open_says_why "$(cat "$d/out")"

# a knob that refuses the write (as a user: a read-only file)
if [ "$(id -u)" = 0 ]; then
  skip open_reports_refused_write "root writes read-only files anyway; run the tests as a user to see this"
else
  t=$d/c
  tree "$t" 3 - - - -
  chmod 444 "$t$paranoid"
  topen --root="$t" $asroot > "$d/out" 2>&1
  [ $? = 1 ] && grep -qx '/proc/sys/kernel/perf_event_paranoid could not change 3 -> 2: Permission denied' "$d/out" &&
    pass open_reports_refused_write || fail open_reports_refused_write "$(cat "$d/out")"
fi

# --- hardening: knobs ---
# linked_knob NAME LN-OPTION WHY: perf_user_access made a link (ln with
# LN-OPTION) to another file, which must stay as it was, the knob refused
linked_knob() {
  t=$d/$1
  tree "$t" 3 - - - -
  echo 0 > "$d/victim-$1"
  rm -f "$t/proc/sys/kernel/perf_user_access"
  ln $2 "$d/victim-$1" "$t/proc/sys/kernel/perf_user_access"
  topen --root="$t" $asroot > "$d/out" 2>&1
  status=$?
  [ $status = 1 ] && [ "$(cat "$d/victim-$1")" = 0 ] &&
    grep -qx "/proc/sys/kernel/perf_user_access cannot be read: $3" "$d/out" &&
    pass $1 || fail $1 "status $status, target $(cat "$d/victim-$1"): $(cat "$d/out")"
}
# a symlinked knob is not followed (it used to truncate its target)
linked_knob open_follows_no_symlinked_knob -s 'is a symlink'
# a knob with a second name (a hard link to another file) is not written
linked_knob open_writes_no_hard_linked_knob '' 'is not a regular file of one name'
# a value longer than any knob's: its start alone (4) is not taken for it
t=$d/l
tree "$t" - - - - -
printf '%s\n' 0000000000000000000000000000000400 > "$t$paranoid"
topen --root="$t" $asroot > "$d/out" 2>&1
status=$?
[ $status = 1 ] && [ "$(value "$t" $paranoid)" = 0000000000000000000000000000000400 ] &&
  grep -qx '/proc/sys/kernel/perf_event_paranoid cannot be read: does not hold a number' "$d/out" &&
  pass open_long_value_left_alone || fail open_long_value_left_alone "status $status: $(cat "$d/out")"
# a value outside the knob's range is left alone
t=$d/r
tree "$t" 3 - - - 7
topen --root="$t" $asroot > "$d/out" 2>&1
status=$?
[ $status = 1 ] && [ "$(value "$t" /proc/sys/kernel/nmi_watchdog)" = 7 ] &&
  grep -qx '/proc/sys/kernel/nmi_watchdog holds 7, outside 0..1; left alone' "$d/out" &&
  [ "$(value "$t" $paranoid)" = 2 ] &&
  pass open_leaves_out_of_range_knob || fail open_leaves_out_of_range_knob "status $status: $(cat "$d/out")"

# --- output that cannot be written ---
t=$d/o
tree "$t" 3 - - - -
start=$(state "$t")
topen --root="$t" $asroot >&- 2> "$d/err"
status=$?
[ $status = 1 ] && [ "$(state "$t")" = "$start" ] && grep -q 'standard output is closed' "$d/err" &&
  pass open_closed_stdout_changes_nothing || fail open_closed_stdout_changes_nothing "status $status: $(cat "$d/err")"
if [ -w /dev/full ]; then
  topen --root="$t" $asroot > /dev/full 2> "$d/err"
  status=$?
  [ $status = 1 ] && grep -q 'cannot write its output' "$d/err" && [ "$(value "$t" $paranoid)" = 2 ] &&
    pass open_full_output_exits_1 || fail open_full_output_exits_1 "status $status: $(cat "$d/err")"
  $RUN "$open" --dry-run > /dev/full 2> "$d/err"
  status=$?
  [ $status = 1 ] && pass open_installed_full_output_exits_1 || fail open_installed_full_output_exits_1 "status $status"
else
  skip open_full_output_exits_1 "no writable /dev/full"
fi

[ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)" = "$real_before" ] &&
  pass open_tests_leave_this_machine_alone || fail open_tests_leave_this_machine_alone "perf_event_paranoid changed"
