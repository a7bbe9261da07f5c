# On an amd64 guest without a PMU (like the CI machine) every perf counter
# is listed with precision 0 and cpucycles-info says why in plain words.
. tests/lib.sh
if ! { [ "$ARCH" = amd64 ] && [ -z "$RUN" ] && grep -q hypervisor /proc/cpuinfo 2>/dev/null &&
       ! ls /sys/bus/event_source/devices/cpu/events > /dev/null 2>&1; }; then
  skip perfinfo "not an amd64 guest without a PMU"
  exit 0
fi
out=$("$PACKAGE/bin/cpucycles-info") || { fail perfinfo_runs "exit status $?"; exit 1; }
for name in $COUNTERS; do
  case "$name" in *perf*|*pmc*) ;; *) continue ;; esac
  echo "$out" | grep -qE "^cpucycles tracesetup [0-9]+ $name precision 0 " &&
    pass "perfinfo_${name}_precision_0" || fail "perfinfo_${name}_precision_0" "$(echo "$out" | grep " $name ")"
  why=$(echo "$out" | grep "^cpucycles counter $name " | sed -n 's/.*setup skipped; //p')
  [ -n "$why" ] && pass "perfinfo_${name}_says_why: $why" || fail "perfinfo_${name}_says_why" "$(echo "$out" | grep "counter $name ")"
done
