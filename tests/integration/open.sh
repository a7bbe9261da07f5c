# cpucycles-open against fake trees (--root, for testing): never this
# machine's /proc or /sys.  Refusal as non-root, --dry-run, the changes and
# their "old -> new" lines, a second run, a knob it cannot change, and
# --restore.
. tests/lib.sh
open=$PACKAGE/bin/cpucycles-open
[ -x "$open" ] || { fail open_built "no $open"; exit 1; }
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
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

t=$d/a
tree "$t" 4 1 0 0 1
start=$(state "$t")

$RUN "$open" --root="$t" --pretend-uid=1000 > "$d/out" 2>&1
status=$?
[ $status = 1 ] && grep -q 'must be run as root' "$d/out" && [ "$(state "$t")" = "$start" ] && [ ! -e "$t/run/cpucycles-open.saved" ] &&
  pass open_refuses_non_root || fail open_refuses_non_root "status $status: $(cat "$d/out")"

$RUN "$open" --root="$t" --dry-run > "$d/out" 2>&1
status=$?
[ $status = 0 ] && grep -qx '/proc/sys/kernel/perf_event_paranoid would change 4 -> 2' "$d/out" &&
  grep -qx '/sys/devices/cpu_atom/rdpmc would change 0 -> 2' "$d/out" && [ "$(state "$t")" = "$start" ] &&
  [ ! -e "$t/run/cpucycles-open.saved" ] &&
  pass open_dry_run_changes_nothing || fail open_dry_run_changes_nothing "status $status: $(cat "$d/out")"
$RUN "$open" --root="$t" --dry-run --pretend-uid=1000 > "$d/out" 2>&1 &&
  pass open_dry_run_needs_no_root || fail open_dry_run_needs_no_root "$(cat "$d/out")"

$RUN "$open" --root="$t" $asroot > "$d/out" 2>&1
status=$?
ok=1
for line in '/proc/sys/kernel/perf_event_paranoid 4 -> 2' '/sys/devices/cpu/rdpmc 1 -> 2' \
            '/sys/devices/cpu_atom/rdpmc 0 -> 2' '/proc/sys/kernel/perf_user_access 0 -> 1' \
            '/proc/sys/kernel/nmi_watchdog 1 -> 0' '/sys/devices/cpu_core/rdpmc not present; nothing to do'; do
  grep -qxF "$line" "$d/out" || { ok=0; echo "missing: $line"; }
done
[ $status = 0 ] && [ $ok = 1 ] && pass open_prints_each_change || fail open_prints_each_change "status $status: $(cat "$d/out")"
[ "$(value "$t" /proc/sys/kernel/perf_event_paranoid)" = 2 ] && [ "$(value "$t" /sys/devices/cpu/rdpmc)" = 2 ] &&
  [ "$(value "$t" /sys/devices/cpu_atom/rdpmc)" = 2 ] && [ "$(value "$t" /proc/sys/kernel/perf_user_access)" = 1 ] &&
  [ "$(value "$t" /proc/sys/kernel/nmi_watchdog)" = 0 ] && [ ! -e "$t/sys/devices/cpu_core" ] &&
  pass open_sets_the_knobs || fail open_sets_the_knobs "$(state "$t")"
grep -qx '/proc/sys/kernel/perf_event_paranoid 4 2' "$t/run/cpucycles-open.saved" &&
  pass open_records_old_values || fail open_records_old_values "$(cat "$t/run/cpucycles-open.saved" 2>&1)"

opened=$(state "$t")
$RUN "$open" --root="$t" $asroot > "$d/out" 2>&1
status=$?
[ $status = 0 ] && [ "$(state "$t")" = "$opened" ] && ! grep -q -- '->' "$d/out" &&
  grep -qx '/proc/sys/kernel/perf_event_paranoid already 2' "$d/out" &&
  grep -qx '/proc/sys/kernel/perf_event_paranoid 4 2' "$t/run/cpucycles-open.saved" &&
  pass open_twice_is_harmless || fail open_twice_is_harmless "status $status: $(cat "$d/out")"

$RUN "$open" --root="$t" $asroot --restore --dry-run > "$d/out" 2>&1
[ "$(state "$t")" = "$opened" ] && grep -qx '/proc/sys/kernel/perf_event_paranoid would change 2 -> 4' "$d/out" &&
  pass open_restore_dry_run || fail open_restore_dry_run "$(cat "$d/out")"
echo 1 > "$t/sys/devices/cpu/rdpmc" # someone else changed it meanwhile
$RUN "$open" --root="$t" $asroot --restore > "$d/out" 2>&1
status=$?
[ $status = 0 ] && [ "$(value "$t" /proc/sys/kernel/perf_event_paranoid)" = 4 ] &&
  [ "$(value "$t" /sys/devices/cpu_atom/rdpmc)" = 0 ] && [ "$(value "$t" /proc/sys/kernel/nmi_watchdog)" = 1 ] &&
  [ "$(value "$t" /proc/sys/kernel/perf_user_access)" = 0 ] &&
  grep -qx '/proc/sys/kernel/perf_event_paranoid 2 -> 4' "$d/out" && [ ! -e "$t/run/cpucycles-open.saved" ] &&
  pass open_restore_puts_values_back || fail open_restore_puts_values_back "status $status: $(cat "$d/out"); $(state "$t")"
grep -q '/sys/devices/cpu/rdpmc is 1, not the 2 cpucycles-open set; left alone' "$d/out" && [ "$(value "$t" /sys/devices/cpu/rdpmc)" = 1 ] &&
  pass open_restore_leaves_others_changes || fail open_restore_leaves_others_changes "$(cat "$d/out")"
$RUN "$open" --root="$t" $asroot --restore > "$d/out" 2>&1 && grep -q 'nothing to restore' "$d/out" &&
  pass open_restore_twice_is_harmless || fail open_restore_twice_is_harmless "$(cat "$d/out")"

# lower or more open values stay; a knob it cannot use is reported, and
# the others are still changed
t=$d/b
tree "$t" 1 2 - 2 0
echo junk > "$t/sys/devices/cpu/rdpmc"
$RUN "$open" --root="$t" $asroot > "$d/out" 2>&1
status=$?
[ $status = 1 ] && grep -qx '/sys/devices/cpu/rdpmc cannot be read: does not hold a number' "$d/out" &&
  grep -qx '/proc/sys/kernel/perf_event_paranoid already 1' "$d/out" &&
  grep -qx '/proc/sys/kernel/perf_user_access already 2' "$d/out" &&
  pass open_reports_knob_it_cannot_change || fail open_reports_knob_it_cannot_change "status $status: $(cat "$d/out")"
rm -rf "$t/proc/sys/kernel/nmi_watchdog"
mkdir "$t/proc/sys/kernel/nmi_watchdog"
$RUN "$open" --root="$t" $asroot > "$d/out" 2>&1
[ $? = 1 ] && grep -q '^/proc/sys/kernel/nmi_watchdog cannot be read: ' "$d/out" &&
  pass open_says_why || fail open_says_why "$(cat "$d/out")"

[ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)" = "$real_before" ] &&
  pass open_tests_leave_this_machine_alone || fail open_tests_leave_this_machine_alone "perf_event_paranoid changed"

# a knob that refuses the write (as a user: a read-only file)
if [ "$(id -u)" = 0 ]; then
  skip open_reports_refused_write "root writes read-only files anyway; run the tests as a user to see this"
else
  t=$d/c
  tree "$t" 3 - - - -
  chmod 444 "$t/proc/sys/kernel/perf_event_paranoid"
  $RUN "$open" --root="$t" $asroot > "$d/out" 2>&1
  [ $? = 1 ] && grep -qx '/proc/sys/kernel/perf_event_paranoid could not change 3 -> 2: Permission denied' "$d/out" &&
    pass open_reports_refused_write || fail open_reports_refused_write "$(cat "$d/out")"
fi
