# scripts/install (make install, make uninstall) in temporary prefixes:
# the install list matches the package tree; uninstall removes the
# directories install created, once empty, and never one that held
# anything before or holds anything else; the next step after install
# (ldconfig, or the search-path variables) is run or said.
. tests/lib.sh
both_libraries install || exit 0
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
# install's records of the directories it made stay in the scratch directory
export CPUCYCLES_INSTALL_RECORDS=$d
inst() { sh scripts/install "$@"; }

# the list is what the package tree holds, no more, no less (but for a
# library configure left out, which make check builds for the tests)
sh scripts/install --list | sort > "$d/list"
leftout=
[ "$STATIC_LIB" = no ] && leftout="lib/libcpucycles.a"
[ "$SHARED_LIB" = no ] && leftout="lib/$SHLIB lib/$SHLINK"
(cd "$PACKAGE" && find . -type f -o -type l) | sed 's|^\./||' | sort > "$d/all"
printf '%s\n' $leftout > "$d/leftout"
grep -v -x -F -f "$d/leftout" "$d/all" > "$d/tree"
if [ -s "$d/list" ] && cmp -s "$d/list" "$d/tree"; then
  pass install_list_is_package_tree
else
  fail install_list_is_package_tree "$(diff "$d/list" "$d/tree" | head -n 5)"
fi

# a prefix that does not exist yet: everything install made goes again
p=$d/fresh/prefix
inst "$PACKAGE" "$p" > "$d/out" 2>&1 || fail install_fresh_prefix "$(tail -n 2 "$d/out")"
n=$(find "$p" -type f | wc -l)
inst --uninstall "$PACKAGE" "$p" > "$d/out2" 2>&1
st=$?
if [ "$n" -gt 10 ] && [ $st = 0 ] && [ ! -e "$p" ] && [ -d "$d/fresh" ]; then
  pass uninstall_removes_created_directories
else
  fail uninstall_removes_created_directories "status $st, $n files; left: $(find "$d/fresh" | head -n 5)"
fi
inst --uninstall "$PACKAGE" "$p" > "$d/out2" 2>&1 && pass uninstall_twice || fail uninstall_twice "$(cat "$d/out2")"

# the hints for a prefix nobody searches
if [ "$(uname -s)" != Linux ]; then
  skip install_prints_search_paths "the ldconfig and search-path notes are for Linux"
elif grep -q "export LD_LIBRARY_PATH=$p/lib" "$d/out" && grep -q "export PKG_CONFIG_PATH=$p/lib/pkgconfig" "$d/out" &&
     grep -q "export PATH=$p/bin" "$d/out" && ! grep -q 'ldconfig' "$d/out"; then
  pass install_prints_search_paths
else
  fail install_prints_search_paths "$(cat "$d/out")"
fi

# the README's example builds and runs with nothing but the printed exports
r=$d/readme/prefix
if [ "$(uname -s)" != Linux ] || [ -n "$RUN" ] || ! command -v cc > /dev/null 2>&1; then
  skip install_exports_build_readme_example "needs Linux, a native build and cc"
elif [ -n "$SANITIZE" ]; then
  skip install_exports_build_readme_example "not under make test-sanitize (the README's plain cc cannot link it)"
else
  inst "$PACKAGE" "$r" > "$d/out3" 2>&1
  printf '#include <stdio.h>\n#include <cpucycles.h>\nint main(void) { long long t = cpucycles(); printf("%%lld %%s\\n", cpucycles() - t, cpucycles_implementation()); return 0; }\n' > "$d/example.c"
  if out=$(env -u CPATH -u LIBRARY_PATH -u LD_LIBRARY_PATH sh -c "$(sed -n 's/^  \(export .*\)/\1/p' "$d/out3")
       cd '$d' && cc example.c -lcpucycles -o example && ./example" 2>&1); then
    pass "install_exports_build_readme_example ($out)"
  else
    fail install_exports_build_readme_example "$out"
  fi
  inst --uninstall "$PACKAGE" "$r" > /dev/null 2>&1
fi

# a prefix with directories of its own, one empty, one holding a file
q=$d/shared
mkdir -p "$q/share/doc" "$q/bin" "$q/lib/cmake"
echo other > "$q/bin/other-program"
inst "$PACKAGE" "$q" > "$d/out" 2>&1
echo mine > "$q/lib/pkgconfig/other.pc" # added after the install
inst --uninstall "$PACKAGE" "$q" > "$d/out" 2>&1
left=$(cd "$q" && find . | sort | tr '\n' ' ')
want='. ./bin ./bin/other-program ./lib ./lib/cmake ./lib/pkgconfig ./lib/pkgconfig/other.pc ./share ./share/doc '
[ "$left" = "$want" ] && pass uninstall_keeps_others_directories || fail uninstall_keeps_others_directories "left: $left"

# no bookkeeping file in what ships: install's record of the directories
# it made is kept beside the build (build/installed.N; here in $d)
inst "$PACKAGE" "$d/recorded" > /dev/null 2>&1
shipped=$( (cd "$d/recorded" && find . -type f -o -type l) | sed 's|^\./||' | sort)
expected=$(sh scripts/install --list | sort)
if [ "$shipped" = "$expected" ]; then
  pass install_ships_no_bookkeeping
else
  fail install_ships_no_bookkeeping "$(printf '%s\n' "$shipped" | grep -vxF "$expected" | head -n 3 | tr '\n' ' ')"
fi
inst --uninstall "$PACKAGE" "$d/recorded" > /dev/null 2>&1
[ ! -e "$d/recorded" ] && pass uninstall_removes_recorded_prefix ||
  fail uninstall_removes_recorded_prefix "left: $(find "$d/recorded" | head -n 3 | tr '\n' ' ')"

# DESTDIR: a stage; no record of directories for it, and the ldconfig
# step is said for later
s=$d/stage
before=$(ls "$d"/installed.* 2> /dev/null)
DESTDIR=$s inst "$PACKAGE" /usr > "$d/out" 2>&1
after=$(ls "$d"/installed.* 2> /dev/null)
if [ -f "$s/usr/lib/libcpucycles.so.1" ] && [ "$before" = "$after" ] &&
   { [ "$(uname -s)" != Linux ] || grep -q 'staged under DESTDIR.*run ldconfig' "$d/out"; }; then
  pass install_destdir_stage
else
  fail install_destdir_stage "$(cat "$d/out"); records before: $before; after: $after"
fi

# each part in a directory of its own (configure's --libdir...), some
# outside the prefix: uninstall finds them all, and removes what it made
x=$d/dirs
DESTDIR=$x inst "$PACKAGE" /usr bindir=/usr/games libdir=/usr/lib/x86_64-linux-gnu \
  includedir=/usr/include/cpucycles mandir=/usr/share/man docdir=/opt/docs/cpucycles > "$d/out" 2>&1
ok=1
for f in usr/games/cpucycles-info usr/lib/x86_64-linux-gnu/libcpucycles.so.1 \
         usr/lib/x86_64-linux-gnu/pkgconfig/libcpucycles.pc \
         usr/lib/x86_64-linux-gnu/cmake/cpucycles/cpucycles-config.cmake \
         usr/include/cpucycles/cpucycles.h usr/share/man/man3/cpucycles.3 \
         opt/docs/cpucycles/README.md opt/docs/cpucycles/LICENSE opt/docs/cpucycles/examples/measure.c; do
  [ -e "$x/$f" ] || { ok=0; echo "missing $f"; }
done
[ ! -e "$x/usr/lib/libcpucycles.so.1" ] && [ ! -e "$x/usr/share/doc" ] || { ok=0; echo "files in the default places too"; }
[ $ok = 1 ] && pass install_each_dir || fail install_each_dir "$(cat "$d/out")"
DESTDIR=$x inst --uninstall "$PACKAGE" /usr bindir=/usr/games libdir=/usr/lib/x86_64-linux-gnu \
  includedir=/usr/include/cpucycles mandir=/usr/share/man docdir=/opt/docs/cpucycles > "$d/out" 2>&1
left=$(find "$x" -type f -o -type l | head -n 3)
[ -z "$left" ] && [ ! -e "$x/opt/docs/cpucycles" ] && pass uninstall_each_dir ||
  fail uninstall_each_dir "left: $left"

# a stage whose path holds a space: uninstall removes the package's own
# directories there too
x="$d/st age"
DESTDIR=$x inst "$PACKAGE" /usr > "$d/out" 2>&1
DESTDIR=$x inst --uninstall "$PACKAGE" /usr > "$d/out" 2>&1
[ ! -e "$x/usr/share/doc/libcpucycles" ] && [ ! -e "$x/usr/lib/cmake/cpucycles" ] &&
  pass uninstall_stage_with_space || fail uninstall_stage_with_space "$(cat "$d/out")"

# a directory the dynamic loader searches: root runs ldconfig, anyone
# else is told to.  The loader's list and the user id are played by
# stand-ins for ldconfig and id.
if [ "$(uname -s)" != Linux ]; then
  skip install_runs_ldconfig "ldconfig is Linux's"
  exit 0
fi
r=$d/system
mkdir -p "$r/lib" "$d/bin"
cat > "$d/bin/ldconfig" <<EOF
#!/bin/sh
if [ "\$1" = -v ]; then echo "$r/lib: (from a test)"; echo "	libcpucycles.so.1 -> libcpucycles.so.1"; exit 0; fi
echo "\$*" >> "$d/ldconfig.ran.\$(id -u)"
EOF
for uid in 0 1000; do
  printf '#!/bin/sh\n[ "$1" = -u ] && { echo %s; exit 0; }\nexec /usr/bin/id "$@"\n' "$uid" > "$d/bin/id"
  chmod +x "$d/bin/ldconfig" "$d/bin/id"
  PATH=$d/bin:$PATH inst "$PACKAGE" "$r" > "$d/out.$uid" 2>&1
done
# and root's uninstall takes the library out of the loader's cache
printf '#!/bin/sh\n[ "$1" = -u ] && { echo 0; exit 0; }\nexec /usr/bin/id "$@"\n' > "$d/bin/id"
ran=$(cat "$d/ldconfig.ran.0" 2> /dev/null | wc -l)
PATH=$d/bin:$PATH inst --uninstall "$PACKAGE" "$r" > "$d/un.0" 2>&1
if grep -q 'ran ldconfig' "$d/un.0" && [ "$(wc -l < "$d/ldconfig.ran.0")" = $((ran + 1)) ]; then
  pass uninstall_runs_ldconfig
else
  fail uninstall_runs_ldconfig "$(cat "$d/un.0")"
fi
if grep -q 'ran ldconfig' "$d/out.0" && [ -f "$d/ldconfig.ran.0" ] && [ ! -f "$d/ldconfig.ran.1000" ] &&
   grep -q 'run ldconfig as root' "$d/out.1000" && ! grep -q 'LD_LIBRARY_PATH' "$d/out.0" "$d/out.1000"; then
  pass install_runs_ldconfig
else
  fail install_runs_ldconfig "root: $(tail -n 1 "$d/out.0"); user: $(tail -n 1 "$d/out.1000")"
fi

# the license and the examples the README names are installed with the docs
docs=$PACKAGE/share/doc/libcpucycles
if [ -f "$docs/LICENSE" ] && [ -f "$docs/examples/measure.c" ] && [ -f "$docs/examples/latency.c" ]; then
  pass install_license_and_examples
else
  fail install_license_and_examples "$(ls "$docs" "$docs/examples" 2>&1 | tr '\n' ' ')"
fi

# the installed docs lie side by side: every doc they name by file is there
docs=$PACKAGE/share/doc/libcpucycles
missing=$(grep -oh '`[a-z0-9/-]*\.md`' "$docs"/*.md | tr -d '`' | sort -u | while read -r f; do
  [ -f "$docs/$f" ] || echo "$f"
done)
if [ -f "$docs/README.md" ] && [ -z "$missing" ]; then
  pass installed_docs_name_installed_files
else
  fail installed_docs_name_installed_files "named but not installed beside them: $(echo $missing)"
fi
