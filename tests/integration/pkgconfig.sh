# pkg-config against a DESTDIR install, and what that install holds.
#
# A packager runs `make install DESTDIR=$stage`: files land under
# $stage$PREFIX, but libcpucycles.pc says prefix=$PREFIX, the place the
# files will have once the package is installed.  To build against the
# staged copy, either tell pkg-config the stage is a sysroot
# (PKG_CONFIG_SYSROOT_DIR=$stage puts $stage in front of every -I and -L
# path) or override the prefix (--define-variable=prefix=$stage$PREFIX).
# Both are tried; each builds and runs a client.
. tests/lib.sh
both_libraries pkgconfig || exit 0
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
stage=$d/stage
root=$stage$PREFIX
# each part where configure put it (a packager's --libdir, --mandir...)
lib=$stage$LIBDIR inc=$stage$INCLUDEDIR man=$stage$MANDIR doc=$stage$DOCDIR bin=$stage$BINDIR

if ! make install DESTDIR="$stage" > "$d/install.log" 2>&1; then
  fail pkgconfig_destdir_install "$(tail -n 3 "$d/install.log")"
  exit 0
fi

# what the staged tree holds
ok=1
for f in "$inc/cpucycles.h" "$lib/libcpucycles.a" "$lib/libcpucycles.so.1" "$lib/libcpucycles.so" \
         "$lib/pkgconfig/libcpucycles.pc" "$man/man3/cpucycles.3" "$man/man3/cpucycles_persecond.3" \
         "$man/man3/cpucycles_implementation.3" "$man/man3/cpucycles_version.3" \
         "$man/man3/cpucycles_tracesetup.3" "$man/man1/cpucycles-info.1" \
         "$man/man1/cpucycles-open.1" "$doc/README.md" "$doc/LICENSE" "$doc/examples/measure.c"; do
  [ -e "$f" ] || { ok=0; echo "missing ${f#"$stage"}"; }
done
for f in doc/*.md; do
  [ -f "$f" ] || continue
  [ -f "$doc/${f#doc/}" ] || { ok=0; echo "missing $DOCDIR/${f#doc/}"; }
done
for c in $COMMANDS; do
  [ -x "$bin/$c" ] || { ok=0; echo "missing $BINDIR/$c"; }
done
[ $ok = 1 ] && pass destdir_install_holds_docs_man_pc || fail destdir_install_holds_docs_man_pc "see above"

# the .pc file names the final prefix, never the stage
pc=$lib/pkgconfig/libcpucycles.pc
grep -qx "prefix=$PREFIX" "$pc" && ! grep -q "$stage" "$pc" && pass pkgconfig_prefix_is_final ||
  fail pkgconfig_prefix_is_final "$(grep '^prefix' "$pc")"

if ! command -v pkg-config > /dev/null 2>&1; then
  skip pkgconfig_client "pkg-config is not installed"
  exit 0
fi
export PKG_CONFIG_PATH="$lib/pkgconfig"
unset PKG_CONFIG_LIBDIR

# client NAME FLAGS...: build tests/clients/client.c with FLAGS, run it
client() {
  name=$1; shift
  if ! $CC tests/clients/client.c "$@" -o "$d/$name" > "$d/$name.log" 2>&1; then
    fail "$name" "does not build with $*: $(head -n 2 "$d/$name.log")"
    return
  fi
  LD_LIBRARY_PATH=${libpath:-$lib} $RUN "$d/$name" "$name" > "$d/$name.out" 2>&1
  st=$?
  grep -E '^(pass|fail) ' "$d/$name.out"
  [ $st = 0 ] && grep -q "^info [a-z0-9-]* [0-9]\{8\}$" "$d/$name.out" && pass "$name" ||
    fail "$name" "status $st: $(tail -n 1 "$d/$name.out")"
}

flags=$(PKG_CONFIG_SYSROOT_DIR=$stage pkg-config --cflags --libs libcpucycles)
case "$flags" in
  *"-I$inc"*"-L$lib"*) pass pkgconfig_sysroot_flags ;;
  *) fail pkgconfig_sysroot_flags "got '$flags'" ;;
esac
client pkgconfig_sysroot_client $flags

flags=$(pkg-config --define-variable=prefix="$root" --cflags --libs libcpucycles)
client pkgconfig_define_prefix_client $flags

# another --libdir: Debian's multiarch directory and lib64.  The .pc file
# says where (libdir=${exec_prefix}/lib/x86_64-linux-gnu) and a client
# builds and runs against the staged copy.
pkgconfig_libdir() { # ID LIBDIR STAGE
  id=$1 libdir=$2 st=$3
  flags=$(PKG_CONFIG_PATH=$st/usr/$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$st pkg-config --cflags --libs libcpucycles)
  case "$flags" in
    *"-I$st/usr/include"*"-L$st/usr/$libdir "*|*"-I$st/usr/include"*"-L$st/usr/$libdir") ;;
    *) fail "pkgconfig_libdir_$id" "got '$flags'"; return ;;
  esac
  grep -qx "libdir=\${exec_prefix}/$libdir" "$st/usr/$libdir/pkgconfig/libcpucycles.pc" ||
    { fail "pkgconfig_libdir_$id" "$(grep '^libdir' "$st/usr/$libdir/pkgconfig/libcpucycles.pc")"; return; }
  libpath=$st/usr/$libdir
  client "pkgconfig_libdir_${id}_client" $flags
  libpath=
}
each_staged_libdir pkgconfig_libdir pkgconfig_libdir

v=$(sh scripts/version)
[ "$(pkg-config --modversion libcpucycles)" = "$v" ] && pass pkgconfig_modversion ||
  fail pkgconfig_modversion "$(pkg-config --modversion libcpucycles)"

make uninstall DESTDIR="$stage" > /dev/null 2>&1
left=$(find "$stage" -type f -o -type l | wc -l)
[ "$left" = 0 ] && pass destdir_uninstall_removes_all || fail destdir_uninstall_removes_all "$left files left"

# PREFIX given to make overrides configure's --prefix, for the files and
# for the .pc file alike (the docs step rewrites it; `make` puts it back).
trap 'make docs > /dev/null 2>&1; rm -rf "$d"' EXIT
other=/opt/cpucycles-test
make install PREFIX="$other" DESTDIR="$stage" > /dev/null 2>&1
# (LIBDIR moves with it where configure wrote it as $(PREFIX)/lib/...;
# an absolute --libdir=/usr/lib64, as %configure gives, stays)
olib=$(find "$stage" -name libcpucycles.so.1 | sed -n 's|/libcpucycles.so.1$||p' | head -n 1)
case "$olib" in "$stage$other"/*|"$stage$LIBDIR") moved=yes ;; *) moved=no ;; esac
if [ $moved = yes ] &&
   grep -qx "prefix=$other" "$olib/pkgconfig/libcpucycles.pc"; then
  pass make_prefix_override
else
  fail make_prefix_override "no files or wrong prefix under $stage$other"
fi
make uninstall PREFIX="$other" DESTDIR="$stage" > /dev/null 2>&1
left=$(find "$stage" -type f -o -type l | wc -l)
[ "$left" = 0 ] && pass make_prefix_override_uninstall || fail make_prefix_override_uninstall "$left files left"
