# valgrind memcheck: cpucycles-info and a client run with zero errors.
. tests/lib.sh
if [ -n "$SANITIZE" ]; then skip valgrind "not under make test-sanitize"; exit 0; fi
if [ -n "$RUN" ]; then skip valgrind "native only"; exit 0; fi
command -v valgrind > /dev/null 2>&1 || { skip valgrind "valgrind not installed"; exit 0; }
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
vg() {
  valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
    --track-fds=yes "$@" > "$d/out" 2> "$d/err"
}
if vg "$PACKAGE/bin/cpucycles-info" && ! grep -q 'ERROR SUMMARY: [1-9]' "$d/err"; then
  pass valgrind_cpucycles_info
else
  fail valgrind_cpucycles_info "$(head -n 5 "$d/err" | tr '\n' ' ')"
fi
$CC -I"$PACKAGE/include" tests/clients/noheader.c "$PACKAGE/lib/libcpucycles.a" -o "$d/client" || { fail valgrind_client "does not build"; exit 1; }
if vg "$d/client" && ! grep -q 'ERROR SUMMARY: [1-9]' "$d/err"; then
  pass valgrind_client
else
  fail valgrind_client "$(head -n 5 "$d/err" | tr '\n' ' ')"
fi
# --track-fds: no descriptor of ours left open at exit beyond stdio
if grep -q 'Open file descriptor [3-9]' "$d/err"; then
  fail valgrind_no_fd_left_open "$(grep 'Open file descriptor' "$d/err" | head -n 3 | tr '\n' ' ')"
else
  pass valgrind_no_fd_left_open
fi
