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

# then the trace's own lines (persecond-source, counter reasons, the class
# and the library's verdict in words), then the reference's persecond,
# implementation and iqm lines, in that order
p=$(echo "$out" | grep -n '^cpucycles persecond ' | head -n 1 | cut -d: -f1)
p=${p:-1}
extra='^cpucycles (persecond-source|wanted|counter|class|corecycles) '
echo "$out" | sed -n "$((n + 2)),$((p - 1))p" | grep -qvE "$extra" &&
  fail info_trace_extra_lines "$(echo "$out" | sed -n "$((n + 2)),$((p - 1))p" | grep -vE "$extra" | head -n 2)" ||
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
# only that exact name: not one it starts, nor one that starts it
w=$(env CPUCYCLES_IMPLEMENTATIONX=no-such-counter CPUCYCLES_IMPLEMENTATIO=no-such-counter $RUN "$PACKAGE/bin/cpucycles-info")
echo "$w" | grep -q '^cpucycles wanted' &&
  fail info_wanted_exact_name_only "$(echo "$w" | grep wanted)" || pass info_wanted_exact_name_only
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
  o=$($RUN "$c/t")
  first=$(echo "$o" | head -n 1)
  [ "$first" = "before the first call" ] && pass info_trace_printed_by_the_first_call ||
    fail info_trace_printed_by_the_first_call "first line: $first"
  # a program's trace is the reference's lines only (issue 39: a program
  # that writes CSV after them); the environment asks for the reasons
  rest=$(echo "$o" | sed 1d)
  [ "$(echo "$rest" | grep -c '^cpucycles tracesetup ')" = "$n" ] &&
    [ "$(echo "$rest" | wc -l)" = "$n" ] && pass info_program_trace_reference_lines_only ||
    fail info_program_trace_reference_lines_only "$(echo "$rest" | grep -v tracesetup | head -n 2)"
  CPUCYCLES_TRACE_REASONS=1 $RUN "$c/t" | grep -q '^cpucycles counter ' &&
    pass info_program_trace_reasons_asked || fail info_program_trace_reasons_asked "no counter lines"
else
  fail info_trace_printed_by_the_first_call "does not build"
fi
rm -rf "$c"

# The report ends with the summary in words, which agrees with the class
# line: core cycles for core and core32, a clock's ticks otherwise.
last=$(echo "$out" | tail -n 1)
ki=$(echo "$out" | sed -n 's/^cpucycles class [^ ]* \([a-z0-9]*\).*/\1/p')
case "$ki:$last" in
  core*:"cpucycles summary $impl counts the core's cycles"*) pass info_summary_last ;;
  maybecore:"cpucycles summary $impl counts a time-stamp counter's ticks at "*) pass info_summary_last ;;
  offcore:"cpucycles summary $impl counts a clock's ticks "*) pass info_summary_last ;;
  none:"cpucycles summary $impl counts nothing"*) pass info_summary_last ;;
  *) fail info_summary_last "class $ki, last line: $last" ;;
esac

# What the chosen counter counts: the trace's class line names the
# implementation and comes right after the counter lines; the corecycles
# line follows it and matches the class (tests/unit/trace.c has the words
# of every class, on fake counters).
class_ok() { # OUTPUT: class line and verdict agree; prints what is wrong
  o=$1
  cl=$(echo "$o" | grep '^cpucycles class ')
  im=$(echo "$o" | sed -n 's/^cpucycles implementation //p')
  ki=$(echo "$cl" | awk '{ print $4 }')
  cc=$(echo "$o" | grep '^cpucycles corecycles ')
  [ "$(echo "$cl" | wc -l)" = 1 ] && [ "$(echo "$cc" | wc -l)" = 1 ] || { echo "class: '$cl' corecycles: '$cc'"; return; }
  [ "$(echo "$cl" | awk '{ print $3 }')" = "$im" ] || { echo "class line '$cl', implementation $im"; return; }
  echo "$o" | sed -n "$((n + 2)),\$p" | grep -v '^cpucycles counter ' | sed -n 1,3p | grep -q '^cpucycles class ' ||
    { echo "class line not right after the counter lines"; return; }
  [ "$(echo "$o" | grep -A 1 '^cpucycles class ' | cut -d' ' -f2 | tr '\n' ' ')" = "class corecycles " ] ||
    { echo "the corecycles line does not follow the class line"; return; }
  case "$ki" in
    core|core32) echo "$cc" | grep -q '^cpucycles corecycles yes: ' || echo "class $ki, but '$cc'" ;;
    offcore|maybecore|none) echo "$cc" | grep -q '^cpucycles corecycles yes: ' && echo "class $ki, but '$cc'" ;;
    *) echo "unknown class '$ki'" ;;
  esac
}
bad=$(class_ok "$out")
[ -z "$bad" ] && pass info_class_in_words || fail info_class_in_words "$bad"

# every counter that works here, chosen on purpose: its class follows from
# what it reads (a clock is never called core cycles, a cycle counter never
# a clock), and the words follow the class
ok=1
for name in $(echo "$traces" | awk '$6 > 0 { print $4 }'); do
  w=$(CPUCYCLES_IMPLEMENTATION=$name $RUN "$PACKAGE/bin/cpucycles-info")
  echo "$w" | grep -q "^cpucycles implementation $name\$" || continue # refused in this run
  bad=$(class_ok "$w")
  [ -z "$bad" ] || { ok=0; echo "$name: $bad"; }
  ki=$(echo "$w" | sed -n 's/^cpucycles class [^ ]* \([a-z0-9]*\).*/\1/p')
  case "$name:$ki" in
    *tsc*:core*|*vct:core*|*mftb:core*|*stckf:core*|*rdtime:core*|default-monotonic:core*|default-gettimeofday:core*|default-mach:core*)
      ok=0; echo "$name: a clock classed $ki" ;;
    *perf*:*off*|*pmc*:*off*|*rdcycle:*off*|*rdtick:*off*|arm32-*:*off*|mips64-cc:*off*|*perf*:maybe*|*pmc*:maybe*)
      ok=0; echo "$name: a cycle counter classed $ki" ;;
  esac
  case "$name" in
    *perf*|*pmc*|*rdcycle|*rdtick|arm32-*|mips64-cc)
      echo "$w" | grep -q "^cpucycles corecycles yes: $name " || { ok=0; echo "$name: no 'corecycles yes'"; } ;;
    *)
      echo "$w" | grep -q "^cpucycles corecycles CPUCYCLES_IMPLEMENTATION chose $name" ||
        { ok=0; echo "$name: the forced clock's corecycles line does not name the variable"; } ;;
  esac
done
[ $ok = 1 ] && pass info_class_of_each_working_counter || fail info_class_of_each_working_counter "see above"

# This machine's case: an amd64 guest without a PMU chooses the TSC, an
# off-core clock, and is told that no core cycle counter can work here
if [ "$ARCH" = amd64 ] && [ -z "$RUN" ] && grep -q hypervisor /proc/cpuinfo 2>/dev/null &&
   ! ls /sys/bus/event_source/devices/cpu/events >/dev/null 2>&1; then
  echo "$out" | grep -qE '^cpucycles class amd64-tsc(asm)? (maybecore|offcore rate)' &&
    pass info_guest_tsc_is_an_off_core_clock || fail info_guest_tsc_is_an_off_core_clock "$(echo "$out" | grep '^cpucycles class')"
  # a probe sees the missing PMU (CPUID leaf 0xA on Intel, perf's ENOENT)
  # unless perf refused first (EACCES for a user at paranoid 3, as on an
  # AMD guest run by a user): then nothing can tell, and this is a skip
  if ! echo "$out" | grep '^cpucycles counter ' | grep -q 'no PMU exposed'; then
    skip info_guest_says_no_pmu "no probe could see the missing PMU here (perf refused before asking)"
  elif echo "$out" | grep -q '^cpucycles corecycles not here: no PMU is exposed here, so no core cycle counter can work'; then
    pass info_guest_says_no_pmu
  else
    fail info_guest_says_no_pmu "$(echo "$out" | grep '^cpucycles corecycles')"
  fi
  echo "$out" | grep '^cpucycles counter ' | grep -q 'PMC version 0\|< 3' &&
    fail info_no_pmu_in_words "$(echo "$out" | grep 'PMC version 0')" || pass info_no_pmu_in_words
else
  skip info_guest_tsc_is_an_off_core_clock "not an amd64 guest without a PMU"
fi

# a FIFO in place of /proc/cpuinfo (or the DMI name) blocks whoever opens
# or reads it: cpucycles-info reads only regular files, as the library does
if [ -n "$RUN" ]; then
  skip info_fifo_cpuinfo_no_hang "emulated: qemu-user answers /proc/cpuinfo itself"
elif [ "$(id -u)" != 0 ] || ! command -v unshare > /dev/null 2>&1; then
  skip info_fifo_cpuinfo_no_hang "needs root and unshare(1) to mount a FIFO over /proc/cpuinfo"
else
  d=$(mktemp -d) && mkfifo "$d/fifo" &&
    out=$(unshare -m sh -c "mount --bind '$d/fifo' /proc/cpuinfo && mount --bind '$d/fifo' /sys/class/dmi/id/product_name 2> /dev/null; timeout 30 '$PACKAGE/bin/cpucycles-info'" 2>&1)
  st=$?
  rm -rf "$d"
  if [ $st = 0 ] && echo "$out" | grep -q '^cpucycles machine cpu unknown'; then
    pass info_fifo_cpuinfo_no_hang
  elif [ $st = 124 ]; then
    fail info_fifo_cpuinfo_no_hang "hung on the FIFO (killed after 30 s)"
  else
    fail info_fifo_cpuinfo_no_hang "status $st: $(echo "$out" | grep -m1 'machine cpu\|mount')"
  fi
fi

# --version prints one line, the library's version
v=$($RUN "$PACKAGE/bin/cpucycles-info" --version 2> /dev/null); vs=$?
want=$(sh scripts/version)
if [ $vs = 0 ] && [ "$v" = "cpucycles-info $want" ]; then
  pass info_version_option
else
  fail info_version_option "status $vs: '$v' (want 'cpucycles-info $want')"
fi
# --help says how to use it and exits 0; anything else is refused, status 2
h=$($RUN "$PACKAGE/bin/cpucycles-info" --help 2> /dev/null); hs=$?
$RUN "$PACKAGE/bin/cpucycles-info" --bogus > "${TMPDIR:-/tmp}/info-bogus.$$" 2>&1; bs=$?
b=$(cat "${TMPDIR:-/tmp}/info-bogus.$$"); rm -f "${TMPDIR:-/tmp}/info-bogus.$$"
if [ $hs = 0 ] && echo "$h" | grep -q '^usage: cpucycles-info' && ! echo "$h" | grep -q '^cpucycles version'; then
  pass info_help_usage
else
  fail info_help_usage "status $hs: $(echo "$h" | head -n 1)"
fi
if [ $bs = 2 ] && echo "$b" | grep -q "unknown argument '--bogus'" && ! echo "$b" | grep -q '^cpucycles version'; then
  pass info_unknown_argument_refused
else
  fail info_unknown_argument_refused "status $bs: $(echo "$b" | head -n 1)"
fi
# a known option followed by another argument: that one is named, status
# 2; --help whose output is lost: status 1
b=$($RUN "$PACKAGE/bin/cpucycles-info" --version --bogus 2>&1); bs=$?
if [ -w /dev/full ]; then
  $RUN "$PACKAGE/bin/cpucycles-info" --help > /dev/full 2>&1; fs=$?
else
  fs=1
fi
if [ $bs = 2 ] && echo "$b" | grep -q "unknown argument '--bogus'" && [ $fs = 1 ]; then
  pass info_extra_argument_named
else
  fail info_extra_argument_named "status $bs: $(echo "$b" | head -n 1); --help to /dev/full: status $fs"
fi
