# valgrind memcheck: cpucycles-info and a client run with zero errors, and
# leave no fd open at exit that they opened themselves, except the chosen
# counter's (a perf counter keeps its events to the end: nothing is taken
# back at exit).  Fds the caller passed in are not ours: valgrind marks
# them "<inherited from parent>", so `make test 3>/tmp/x` holds too.  A
# program that leaks one fd on purpose shows the check can see a leak.
. tests/lib.sh
if [ -n "$SANITIZE" ]; then skip valgrind "not under make test-sanitize"; exit 0; fi
if [ -n "$RUN" ]; then skip valgrind "native only"; exit 0; fi
command -v valgrind > /dev/null 2>&1 || { skip valgrind "valgrind not installed"; exit 0; }
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
# (valgrind writes its own temporary files to $TMPDIR: give it ours)
vg() { # vg NAME PROGRAM...: memcheck, with the fds at exit in $d/NAME.err
  name=$1
  shift
  TMPDIR=$d valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
    --track-fds=yes "$@" < /dev/null > "$d/$name.out" 2> "$d/$name.err"
}
# ours FILE COUNTER: the fds open at exit that the program opened itself,
# less those the setup of COUNTER (the chosen one) opened
ours() {
  awk -v keep="cpucycles_$(echo "$2" | tr - _)_setup" '
    function flush() { if (open != "" && !inherited && !kept) print open; open = "" }
    { sub(/^==[0-9]+==[ ]?/, "") }
    /^Open (file descriptor|AF_[A-Za-z0-9]+ socket)/ { flush(); open = $0; inherited = 0; kept = 0; next }
    open != "" && /<inherited from parent>/ { inherited = 1 }
    open != "" && index($0, keep) { kept = 1 }
    open != "" && /^$/ { flush() }
    END { flush() }' "$1"
}
memcheck() { # NAME: the run said nothing and exited 0
  if [ "$status" = 0 ] && ! grep -q 'ERROR SUMMARY: [1-9]' "$d/$1.err"; then
    pass "valgrind_$1"
  else
    fail "valgrind_$1" "status $status: $(head -n 5 "$d/$1.err" | tr '\n' ' ')"
  fi
}

# stdio is always open (valgrind does not list fds 0-2, so a leak must not
# land there), and fd 9 is passed in, so an inherited fd is always there to
# be ignored
vg cpucycles_info "$PACKAGE/bin/cpucycles-info" 9< /dev/null
status=$?
memcheck cpucycles_info
info_chosen=$(sed -n 's/^cpucycles implementation //p' "$d/cpucycles_info.out")

$CC -I"$PACKAGE/include" tests/clients/chosen.c "$PACKAGE/lib/libcpucycles.a" -o "$d/client" ||
  { fail valgrind_client "does not build"; exit 1; }
vg client "$d/client" 9< /dev/null
status=$?
memcheck client
client_chosen=$(sed -n 's/^chosen //p' "$d/client.out")

# the check itself: a program that leaks one fd must be seen
printf '#include <fcntl.h>\nint main(void) { return open("/dev/null", O_RDONLY) < 0; }\n' > "$d/leak.c"
if $CC "$d/leak.c" -o "$d/leak" && vg leak "$d/leak" 9< /dev/null &&
   [ "$(ours "$d/leak.err" none | wc -l)" = 1 ]; then
  pass valgrind_fd_check_sees_a_leak
else
  fail valgrind_fd_check_sees_a_leak "$(ours "$d/leak.err" none | head -n 3 | tr '\n' ' ') in: $(head -n 8 "$d/leak.err" | tr '\n' ' ')"
fi

left=$(ours "$d/cpucycles_info.err" "$info_chosen"; ours "$d/client.err" "$client_chosen")
if [ -z "$info_chosen" ] || [ -z "$client_chosen" ]; then
  fail valgrind_no_fd_left_open "no chosen counter named (info: '$info_chosen', client: '$client_chosen')"
elif [ -n "$left" ]; then
  fail valgrind_no_fd_left_open "$(echo "$left" | head -n 3 | tr '\n' ' ')(chosen $info_chosen, $client_chosen)"
else
  pass "valgrind_no_fd_left_open (chosen $info_chosen, $client_chosen)"
fi
