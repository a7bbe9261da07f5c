# Fault injection on the real binaries: strace makes perf_event_open fail
# with each errno the kernel can give (and, with when=2+, fail only from
# the second call on).  cpucycles-info must still pick a counter and exit
# 0; the perffds client must have no perf fd open after selection except
# the chosen counter's, and a fork+exec child must inherit none.
. tests/lib.sh
if [ -n "$RUN" ]; then skip faults "runs only natively (strace under $RUN)"; exit 0; fi
case "$COUNTERS" in
  *perf*) ;;
  *) skip faults "no perf counter in this build"; exit 0 ;;
esac
if ! command -v strace > /dev/null 2>&1; then skip faults "strace is not installed"; exit 0; fi
if ! strace -f -o /dev/null true > /dev/null 2>&1; then skip faults "ptrace is not permitted here"; exit 0; fi
if ! strace -o /dev/null -e inject=perf_event_open:error=ENOENT true > /dev/null 2>&1; then
  skip faults "this strace cannot inject errors"; exit 0
fi

d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
if ! $CC $INC -Itests tests/clients/perffds.c tests/fakeos.c "$PACKAGE/lib/libcpucycles.a" -o "$d/perffds" > "$d/log" 2>&1; then
  fail perffds_builds "$(head -n 3 "$d/log")"
  exit 1
fi

# perffds OUTPUT: the chosen counter may keep its fds (perf-based ones do),
# every other perf fd must be gone, and the child must see none
fds_ok() {
  n=$(sed -n 's/^perffds \([0-9-]*\) .*/\1/p' "$1")
  impl=$(sed -n 's/^perffds [0-9-]* implementation //p' "$1")
  child=$(sed -n 's/^child //p' "$1")
  case "$impl" in
    *perf*) most=2 ;;
    *) most=0 ;;
  esac
  [ -n "$n" ] && [ "$n" -ge 0 ] && [ "$n" -le "$most" ] && [ "$child" = 0 ]
}

# without faults: software events make the perf counters really open fds
"$d/perffds" software > "$d/out" 2>&1
if [ $? = 0 ] && fds_ok "$d/out"; then
  pass "perffds_no_leak ($(head -n 1 "$d/out"))"
else
  fail perffds_no_leak "$(tr '\n' ' ' < "$d/out")"
fi
# a chosen perf counter keeps its fd, and the exec'd child does not get it
"$d/perffds" perfonly > "$d/out" 2>&1
if [ $? = 0 ] && fds_ok "$d/out" && grep -q '^perffds [12] implementation .*perf' "$d/out"; then
  pass "perffds_chosen_kept_child_inherits_none ($(tr '\n' ' ' < "$d/out"))"
else
  fail perffds_chosen_kept_child_inherits_none "$(tr '\n' ' ' < "$d/out")"
fi

for fault in error=EPERM error=EACCES error=ENOENT error=ENODEV error=ENOSYS error=EINVAL error=EMFILE \
             error=EACCES:when=2+; do
  tag=$(echo "$fault" | tr ':=+' '___')
  strace -f -o "$d/trace" -e trace=perf_event_open -e inject=perf_event_open:$fault \
    "$PACKAGE/bin/cpucycles-info" > "$d/info" 2>&1
  status=$?
  impl=$(sed -n 's/^cpucycles implementation //p' "$d/info")
  injected=$(grep -c 'perf_event_open.*(INJECTED)' "$d/trace")
  if [ $status = 0 ] && [ -n "$impl" ] && [ "$impl" != default-zero ]; then
    pass "info_under_$tag (chose $impl, $injected calls failed by injection)"
  else
    fail "info_under_$tag" "status $status, implementation '$impl'"
  fi
  # (with when=2+ and no PMU, the library asks once: the kernel's ENOENT is
  # remembered, so there is no second call to fail; the perffds run below,
  # where the events exist, is the one that must see injections)
  case "$fault" in
    *when*) ;;
    *) [ "$injected" -gt 0 ] && ! grep perf_event_open "$d/trace" | grep -qv INJECTED ||
         fail "info_under_$tag" "a perf_event_open call got through" ;;
  esac
  strace -f -o "$d/trace" -e trace=perf_event_open -e inject=perf_event_open:$fault \
    "$d/perffds" perfonly > "$d/out" 2>&1
  status=$?
  injected=$(grep -c 'perf_event_open.*(INJECTED)' "$d/trace")
  if [ "$injected" = 0 ]; then
    fail "perffds_under_$tag" "nothing was injected"
  elif [ $status = 0 ] && fds_ok "$d/out"; then
    pass "perffds_under_$tag ($(head -n 1 "$d/out"))"
  else
    fail "perffds_under_$tag" "status $status: $(tr '\n' ' ' < "$d/out")"
  fi
done
