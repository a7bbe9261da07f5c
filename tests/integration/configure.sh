# configure's errors, --no-COUNTER, and a packager's one-line compiler list,
# each in a scratch copy of the tree so the real build/ stays untouched.
# test: long (several configure runs)
. tests/lib.sh
if [ -n "$SANITIZE" ]; then skip configure_checks "not under make test-sanitize"; exit 0; fi
if [ -n "$RUN" ]; then skip configure_checks "native only"; exit 0; fi
own_build_env
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
tar cf - configure Makefile include cpucycles wrapper command compilers scripts doc README.md 2>/dev/null | (cd "$d" && tar xf -)
cd "$d" || exit 1

out=$(./configure --frobnicate 2>&1); st=$?
[ $st = 1 ] && echo "$out" | grep -q "unknown option '--frobnicate'" &&
  pass configure_unknown_option_is_error || fail configure_unknown_option_is_error "status $st: $out"
out=$(./configure --prefix=relative/dir 2>&1); st=$?
[ $st = 1 ] && echo "$out" | grep -q "absolute" &&
  pass configure_relative_prefix_is_error || fail configure_relative_prefix_is_error "status $st: $out"
out=$(./configure --host=vax 2>&1); st=$?
[ $st = 1 ] && echo "$out" | grep -q "unknown host" &&
  pass configure_unknown_host_is_error || fail configure_unknown_host_is_error "status $st: $out"
out=$(./configure --no-default-zero 2>&1); st=$?
[ $st = 1 ] && pass configure_default_zero_stays || fail configure_default_zero_stays "status $st"

native=$(sh scripts/hostarch "$(uname -m)")
victim=$(grep "^$native-" cpucycles/options | tail -n 1)
[ -n "$victim" ] || victim=default-gettimeofday
# the same run: a counter that compiles but does not link with the
# support code is skipped (each is then tried alone to find it), and the
# others stay
cp cpucycles/default-gettimeofday.c saved.c
echo 'int cpucycles_test_unlinkable(void) { extern int cpucycles_no_such_symbol; return cpucycles_no_such_symbol; }' >> cpucycles/default-gettimeofday.c
./configure --no-"$victim" > out 2>&1
if grep -q "leaving out $victim" out && ! grep -q "\"$victim\"" "build/$native/counters.c" &&
   [ -f configure.log ] && [ "$(readlink build/0)" = "$native" ]; then
  pass configure_no_counter_leaves_it_out
else
  fail configure_no_counter_leaves_it_out "$(cat out)"
fi
if grep -q '^configure: skipping default-gettimeofday: it does not compile' out &&
   grep -q '^configure: counter default-zero$' out && ! grep -q '"default-gettimeofday"' build/0/counters.c &&
   grep -q '"default-zero"' build/0/counters.c; then
  pass configure_unlinkable_counter_skipped
else
  fail configure_unlinkable_counter_skipped "$(grep -E 'counter|skipping' out | tr '\n' ' ')"
fi
mv saved.c cpucycles/default-gettimeofday.c

# a packager's single compiler line without -fPIC
echo 'cc -O2 -fwrapv -fvisibility=hidden' > compilers/default
if ./configure --prefix="$d/prefix" > out 2>&1 && make -j8 > make.log 2>&1 && make install > inst.log 2>&1; then
  rm -f "$d/prefix/lib/"*.a
  if "$d/prefix/bin/cpucycles-info" | grep -q '^cpucycles implementation '; then
    pass configure_packager_one_line_compiler
  else
    fail configure_packager_one_line_compiler "cpucycles-info does not work"
  fi
  m=$(ls -l "$d/prefix/include/cpucycles.h" | cut -c1-10)
  p=$(ls -l "$d/prefix/bin/cpucycles-info" | cut -c1-10)
  [ "$m" = "-rw-r--r--" ] && [ "$p" = "-rwxr-xr-x" ] && pass install_modes || fail install_modes "header $m, program $p"
  make uninstall > /dev/null 2>&1
  left=$(find "$d/prefix" -type f 2> /dev/null | wc -l)
  [ "$left" = 0 ] && pass uninstall_removes_files || fail uninstall_removes_files "$left files left"
else
  fail configure_packager_one_line_compiler "$(tail -n 5 out make.log inst.log 2>/dev/null)"
fi

# re-running configure for another arch leaves this one alone
[ -d "build/$native/package" ] && pass configure_keeps_build_dir || fail configure_keeps_build_dir "gone"
