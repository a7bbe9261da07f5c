# What a project that vendors the library relies on, in a scratch copy
# of the tree (a git checkout where git is here): ../configure from a
# build directory inside it and from one beside it, with the tree left
# as it was; make check; make install prefix=DIR (GNU's lower-case
# names) with the .pc file and the commands following DIR;
# make install-strip; --disable-static, --disable-shared and
# --static-commands.
# test: long (four configure runs and builds)
. tests/lib.sh
if [ -n "$SANITIZE" ]; then skip vendoring "not under make test-sanitize"; exit 0; fi
if [ -n "$RUN" ]; then skip vendoring "native only (runs what it builds)"; exit 0; fi
if [ "$OS" = darwin ]; then skip vendoring "ELF checks (scripts/macos-test reads Mach-O)"; exit 0; fi
own_build_env
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
export CPUCYCLES_INSTALL_RECORDS=$d
src=$d/src
mkdir "$src"
scratch_tree "$src"
readelf=readelf
command -v readelf > /dev/null 2>&1 || readelf=
# needed FILE: its NEEDED and RUNPATH entries, a line each (an RPATH as
# RUNPATH: which of the two the linker writes is its default)
needed() {
  $readelf -d "$1" |
    sed -n -e 's/.*(NEEDED).*\[\(.*\)\]$/NEEDED \1/p' -e 's/.*(R[UNPATH]*).*\[\(.*\)\]$/RUNPATH \1/p'
}
git=0
if command -v git > /dev/null 2>&1 &&
   (cd "$src" && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm t) \
     > /dev/null 2>&1; then
  git=1
fi
(cd "$src" && find . -path ./.git -prune -o -print | LC_ALL=C sort) > "$d/before"
touch "$d/stamp"
sleep 1

# ../configure from src/b, and from a directory beside the tree
mkdir "$src/b" "$d/out"
if (cd "$src/b" && ../configure --prefix=/usr/local && make) > "$d/b.log" 2>&1 &&
   "$src/b/build/0/package/bin/cpucycles-info" > "$d/info" 2>&1 &&
   grep -q '^cpucycles implementation ' "$d/info" &&
   [ -f "$src/b/configure.log" ] && [ -f "$src/b/build/0/config.mk" ]; then
  pass vendoring_configure_from_build_directory_inside
else
  fail vendoring_configure_from_build_directory_inside "$(tail -n 3 "$d/b.log" | tr '\n' ' ')"
fi
if (cd "$d/out" && ../src/configure && make) > "$d/out.log" 2>&1 &&
   "$d/out/build/0/package/bin/cpucycles-info" > /dev/null 2>&1; then
  pass vendoring_configure_from_build_directory_beside
else
  fail vendoring_configure_from_build_directory_beside "$(tail -n 3 "$d/out.log" | tr '\n' ' ')"
fi
(cd "$src" && find . -path ./.git -prune -o -path ./b -prune -o -print | LC_ALL=C sort) > "$d/after"
written=$(find "$src" -path "$src/.git" -prune -o -path "$src/b" -prune -o -newer "$d/stamp" -print |
  grep -v -x "$src" | head -n 3)
# (src itself gained b; nothing else may change)
grep -v -x './b' "$d/after" > "$d/after-b"
if cmp -s "$d/before" "$d/after-b" && [ -z "$written" ]; then
  pass vendoring_source_tree_untouched
else
  fail vendoring_source_tree_untouched "$(diff "$d/before" "$d/after-b" | head -n 3 | tr '\n' ' ') $written"
fi
if [ $git = 1 ]; then
  st=$(cd "$src" && git status --porcelain)
  [ -z "$st" ] && pass vendoring_git_status_clean || fail vendoring_git_status_clean "$st"
else
  skip vendoring_git_status_clean "no git"
fi

# make check is make test: the same command
b=$src/b
if [ "$(cd "$b" && make -n check 2>&1)" = "$(cd "$b" && make -n test 2>&1)" ] &&
   (cd "$b" && make -n check) | grep -q 'scripts/test'; then
  pass vendoring_make_check_is_make_test
else
  fail vendoring_make_check_is_make_test "$(cd "$b" && make -n check 2>&1 | tail -n 2)"
fi

# make install prefix=DIR: installs there, the .pc names DIR, the
# installed commands load the installed library (RUNPATH DIR/lib), and
# the shared library is installed executable
p=$d/p
if (cd "$b" && make install prefix="$p") > "$d/install.log" 2>&1 &&
   [ -f "$p/lib/libcpucycles.so.1" ] && [ -f "$p/include/cpucycles.h" ] &&
   grep -qx "prefix=$p" "$p/lib/pkgconfig/libcpucycles.pc" &&
   [ -f "$p/lib/cmake/cpucycles/cpucycles-config.cmake" ]; then
  pass vendoring_make_install_lower_case_prefix
else
  fail vendoring_make_install_lower_case_prefix "$(tail -n 3 "$d/install.log" | tr '\n' ' ')"
fi
mode=$(ls -l "$p/lib/libcpucycles.so.1" 2> /dev/null | cut -c1-10)
[ "$mode" = -rwxr-xr-x ] && pass vendoring_shared_library_0755 ||
  fail vendoring_shared_library_0755 "mode $mode"
if [ -z "$readelf" ]; then
  skip vendoring_installed_commands_use_installed_library "no readelf"
else
  needed "$p/bin/cpucycles-info" > "$d/needed"
  loaded=$(LD_TRACE_LOADED_OBJECTS=1 "$p/bin/cpucycles-info" 2>&1 | sed -n 's/.*libcpucycles.so.1 => \([^ ]*\).*/\1/p')
  if grep -qx 'NEEDED libcpucycles.so.1' "$d/needed" && grep -qx "RUNPATH $p/lib" "$d/needed" &&
     [ "$loaded" = "$p/lib/libcpucycles.so.1" ] && "$p/bin/cpucycles-info" > /dev/null 2>&1; then
    pass vendoring_installed_commands_use_installed_library
  else
    fail vendoring_installed_commands_use_installed_library "$(tr '\n' ' ' < "$d/needed"); loads '$loaded'"
  fi
  # the tree's own commands find the library beside them
  needed "$b/build/0/package/bin/cpucycles-info" > "$d/needed-tree"
  grep -qx 'NEEDED libcpucycles.so.1' "$d/needed-tree" && grep -qx 'RUNPATH $ORIGIN/../lib' "$d/needed-tree" &&
    pass vendoring_tree_commands_link_shared_library ||
    fail vendoring_tree_commands_link_shared_library "$(tr '\n' ' ' < "$d/needed-tree")"
  # a system libdir gets no RUNPATH (distributions forbid one)
  (cd "$b" && make prefix=/usr) > "$d/usr.log" 2>&1
  needed "$b/build/0/obj/bin/cpucycles-info" > "$d/needed-usr"
  if grep -qx 'NEEDED libcpucycles.so.1' "$d/needed-usr" && ! grep -q 'PATH' "$d/needed-usr"; then
    pass vendoring_no_runpath_for_system_libdir
  else
    fail vendoring_no_runpath_for_system_libdir "$(tr '\n' ' ' < "$d/needed-usr")"
  fi
fi

# make install-strip: the programs lose their symbol table, the library
# keeps its five
s=$d/strip
if (cd "$b" && make install-strip prefix=/usr/local DESTDIR="$s") > "$d/strip.log" 2>&1; then
  info=$s/usr/local/bin/cpucycles-info
  so=$s/usr/local/lib/libcpucycles.so.1
  five=$(nm -D --defined-only "$so" 2> /dev/null | awk '{ print $3 }' | grep -c '^cpucycles')
  if [ -n "$(nm "$b/build/0/obj/bin/cpucycles-info" 2> /dev/null)" ] &&
     [ -z "$(nm "$info" 2> /dev/null)" ] && [ "$five" = 5 ] &&
     LD_LIBRARY_PATH=$s/usr/local/lib "$info" > /dev/null 2>&1; then
    pass vendoring_install_strip
  else
    fail vendoring_install_strip "nm of cpucycles-info: $(nm "$info" 2>&1 | head -n 1); $five exports"
  fi
else
  fail vendoring_install_strip "$(tail -n 3 "$d/strip.log" | tr '\n' ' ')"
fi

# --disable-static, --disable-shared, --static-commands: what make
# builds and installs, and how the commands link
for choice in --disable-static --disable-shared --static-commands; do
  name=vendoring_$(echo "${choice#--}" | tr - _)
  o=$d/o$choice
  mkdir "$o"
  stage=$o/stage
  if ! (cd "$o" && "$src/configure" "$choice" && make && make install DESTDIR="$stage") > "$o/log" 2>&1; then
    fail "$name" "$(tail -n 3 "$o/log" | tr '\n' ' ')"
    continue
  fi
  l=$stage/usr/local/lib
  pk=$o/build/0/package/lib
  info=$stage/usr/local/bin/cpucycles-info
  why=
  case $choice in
    --disable-static)
      [ ! -e "$pk/libcpucycles.a" ] && [ ! -e "$l/libcpucycles.a" ] && [ -f "$l/libcpucycles.so.1" ] ||
        why="libcpucycles.a built or installed, or no .so.1" ;;
    --disable-shared)
      [ ! -e "$pk/libcpucycles.so.1" ] && [ ! -e "$l/libcpucycles.so.1" ] && [ ! -e "$l/libcpucycles.so" ] &&
        [ -f "$l/libcpucycles.a" ] || why="a shared library built or installed, or no .a" ;;
    --static-commands)
      [ -f "$l/libcpucycles.so.1" ] && [ -f "$l/libcpucycles.a" ] || why="a library missing" ;;
  esac
  if [ "$choice" != --disable-static ] && [ -n "$readelf" ] && needed "$info" | grep -q libcpucycles; then
    why="$why; the commands link the shared library"
  fi
  LD_LIBRARY_PATH=$l "$info" > /dev/null 2>&1 || why="$why; the installed cpucycles-info does not run"
  [ -z "$why" ] && pass "$name" || fail "$name" "$why"
done
out=$(cd "$d/out" && ./configure --disable-static --disable-shared 2>&1)
[ $? = 1 ] && echo "$out" | grep -q 'leave nothing' && pass vendoring_disable_both_is_error ||
  fail vendoring_disable_both_is_error "$out"
./configure --help | grep -q -e '--disable-static' && ./configure --help | grep -q -e '--disable-shared' &&
  pass vendoring_help_lists_disable || fail vendoring_help_lists_disable "not in configure --help"
