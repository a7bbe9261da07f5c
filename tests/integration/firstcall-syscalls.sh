# Issue 38: the first call on amd64 without a PMU asks the kernel at most
# 6 things besides reading the files that state the rate (doc/selection.md
# step 1: /etc/cpucyclespersecond, cpufreq, /proc/cpuinfo): the signal
# mask held and put back, PR_GET_TSC once, the thread's id and the fd
# limit for the perf slot, one perf_event_open (its refusal kept for the
# selection's other perf counters).  Counted by strace between the first
# call's SIG_BLOCK and its SIG_SETMASK; not timed.  SKIP where a cycles
# event opens (then the perf counters set up for real).
. tests/lib.sh
name=firstcall_system_calls
if [ -n "$RUN" ]; then skip $name "runs only natively (strace under $RUN)"; exit 0; fi
case "$ARCH" in
  amd64) ;;
  *) skip $name "counted on amd64 (this is $ARCH)"; exit 0 ;;
esac
if ! command -v strace > /dev/null 2>&1; then skip $name "strace is not installed"; exit 0; fi
if ! strace -f -o /dev/null true > /dev/null 2>&1; then skip $name "ptrace is not permitted here"; exit 0; fi
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
if ! $CC $INC tests/clients/firstcall.c "$PACKAGE/lib/libcpucycles.a" -o "$d/firstcall" $LIBPTHREAD > "$d/log" 2>&1; then
  fail $name "the client does not build: $(head -n 3 "$d/log" | tr '\n' ' ')"
  exit 1
fi
files='newfstatat,stat,statx,lstat,openat,open,read,close,fstat,lseek'
strace -o "$d/trace" -e "trace=!$files" "$d/firstcall"
sed -n '/rt_sigprocmask(SIG_BLOCK/,/rt_sigprocmask(SIG_SETMASK/p' "$d/trace" > "$d/first"
n=$(wc -l < "$d/first" | tr -d ' ')
calls=$(sed 's/(.*//' "$d/first" | tr '\n' ' ')
if grep -q '^perf_event_open(.*= [0-9]' "$d/first"; then
  skip $name "a cycles event opens here: the perf counters set up for real ($n calls: $calls)"
elif [ "$n" -ge 2 ] && [ "$n" -le 6 ]; then
  pass "$name ($n: $calls)"
else
  fail $name "$n system calls besides the rate's files (want at most 6): $calls"
fi
