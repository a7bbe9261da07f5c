# cpucycles-info prints the SPEC 4 format, in order, and chooses a TSC
# counter on amd64 machines without an exposed PMU (like the CI machine).
. tests/lib.sh
out=$($RUN "$PACKAGE/bin/cpucycles-info") || { fail info_runs "exit status $?"; exit 1; }
pass info_runs
n=$(echo "$COUNTERS" | wc -w)

echo "$out" | sed -n 1p | grep -qE '^cpucycles version [0-9]{8}$' &&
  pass info_version_line || fail info_version_line "$(echo "$out" | sed -n 1p)"

traces=$(echo "$out" | sed -n "2,$((n + 1))p")
i=0 ok=1
for name in $COUNTERS; do
  line=$(echo "$traces" | sed -n "$((i + 1))p")
  echo "$line" | grep -qE "^cpucycles tracesetup $i $name precision [0-9]+ scaling [0-9]+\.[0-9]{6} only32 [01]$" || { ok=0; echo "bad: $line"; }
  i=$((i + 1))
done
[ $ok = 1 ] && pass info_tracesetup_lines || fail info_tracesetup_lines "one line per compiled counter, in order"

# then the trace's own lines (persecond-source, counter reasons), then the
# reference's persecond, implementation and iqm lines, in that order
p=$(echo "$out" | grep -n '^cpucycles persecond ' | head -n 1 | cut -d: -f1)
p=${p:-1}
echo "$out" | sed -n "$((n + 2)),$((p - 1))p" | grep -qvE '^cpucycles (persecond-source|wanted|counter) ' &&
  fail info_trace_extra_lines "$(echo "$out" | sed -n "$((n + 2)),$((p - 1))p" | grep -vE '^cpucycles (persecond-source|wanted|counter) ' | head -n 2)" ||
  pass info_trace_extra_lines
echo "$out" | sed -n "${p}p" | grep -qE '^cpucycles persecond [1-9][0-9]*$' &&
  pass info_persecond_line || fail info_persecond_line "$(echo "$out" | sed -n "${p}p")"
impl=$(echo "$out" | sed -n "$((p + 1))p" | sed -n 's/^cpucycles implementation //p')
case " $COUNTERS " in
  *" $impl "*) pass info_implementation_line ;;
  *) fail info_implementation_line "'$impl' is not a compiled counter" ;;
esac
iqm=$(echo "$out" | sed -n "$((p + 2))p")
echo "$iqm" | grep -qE '^cpucycles iqm -?[0-9]+ ([+-][0-9]+){64}$' &&
  pass info_iqm_line_has_64_differences || fail info_iqm_line_has_64_differences "$iqm"
echo "$out" | grep -qE '^cpucycles observed persecond [0-9]+\.\.\.[0-9]+ with [0-9]+ loops [0-9]+ microseconds$' &&
  pass info_observed_lines || fail info_observed_lines "none"
last=$(echo "$out" | grep 'observed persecond' | tail -n 1 | sed 's/.* loops \([0-9]*\) microseconds/\1/')
[ "${last:-0}" -ge 1000 ] && pass info_observed_until_a_millisecond || fail info_observed_until_a_millisecond "last line took $last us"

# the chosen counter's precision is the smallest positive one
# (field 6 is the precision; the first of equal precisions wins, as in the rule)
best=$(echo "$traces" | awk '$6 > 0 && (best == "" || $6 < min) { min = $6; best = $4 } END { print best }')
[ "$best" = "$impl" ] || [ -z "$best" -a "$impl" = default-zero ] &&
  pass info_choice_has_smallest_precision || fail info_choice_has_smallest_precision "best $best, chosen $impl"

if [ "$ARCH" = amd64 ] && [ -z "$RUN" ] && grep -q hypervisor /proc/cpuinfo 2>/dev/null &&
   ! ls /sys/bus/event_source/devices/cpu/events >/dev/null 2>&1; then
  case "$impl" in
    amd64-tsc|amd64-tscasm) pass info_amd64_guest_chooses_tsc ;;
    *) fail info_amd64_guest_chooses_tsc "chose $impl" ;;
  esac
else
  skip info_amd64_guest_chooses_tsc "not an amd64 guest without a PMU"
fi

# the trace's counter lines: one per compiled counter, exactly one chosen,
# and it is the implementation
ok=1
for name in $COUNTERS; do
  echo "$out" | grep -q "^cpucycles counter $name " || { ok=0; echo "no line for $name"; }
done
chosen=$(echo "$out" | grep '^cpucycles counter .* chosen' | grep -v 'not chosen' | awk '{print $3}')
[ $ok = 1 ] && [ "$chosen" = "$impl" ] && pass info_counter_lines ||
  fail info_counter_lines "chosen line says '$chosen', implementation '$impl'"
echo "$out" | grep -qE '^cpucycles persecond-source (file|sysfs|cpuinfo|sysctl|env|measured|default)' &&
  pass info_persecond_source || fail info_persecond_source "no persecond-source line"
echo "$out" | grep -q '^cpucycles machine os ' && pass info_machine_lines || fail info_machine_lines "no machine os line"
echo "$out" | grep '^cpucycles counter' | grep 'dropped' | grep -qv 'dropped: [A-Za-z]' &&
  fail info_dropped_counters_say_why "a dropped counter without a reason" || pass info_dropped_counters_say_why

# CPUCYCLES_IMPLEMENTATION: honoured when the counter works, refused otherwise
other=$(echo "$traces" | awk -v impl="$impl" '$6 > 0 && $4 != impl { print $4 }' | tail -n 1)
if [ -n "$other" ]; then
  w=$(CPUCYCLES_IMPLEMENTATION=$other $RUN "$PACKAGE/bin/cpucycles-info")
  echo "$w" | grep -q "^cpucycles implementation $other\$" &&
    echo "$w" | grep -q "^cpucycles wanted CPUCYCLES_IMPLEMENTATION=$other used" &&
    pass info_wanted_counter_used || fail info_wanted_counter_used "$(echo "$w" | grep -E 'implementation|wanted')"
else
  skip info_wanted_counter_used "only one working counter here"
fi
# refused, the rule decides: that run's own choice is its smallest precision
# (a fresh run, so not necessarily the choice above: under qemu-user the
# emulator's timing can swap two counters of the same instruction)
w=$(CPUCYCLES_IMPLEMENTATION=no-such-counter $RUN "$PACKAGE/bin/cpucycles-info")
wbest=$(echo "$w" | awk '$2 == "tracesetup" && $6 > 0 && (best == "" || $6 < min) { min = $6; best = $4 } END { print best }')
echo "$w" | grep -q "^cpucycles implementation ${wbest:-default-zero}\$" &&
  echo "$w" | grep -q "^cpucycles wanted CPUCYCLES_IMPLEMENTATION=no-such-counter refused: " &&
  pass info_wanted_unknown_refused || fail info_wanted_unknown_refused "$(echo "$w" | grep -E 'implementation|wanted')"
# a name from outside cannot forge a line: a newline in it is not printed
w=$(CPUCYCLES_IMPLEMENTATION="x
cpucycles implementation forged" $RUN "$PACKAGE/bin/cpucycles-info")
echo "$w" | grep -q '^cpucycles implementation forged' &&
  fail info_wanted_name_cannot_forge_lines "$(echo "$w" | grep wanted)" || pass info_wanted_name_cannot_forge_lines
# asked for before the first call, the trace is printed by the first call
c=$(tmpdir)
cat > "$c/t.c" <<'C'
#include <stdio.h>
#include <cpucycles.h>
int main(void) { cpucycles_tracesetup(); printf("before the first call\n"); fflush(stdout); cpucycles(); return 0; }
C
if $CC $INC "$c/t.c" "$PACKAGE/lib/libcpucycles.a" -o "$c/t" $LIBPTHREAD > /dev/null 2>&1; then
  first=$($RUN "$c/t" | head -n 1)
  [ "$first" = "before the first call" ] && pass info_trace_printed_by_the_first_call ||
    fail info_trace_printed_by_the_first_call "first line: $first"
else
  fail info_trace_printed_by_the_first_call "does not build"
fi
rm -rf "$c"
