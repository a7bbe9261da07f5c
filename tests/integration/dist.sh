# make dist: the tarball is the same bytes twice, holds the tree and not
# the build, is made again the same from itself unpacked, and what it
# holds configures, builds and runs cpucycles-info.
# test: long (a configure and a build from the tarball)
. tests/lib.sh
if [ -n "$SANITIZE" ]; then skip dist "not under make test-sanitize"; exit 0; fi
if [ -n "$RUN" ]; then skip dist "native only (builds and runs from the tarball)"; exit 0; fi
if ! tar --version 2> /dev/null | grep -q 'GNU tar'; then skip dist "needs GNU tar"; exit 0; fi
own_build_env
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
v=$(sed -n 's/.*return "\([0-9]\{8\}\)";.*/\1/p' wrapper/cpucycles.c)
name=libcpucycles-$v

mkdir "$d/a" "$d/b"
if ! sh scripts/dist "$d/a" > "$d/dist.out" 2>&1 || ! sh scripts/dist "$d/b" >> "$d/dist.out" 2>&1; then
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
[ $ok = 1 ] && pass dist_holds_the_tree || fail dist_holds_the_tree "see above"

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
