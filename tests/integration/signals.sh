# On Linux x86, whether RDTSC and RDPMC may run is known without trying
# (prctl PR_GET_TSC, the rdpmc sysfs files, the perf page), so the first
# call installs no signal handler at all: strace sees no rt_sigaction
# beyond what the same program makes without the first call.
. tests/lib.sh
if [ -n "$RUN" ]; then skip signals_first_call_installs_no_handler "runs only natively (strace under $RUN)"; exit 0; fi
case "$ARCH" in
  amd64|x86) ;;
  *) skip signals_first_call_installs_no_handler "$ARCH has counters whose reads may trap: those are guarded"; exit 0 ;;
esac
if ! command -v strace > /dev/null 2>&1; then skip signals_first_call_installs_no_handler "strace is not installed"; exit 0; fi
if ! strace -f -o /dev/null true > /dev/null 2>&1; then skip signals_first_call_installs_no_handler "ptrace is not permitted here"; exit 0; fi
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
if ! $CC $INC tests/clients/firstcall.c "$PACKAGE/lib/libcpucycles.a" -o "$d/firstcall" $LIBPTHREAD > "$d/log" 2>&1; then
  fail signals_builds "$(head -n 3 "$d/log")"
  exit 1
fi
strace -f -o "$d/none" -e trace=rt_sigaction,rt_sigprocmask "$d/firstcall" none
strace -f -o "$d/first" -e trace=rt_sigaction,rt_sigprocmask "$d/firstcall"
none=$(grep -c rt_sigaction "$d/none")
first=$(grep -c rt_sigaction "$d/first")
masks=$(( $(grep -c rt_sigprocmask "$d/first") - $(grep -c rt_sigprocmask "$d/none") ))
impl=$(CPUCYCLES_IMPLEMENTATION= "$PACKAGE/bin/cpucycles-info" | sed -n 's/^cpucycles implementation //p')
if [ "$first" = "$none" ]; then
  pass "signals_first_call_installs_no_handler (chose $impl; rt_sigaction $first, as without the call)"
else
  fail signals_first_call_installs_no_handler "rt_sigaction $first with the first call, $none without"
fi
# the first call blocks signals while it selects (doc/api.md) and puts
# the caller's mask back: one SIG_BLOCK, then SIG_SETMASK of what it got
block=$(sed -n 's/.*rt_sigprocmask(SIG_BLOCK, [^,]*, \(\[[^]]*\]\),.*/\1/p' "$d/first" | head -n 1)
back=$(sed -n 's/.*rt_sigprocmask(SIG_SETMASK, \(\[[^]]*\]\),.*/\1/p' "$d/first" | tail -n 1)
if [ "$masks" = 2 ] && [ -n "$block" ] && [ "$block" = "$back" ]; then
  pass "signals_first_call_mask_put_back (blocked while selecting, then $back again)"
else
  fail signals_first_call_mask_put_back "$masks more rt_sigprocmask; mask before '$block', put back '$back'"
fi
