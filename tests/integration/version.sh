# One version string everywhere it appears.
. tests/lib.sh
v=$(sed -n 's/.*return "\([0-9]\{8\}\)";.*/\1/p' wrapper/cpucycles.c)
info=$($RUN "$PACKAGE/bin/cpucycles-info" | sed -n 's/^cpucycles version //p')
[ "$info" = "$v" ] && pass version_info_matches || fail version_info_matches "$info vs $v"
ok=1
for f in README.md doc/*.md doc/man/*.[0-9]; do
  [ -f "$f" ] || continue
  for w in $(grep -o 'version 20[0-9]\{6\}' "$f" | awk '{print $2}'); do
    [ "$w" = "$v" ] || { ok=0; echo "$f says version $w"; }
  done
done
[ $ok = 1 ] && pass version_docs_match || fail version_docs_match "see above"
grep -q "Version: $v" "$PACKAGE/lib/pkgconfig/libcpucycles.pc" && pass version_pkgconfig ||
  fail version_pkgconfig "pc file version differs"
