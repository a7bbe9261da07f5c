# make clean keeps the configuration, make distclean removes it, both run
# twice and unconfigured; make uninstall works after make clean; make
# before configure says so and builds nothing; configure from another
# directory says how.  In a scratch copy of the tree.
# test: long (two builds)
. tests/lib.sh
if [ -n "$SANITIZE" ]; then skip clean "not under make test-sanitize"; exit 0; fi
if [ -n "$RUN" ]; then skip clean "native only"; exit 0; fi
own_build_env
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
t=$d/tree
mkdir "$t"
scratch_tree "$t"
cd "$t" || exit 1

# unconfigured
ok=1
for target in clean distclean clean distclean; do
  make "$target" > out 2>&1 || { ok=0; echo "make $target unconfigured: $(tail -n 1 out)"; }
done
[ $ok = 1 ] && pass clean_unconfigured_exits_0 || fail clean_unconfigured_exits_0 "see above"
for target in all install uninstall test; do
  make -j2 "$target" > out 2>&1
  st=$?
  if [ $st = 0 ] || ! grep -q 'run ./configure first' out || [ -e build ]; then
    ok=0; echo "make $target unconfigured: status $st, $(grep -c . out) lines: $(head -n 2 out)"
  fi
done
[ $ok = 1 ] && pass make_unconfigured_says_configure || fail make_unconfigured_says_configure "see above"

# configure elsewhere: it builds there (../configure from a build
# directory), and writes nothing into the tree
mkdir "$d/elsewhere"
out=$(cd "$d/elsewhere" && sh "$t/configure" --prefix=/opt/x 2>&1); st=$?
if [ $st = 0 ] && [ -f "$d/elsewhere/build/0/config.mk" ] && [ -f "$d/elsewhere/configure.log" ] &&
   [ "$(readlink "$d/elsewhere/cpucycles")" = "$(cd -P "$t" && pwd)/cpucycles" ] &&
   [ ! -e build ] && [ ! -e configure.log ]; then
  pass configure_elsewhere_builds_there
else
  fail configure_elsewhere_builds_there \
    "status $st: $(echo "$out" | tail -n 2); in the tree: $(ls -d build configure.log 2>/dev/null)"
fi

p=$d/prefix
if ! { ./configure --prefix="$p" > conf.out 2>&1 && make -j2 > make.out 2>&1 && make install > inst.out 2>&1; }; then
  fail clean_keeps_configuration "build: $(tail -n 3 conf.out make.out inst.out)"
  exit 0
fi
make clean > out 2>&1
if [ -f build/0/config.mk ] && [ -f build/0/rules.mk ] && [ -f build/0/config.sh ] &&
   [ ! -e build/0/package ] && [ ! -e build/0/obj ]; then
  pass clean_keeps_configuration
else
  fail clean_keeps_configuration "$(ls build/0)"
fi
make clean > out 2>&1 && pass clean_twice || fail clean_twice "$(tail -n 2 out)"
if make uninstall > out 2>&1 && [ ! -e "$p" ]; then
  pass uninstall_after_clean
else
  fail uninstall_after_clean "$(tail -n 2 out); left: $(find "$p" 2>/dev/null | head -n 5)"
fi
if make -j2 > make.out 2>&1 && build/0/package/bin/cpucycles-info | grep -q '^cpucycles implementation '; then
  pass make_after_clean_without_configure
else
  fail make_after_clean_without_configure "$(tail -n 3 make.out)"
fi
make distclean > out 2>&1
if [ ! -e build ] && [ ! -e configure.log ] && make distclean > out 2>&1; then
  pass distclean_removes_everything_twice
else
  fail distclean_removes_everything_twice "$(ls -d build configure.log 2>/dev/null) $(tail -n 1 out)"
fi
