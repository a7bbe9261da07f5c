# make dist: in a clean git checkout the tarball is the commit's files,
# the same bytes twice, named for the version; a dirty tree (a change, an
# untracked file) and a doc/changes.md whose top section is not the
# version are refused; unpacked, the tarball makes itself again the same,
# and what it holds configures, builds and runs cpucycles-info.
# test: long (a configure and a build from the tarball)
. tests/lib.sh
if [ -n "$SANITIZE" ]; then skip dist "not under make test-sanitize"; exit 0; fi
if [ -n "$RUN" ]; then skip dist "native only (builds and runs from the tarball)"; exit 0; fi
if ! tar --version 2> /dev/null | grep -q 'GNU tar'; then skip dist "needs GNU tar"; exit 0; fi
if ! command -v git > /dev/null 2>&1; then skip dist "git is not installed"; exit 0; fi
own_build_env
# from a build directory (../configure) its entries link to the source
# tree, which is what make dist packs: the test packs it too
cd -P scripts/.. || exit 1
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
v=$(sh scripts/version)
name=libcpucycles-$v

# A checkout of its own with the tree as it is (edits and new files
# included, as git would list them; from a tarball, every file), committed
# once, with the release cut in it when this tree still says Unreleased.
src=$d/src
mkdir "$src"
if [ "$(git rev-parse --show-toplevel 2> /dev/null)" = "$(pwd -P)" ]; then
  git ls-files --cached --others --exclude-standard
else
  find . \( -path ./build -o -name configure.log -o -name 'libcpucycles-*.tar.gz' \) -prune \
    -o \( -type f -o -type l \) -print | sed 's|^\./||'
fi | while IFS= read -r f; do
  if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\n' "$f"; fi
done > "$d/files"
tar cf - -T "$d/files" | (cd "$src" && tar xf -)
top_section() { # top_section AWK: doc/changes.md of $src with its first "## " line rewritten
  awk "done || !/^## / { print; next } { done = 1; $1 }" "$src/doc/changes.md" > "$d/changes"
  cp "$d/changes" "$src/doc/changes.md"
}
top_section "if (\$0 == \"## Unreleased\") print \"## $v\"; else print"
commit() { # commit MESSAGE: everything in $src, committed
  (cd "$src" && git add -A && git -c user.name=test -c user.email=test@localhost.invalid \
    commit -q -m "$1") > /dev/null 2>&1
}
if ! (cd "$src" && git init -q) > /dev/null 2>&1 || ! commit tree; then
  fail dist_checkout "git init or commit in $src failed"
  exit 0
fi

mkdir "$d/a" "$d/b"
if ! (cd "$src" && sh scripts/dist "$d/a" && sh scripts/dist "$d/b") > "$d/dist.out" 2>&1; then
  fail dist_makes_tarball "$(tail -n 2 "$d/dist.out")"
  exit 0
fi
cmp -s "$d/a/$name.tar.gz" "$d/b/$name.tar.gz" && pass dist_same_bytes_twice ||
  fail dist_same_bytes_twice "two runs differ"

tar tzf "$d/a/$name.tar.gz" > "$d/list"
ok=1
for f in configure Makefile LICENSE README.md include/cpucycles.h cpucycles/options scripts/dist \
         doc/man/cpucycles.3 doc/examples/measure.c tests/lib.sh; do
  grep -qx "$name/$f" "$d/list" || { ok=0; echo "missing $f"; }
done
bad=$(grep -e "^$name/build/" -e "^$name/configure.log" -e '\.tar\.gz$' "$d/list"; grep -v "^$name/" "$d/list")
[ -z "$bad" ] || { ok=0; echo "holds: $(echo "$bad" | head -n 3 | tr '\n' ' ')"; }
owners=$(tar tvzf "$d/a/$name.tar.gz" | awk '{ print $2 }' | sort -u | tr '\n' ' ')
[ "$owners" = "0/0 " ] || { ok=0; echo "owners: $owners"; }
# exactly the commit's files, no more
(cd "$src" && git ls-files) | sed "s|^|$name/|" | LC_ALL=C sort > "$d/tracked"
LC_ALL=C sort "$d/list" | cmp -s - "$d/tracked" || { ok=0; echo "not the tracked files"; }
[ $ok = 1 ] && pass dist_holds_the_tree || fail dist_holds_the_tree "see above"

# refused: an untracked file, a changed tracked file, an Unreleased section
refused() { # refused WHAT: dist fails in $src, saying WHAT, and writes nothing
  rm -rf "$d/r"
  ! (cd "$src" && sh scripts/dist "$d/r") > "$d/r.out" 2>&1 && grep -q "$1" "$d/r.out" &&
    [ ! -e "$d/r/$name.tar.gz" ]
}
ok=1
echo 'int stray;' > "$src/stray.c"
refused 'stray.c' || { ok=0; echo "untracked file: $(tail -n 1 "$d/r.out")"; }
rm -f "$src/stray.c"
echo >> "$src/README.md"
refused 'README.md' || { ok=0; echo "changed file: $(tail -n 1 "$d/r.out")"; }
(cd "$src" && git checkout -q README.md)
[ $ok = 1 ] && pass dist_refuses_a_dirty_tree || fail dist_refuses_a_dirty_tree "see above"
top_section 'print "## Unreleased"; print ""; print'
if commit unreleased && refused "top section is 'Unreleased', not $v"; then
  pass dist_refuses_unreleased
else
  fail dist_refuses_unreleased "$(tail -n 2 "$d/r.out" | tr '\n' ' ')"
fi

# unpacked, without git: the same tarball again, then a build
(cd "$d" && gzip -dc "a/$name.tar.gz" | tar xf -)
if (cd "$d/$name" && GIT_DIR=/nonexistent GIT_CEILING_DIRECTORIES=$d sh scripts/dist "$d/c") > "$d/dist2.out" 2>&1 &&
   cmp -s "$d/a/$name.tar.gz" "$d/c/$name.tar.gz"; then
  pass dist_again_from_unpacked
else
  fail dist_again_from_unpacked "$(tail -n 1 "$d/dist2.out"); $(tar tzf "$d/c/$name.tar.gz" 2>/dev/null | diff - "$d/list" | head -n 3 | tr '\n' ' ')"
fi
if (cd "$d/$name" && ./configure > conf.out 2>&1 && make -j2 > make.out 2>&1) &&
   out=$("$d/$name/build/0/package/bin/cpucycles-info" 2>&1) &&
   echo "$out" | grep -q "^cpucycles version $v" && echo "$out" | grep -q '^cpucycles implementation '; then
  pass dist_builds_and_runs
else
  fail dist_builds_and_runs "$(tail -n 3 "$d/$name/conf.out" "$d/$name/make.out" 2>/dev/null | tr '\n' ' ')"
fi
