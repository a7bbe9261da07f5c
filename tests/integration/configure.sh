# configure's errors, --no-COUNTER, and a packager's one-line compiler list,
# each in a scratch copy of the tree so the real build/ stays untouched.
# test: long (several configure runs)
. tests/lib.sh
if [ -n "$SANITIZE" ]; then skip configure_checks "not under make test-sanitize"; exit 0; fi
if [ -n "$RUN" ]; then skip configure_checks "native only"; exit 0; fi
own_build_env
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
scratch_tree "$d"
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
native_triplet=$(gcc -dumpmachine 2> /dev/null || echo "$(uname -m)-linux-gnu")
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

# autoconf's language, as Debian's dh_auto_configure speaks it: the
# directories (some through ${prefix}), --build, and options that mean
# nothing here, ignored on one line
out=$(./configure --noclean --build="$native_triplet" --prefix=/usr '--includedir=${prefix}/include' \
  '--mandir=${prefix}/share/man' '--infodir=${prefix}/share/info' --sysconfdir=/etc --localstatedir=/var \
  --disable-option-checking --disable-silent-rules "--libdir=\${prefix}/lib/$native_triplet" \
  "--libexecdir=\${prefix}/lib/$native_triplet" --runstatedir=/run --disable-maintainer-mode \
  --disable-dependency-tracking 2>&1); st=$?
if [ $st = 0 ] && [ "$(echo "$out" | grep -c '^configure: ignored: ')" = 1 ] &&
   echo "$out" | grep '^configure: ignored: ' | grep -q -e '--runstatedir=/run .*--disable-dependency-tracking' &&
   grep -qx "libdir = \$(PREFIX)/lib/$native_triplet" build/0/config.mk &&
   grep -qx 'mandir = $(PREFIX)/share/man' build/0/config.mk &&
   grep -qx "LIBDIR='/usr/lib/$native_triplet'" build/0/config.sh; then
  pass configure_debian_arguments
else
  fail configure_debian_arguments "status $st: $(echo "$out" | head -n 3 | tr '\n' ' ') $(grep DIR build/0/config.mk | tr '\n' ' ')"
fi
# Fedora's %configure: --build and --host alike (a native build), every
# directory given, an empty --program-prefix; and the "--opt value" form
out=$(./configure --noclean --build "$native_triplet" --host "$native_triplet" --program-prefix= \
  --prefix=/usr --exec-prefix=/usr --bindir=/usr/bin --sbindir=/usr/sbin --sysconfdir=/etc \
  --datadir=/usr/share --includedir=/usr/include --libdir /usr/lib64 --libexecdir=/usr/libexec \
  --localstatedir=/var --sharedstatedir=/var/lib --mandir=/usr/share/man --infodir=/usr/share/info 2>&1); st=$?
if [ $st = 0 ] && grep -qx "LIBDIR='/usr/lib64'" build/0/config.sh && grep -qx "ARCH='$native'" build/0/config.sh &&
   ! echo "$out" | grep -q "$native_triplet-gcc"; then
  pass configure_fedora_arguments
else
  fail configure_fedora_arguments "status $st: $(echo "$out" | head -n 3 | tr '\n' ' ')"
fi
# what it cannot take, each said by name
refused() { # NAME WORD ARGS...: configure ARGS fails, naming WORD
  r_name=$1 r_word=$2; shift 2
  r_out=$(./configure --noclean "$@" 2>&1) && { fail "$r_name" "accepted $*"; return; }
  echo "$r_out" | grep '^configure: error:' | grep -qF -- "$r_word" && pass "$r_name" ||
    fail "$r_name" "$(echo "$r_out" | grep error)"
}
refused configure_misspelt_option_refused "'--libdri=/usr/lib'" --libdri=/usr/lib
refused configure_misspelt_variable_refused "'CFLAG'" CFLAG=-O2
refused configure_unknown_dir_variable_refused "--libdir='\${libdri}/x'" '--libdir=${libdri}/x'
refused configure_space_in_prefix_refused "--prefix '/opt/a b'" '--prefix=/opt/a b'
refused configure_relative_libdir_refused "--libdir must be an absolute path" --libdir=lib64
refused configure_missing_value_refused "'--libdir' needs a value" --libdir
refused configure_program_prefix_refused "--program-prefix=x-" --program-prefix=x-

# Homebrew: std_configure_args, and a versioned Cellar prefix with @, and
# ~ and , besides; a real install with DESTDIR puts the files there and
# the .pc file names it
cellar=/opt/homebrew/Cellar/libcpucycles@2/1.0~rc,1
if ./configure --noclean --disable-debug --disable-dependency-tracking --prefix="$cellar" \
     --libdir="$cellar/lib" > out 2>&1 && make install DESTDIR="$d/brew" > inst.log 2>&1 &&
   [ -x "$d/brew$cellar/bin/cpucycles-info" ] && [ -f "$d/brew$cellar/share/man/man3/cpucycles.3" ] &&
   grep -qx "prefix=$cellar" "$d/brew$cellar/lib/pkgconfig/libcpucycles.pc"; then
  pass configure_homebrew_cellar_prefix
else
  fail configure_homebrew_cellar_prefix "$(tail -n 3 out inst.log 2>/dev/null | tr '\n' ' ')"
fi

# --build other than --host: a cross build, the triplet's compiler first,
# and configure says how it runs what it builds (RUN = ...)
if command -v aarch64-linux-gnu-gcc > /dev/null 2>&1 && [ "$native" != arm64 ]; then
  out=$(./configure --build="$native_triplet" --host=aarch64-linux-gnu 2>&1); st=$?
  if [ $st = 0 ] && grep -qx "ARCH='arm64'" build/0/config.sh &&
     echo "$out" | grep -q '^configure: compiler CC=aarch64-linux-gnu-gcc' &&
     echo "$out" | grep -q '^configure: RUN = '; then
    pass configure_build_differs_from_host
  else
    fail configure_build_differs_from_host "status $st: $(echo "$out" | grep -e error -e RUN -e compiler | tr '\n' ' ')"
  fi
else
  skip configure_build_differs_from_host "no aarch64-linux-gnu-gcc (or this is arm64)"
fi

# re-running configure for another arch leaves this one alone
[ -d "build/$native/package" ] && pass configure_keeps_build_dir || fail configure_keeps_build_dir "gone"
