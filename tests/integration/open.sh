# cpucycles-open against fake trees: never this machine's /proc or /sys.
# The installed binary takes no test option, so the fake trees are reached
# through a test binary built here with -DCPUCYCLES_OPEN_TEST (--root,
# --pretend-uid), never installed.  Refusal as non-root, --dry-run, the
# changes and their "old -> new" lines, a second run, a knob it cannot
# change, --restore; then the hardening (issue 12): no symlinked knob, the
# record written first and only where root alone can write, --restore
# trusting only records cpucycles-open wrote.  (Real knobs on a real
# kernel: make test-system, doc/system.md.)
. tests/lib.sh
open=$PACKAGE/bin/cpucycles-open
[ -x "$open" ] || { fail open_built "no $open"; exit 1; }
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
mkdir -p "$B/tests"
test_open=$B/tests/cpucycles-open-test
# shellcheck disable=SC2086
if ! $CC $INC -DCPUCYCLES_OPEN_TEST command/cpucycles-open.c -o "$test_open" > "$d/cc" 2>&1; then
  fail open_test_binary "does not compile: $(head -n 3 "$d/cc")"
  exit 1
fi
real_before=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)
asroot=--pretend-uid=0 # so the tests also run as a user, on the fake tree
record=run/cpucycles-open.saved

tree() { # tree DIR paranoid cpu_rdpmc atom_rdpmc user_access nmi ("-": absent)
  mkdir -p "$1/proc/sys/kernel" "$1/sys/devices" "$1/run"
  chmod 755 "$1" "$1/run" # whatever the umask: only its owner may write
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
for option in --root="$t" --pretend-uid=0 --saved="$t/run/x"; do
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
[ $status = 1 ] && grep -q 'must be run as root' "$d/out" && [ "$(state "$t")" = "$start" ] && [ ! -e "$t/$record" ] &&
  pass open_refuses_non_root || fail open_refuses_non_root "status $status: $(cat "$d/out")"

topen --root="$t" --dry-run > "$d/out" 2>&1
status=$?
[ $status = 0 ] && grep -qx '/proc/sys/kernel/perf_event_paranoid would change 4 -> 2' "$d/out" &&
  grep -qx '/sys/devices/cpu_atom/rdpmc would change 0 -> 2' "$d/out" && [ "$(state "$t")" = "$start" ] &&
  [ ! -e "$t/$record" ] &&
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
sed -n 1p "$t/$record" | grep -qx 'cpucycles-open record' &&
  grep -qx '/proc/sys/kernel/perf_event_paranoid 4 2' "$t/$record" &&
  [ "$(ls -ln "$t/$record" | cut -c1-10)" = -rw------- ] && [ ! -e "$t/$record.new" ] &&
  pass open_records_old_values || fail open_records_old_values "$(ls -ln "$t/run"; cat "$t/$record" 2>&1)"

opened=$(state "$t")
cp "$t/$record" "$d/record"
topen --root="$t" $asroot > "$d/out" 2>&1
status=$?
[ $status = 0 ] && [ "$(state "$t")" = "$opened" ] && ! grep -q -- '->' "$d/out" &&
  grep -qx '/proc/sys/kernel/perf_event_paranoid already 2' "$d/out" && cmp -s "$t/$record" "$d/record" &&
  pass open_twice_is_harmless || fail open_twice_is_harmless "status $status: $(cat "$d/out")"

topen --root="$t" $asroot --restore --dry-run > "$d/out" 2>&1
[ "$(state "$t")" = "$opened" ] && grep -qx '/proc/sys/kernel/perf_event_paranoid would change 2 -> 4' "$d/out" &&
  cmp -s "$t/$record" "$d/record" &&
  pass open_restore_dry_run || fail open_restore_dry_run "$(cat "$d/out")"
echo 1 > "$t/sys/devices/cpu/rdpmc" # someone else changed it meanwhile
topen --root="$t" $asroot --restore > "$d/out" 2>&1
status=$?
[ $status = 0 ] && [ "$(value "$t" $paranoid)" = 4 ] &&
  [ "$(value "$t" /sys/devices/cpu_atom/rdpmc)" = 0 ] && [ "$(value "$t" /proc/sys/kernel/nmi_watchdog)" = 1 ] &&
  [ "$(value "$t" /proc/sys/kernel/perf_user_access)" = 0 ] &&
  grep -qx '/proc/sys/kernel/perf_event_paranoid 2 -> 4' "$d/out" && [ ! -e "$t/$record" ] &&
  pass open_restore_puts_values_back || fail open_restore_puts_values_back "status $status: $(cat "$d/out"); $(state "$t")"
grep -q '/sys/devices/cpu/rdpmc is 1, not the 2 cpucycles-open set; left alone' "$d/out" && [ "$(value "$t" /sys/devices/cpu/rdpmc)" = 1 ] &&
  pass open_restore_leaves_others_changes || fail open_restore_leaves_others_changes "$(cat "$d/out")"
topen --root="$t" $asroot --restore > "$d/out" 2>&1 && grep -q 'nothing to restore' "$d/out" &&
  pass open_restore_twice_is_harmless || fail open_restore_twice_is_harmless "$(cat "$d/out")"

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
    [ ! -e "$t/$record" ] &&
    pass open_reports_refused_write || fail open_reports_refused_write "$(cat "$d/out"; cat "$t/$record" 2>&1)"
fi

# --- hardening: knobs ---
# a symlinked knob is not followed (it used to truncate its target)
t=$d/s
tree "$t" 3 - - - -
echo 0 > "$d/victim"
ln -s "$d/victim" "$t/proc/sys/kernel/perf_user_access"
topen --root="$t" $asroot > "$d/out" 2>&1
status=$?
[ $status = 1 ] && [ "$(cat "$d/victim")" = 0 ] &&
  grep -qx '/proc/sys/kernel/perf_user_access cannot be read: is a symlink' "$d/out" &&
  pass open_follows_no_symlinked_knob || fail open_follows_no_symlinked_knob "status $status, target $(cat "$d/victim"): $(cat "$d/out")"
# a value outside the knob's range is left alone, and never recorded
t=$d/r
tree "$t" 3 - - - 7
topen --root="$t" $asroot > "$d/out" 2>&1
status=$?
[ $status = 1 ] && [ "$(value "$t" /proc/sys/kernel/nmi_watchdog)" = 7 ] &&
  grep -qx '/proc/sys/kernel/nmi_watchdog holds 7, outside 0..1; left alone' "$d/out" &&
  ! grep -q nmi_watchdog "$t/$record" && [ "$(value "$t" $paranoid)" = 2 ] &&
  pass open_leaves_out_of_range_knob || fail open_leaves_out_of_range_knob "status $status: $(cat "$d/out")"

# --- hardening: the record is written first, or nothing changes ---
unsaved() { # unsaved NAME: run on $t, which cannot take a record
  start=$(state "$t")
  topen --root="$t" $asroot > "$d/out" 2>&1
  status=$?
  [ $status = 1 ] && [ "$(state "$t")" = "$start" ] && grep -q 'nothing was changed' "$d/out" &&
    pass "$1" || fail "$1" "status $status: $(cat "$d/out"); $(state "$t")"
}
t=$d/u1
tree "$t" 3 - - 0 -
rmdir "$t/run" && echo not a directory > "$t/run" # as with /run read-only: no record can be made
unsaved open_unsaved_run_is_a_file_changes_nothing
t=$d/u2
tree "$t" 3 - - 0 -
chmod 777 "$t/run"
unsaved open_unsaved_others_may_write_its_directory
t=$d/u3
tree "$t" 3 - - 0 -
mv "$t/run" "$t/run-elsewhere" && ln -s run-elsewhere "$t/run"
unsaved open_unsaved_symlinked_directory
t=$d/u4
tree "$t" 3 - - 0 -
ln -s "$d/victim2" "$t/$record.new" # planted: O_EXCL follows no symlink
unsaved open_unsaved_planted_temporary
[ ! -e "$d/victim2" ] && pass open_planted_temporary_not_followed || fail open_planted_temporary_not_followed "created $d/victim2"
t=$d/u5
tree "$t" 3 - - 0 -
ln -s "$d/elsewhere" "$t/$record"
printf 'cpucycles-open record boot test-boot-1\n' > "$d/elsewhere"
unsaved open_unsaved_symlinked_record
if [ "$(id -u)" = 0 ]; then
  skip open_unsaved_read_only_directory "root writes read-only directories anyway (make test-system mounts a read-only /run)"
else
  t=$d/u6
  tree "$t" 3 - - 0 -
  chmod 555 "$t/run"
  unsaved open_unsaved_read_only_directory
  chmod 755 "$t/run"
fi

# --- hardening: --restore applies only records cpucycles-open wrote ---
forged() { # forged NAME: $t holds a record that must not be used
  echo 2 > "$t$paranoid"
  topen --root="$t" $asroot --restore > "$d/out" 2>&1
  status=$?
  [ $status = 1 ] && [ "$(value "$t" $paranoid)" = 2 ] && grep -q 'nothing was restored' "$d/out" &&
    pass "$1" || fail "$1" "status $status, paranoid $(value "$t" $paranoid): $(cat "$d/out")"
}
head='cpucycles-open record'
line='/proc/sys/kernel/perf_event_paranoid 3 2'
t=$d/f
tree "$t" 2 - - - -
printf '%s\n/proc/sys/kernel/perf_event_paranoid 99 2\n' "$head" > "$t/$record"
forged open_restore_refuses_out_of_range
printf '%s\n%s\n/etc/cpucyclespersecond 1 2\n' "$head" "$line" > "$t/$record"
forged open_restore_refuses_unknown_path
printf '%s\n' "$line" > "$t/$record"
forged open_restore_refuses_record_without_head
printf '%s\n%s\n%s\n' "$head" "$line" "$line" > "$t/$record"
forged open_restore_refuses_a_knob_twice
printf '%s\n%s' "$head" "$line" > "$t/$record"
forged open_restore_refuses_incomplete_line
# a long line is refused whole: not read as 511 bytes and then the rest,
# which here would be a line of its own
{ echo "$head"; printf '#%0510d%s\n' 0 "$line"; } > "$t/$record"
forged open_restore_refuses_long_line
{ echo "$head"; echo "$line"; } > "$t/$record"
chmod 666 "$t/$record"
forged open_restore_refuses_record_others_may_write
rm -f "$t/$record"
{ echo "$head"; echo "$line"; } > "$d/target"
chmod 600 "$d/target"
ln -s "$d/target" "$t/$record"
forged open_restore_refuses_symlinked_record
rm -f "$t/$record"
if [ "$(id -u)" = 0 ]; then
  { echo "$head"; echo "$line"; } > "$t/$record"
  chown 65534 "$t/$record"
  forged open_restore_refuses_record_of_another_owner
  rm -f "$t/$record"
else
  skip open_restore_refuses_record_of_another_owner "only root can give a file away"
fi
# a record with no entries holds nothing to restore
echo "$head" > "$t/$record"
topen --root="$t" $asroot --restore > "$d/out" 2>&1
status=$?
[ $status = 0 ] && [ "$(value "$t" $paranoid)" = 2 ] && grep -q 'nothing to restore' "$d/out" &&
  pass open_restore_empty_record || fail open_restore_empty_record "status $status: $(cat "$d/out")"
# and is replaced by the next real run
echo 3 > "$t$paranoid"
topen --root="$t" $asroot > "$d/out" 2>&1
[ "$(sed -n 1p "$t/$record")" = "$head" ] && grep -qx "$line" "$t/$record" &&
  pass open_replaces_empty_record || fail open_replaces_empty_record "$(cat "$t/$record")"
# a record it cannot use is not overwritten: a real run changes nothing
printf 'not a record\n' > "$t/$record"
echo 3 > "$t$paranoid"
topen --root="$t" $asroot > "$d/out" 2>&1
status=$?
[ $status = 1 ] && [ "$(value "$t" $paranoid)" = 3 ] && [ "$(cat "$t/$record")" = 'not a record' ] &&
  pass open_keeps_unusable_record_and_changes_nothing || fail open_keeps_unusable_record_and_changes_nothing "status $status: $(cat "$d/out")"

# a stale entry does not win: set to 3 after a first run (4 -> 2), a
# second run (3 -> 2) records 3, and --restore puts back 3
t=$d/n
tree "$t" 4 - - - -
topen --root="$t" $asroot > /dev/null 2>&1
echo 3 > "$t$paranoid"
topen --root="$t" $asroot > "$d/out" 2>&1
topen --root="$t" $asroot --restore > "$d/out2" 2>&1
[ "$(value "$t" $paranoid)" = 3 ] && grep -qx '/proc/sys/kernel/perf_event_paranoid 2 -> 3' "$d/out2" &&
  pass open_restore_newer_record_wins || fail open_restore_newer_record_wins "paranoid $(value "$t" $paranoid): $(cat "$d/out" "$d/out2")"

# --- output that cannot be written ---
t=$d/o
tree "$t" 3 - - - -
start=$(state "$t")
topen --root="$t" $asroot >&- 2> "$d/err"
status=$?
[ $status = 1 ] && [ "$(state "$t")" = "$start" ] && [ ! -e "$t/$record" ] && grep -q 'standard output is closed' "$d/err" &&
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
