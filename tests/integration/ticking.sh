# scripts/ticking.sh, the progress lines of cross-test and system-test: a
# line every TEST_TICK seconds while a step runs, the step's status kept,
# and no ticker left behind, even when the step exits the shell.
. tests/lib.sh
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
TEST_TICK=1 sh -c '. scripts/ticking.sh; ticking "step" sh -c "sleep 2.5; exit 3"; echo "status $?"' > "$d/out" 2>&1
if [ "$(grep -c '^step: still running ([12]s)$' "$d/out")" = 2 ] && [ "$(tail -n 1 "$d/out")" = "status 3" ]; then
  pass ticking_lines_and_status
else
  fail ticking_lines_and_status "$(tr '\n' '|' < "$d/out")"
fi
# a step that exits the shell (as die does): the ticker ends too, and
# says nothing after it
TEST_TICK=1 sh -c '. scripts/ticking.sh; ticking "dies" exit 4' > "$d/out2" 2>&1
sleep 2.5
if [ ! -s "$d/out2" ]; then
  pass ticking_ends_with_its_shell
else
  fail ticking_ends_with_its_shell "it went on: $(tr '\n' '|' < "$d/out2")"
fi
