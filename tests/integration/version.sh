# One version, set in one place (cpucycles_version() in wrapper/version.c,
# printed by scripts/version): the library, both commands' --version,
# configure --version, the .pc and CMake files, the installed man pages
# and doc/changes.md's top section all name it; a doc's sample output
# names a version that doc/changes.md has.
. tests/lib.sh
v=$(sh scripts/version)
date=$(sh scripts/version --date)
case "$v" in
  20[0-9][0-9][0-1][0-9][0-3][0-9]) pass version_is_a_date ;;
  *) fail version_is_a_date "scripts/version says '$v'" ;;
esac
info=$($RUN "$PACKAGE/bin/cpucycles-info" | sed -n 's/^cpucycles version //p')
[ "$info" = "$v" ] && pass version_info_matches || fail version_info_matches "$info vs $v"
for c in cpucycles-info cpucycles-open; do
  out=$($RUN "$PACKAGE/bin/$c" --version 2>&1)
  st=$?
  [ $st = 0 ] && [ "$out" = "$c $v" ] && pass "version_option_$c" ||
    fail "version_option_$c" "status $st: '$out' (want '$c $v')"
done
out=$(sh configure --version 2>&1)
[ "$out" = "libcpucycles configure $v" ] && pass version_configure ||
  fail version_configure "'$out'"

# doc/changes.md: dated sections, newest first; the top one is this
# version, or Unreleased just above it
sections=$(sed -n 's/^## //p' doc/changes.md)
first=$(echo "$sections" | sed -n 1p)
[ "$first" = Unreleased ] && first=$(echo "$sections" | sed -n 2p)
dated=$(echo "$sections" | grep -v '^Unreleased$')
if [ "$first" != "$v" ]; then
  fail version_changes_top "doc/changes.md's first dated section is '$first', not $v"
elif echo "$dated" | grep -v '^20[0-9]\{6\}$' | grep -q .; then
  fail version_changes_top "not a date: $(echo "$dated" | grep -v '^20' | head -n 1)"
elif [ "$(echo "$dated" | sort -r -u)" != "$dated" ]; then
  fail version_changes_top "sections not newest first, or repeated"
else
  pass version_changes_top
fi

ok=1
for f in README.md doc/*.md doc/man/*.[0-9]; do
  [ -f "$f" ] || continue
  for w in $(grep -o 'version 20[0-9]\{6\}' "$f" | awk '{print $2}'); do
    echo "$dated" | grep -qx "$w" || { ok=0; echo "$f: version $w, not in doc/changes.md"; }
  done
done
[ $ok = 1 ] && pass version_docs_name_releases || fail version_docs_name_releases "see above"
grep -qx "Version: $v" "$PACKAGE/lib/pkgconfig/libcpucycles.pc" && pass version_pkgconfig ||
  fail version_pkgconfig "pc file version differs"
grep -qx "set(PACKAGE_VERSION $v)" "$PACKAGE/lib/cmake/cpucycles/cpucycles-config-version.cmake" &&
  pass version_cmake || fail version_cmake "cpucycles-config-version.cmake names another version"
ok=1
for page in "$PACKAGE"/share/man/man1/*.1 "$PACKAGE/share/man/man3/cpucycles.3"; do
  sed -n 1p "$page" | grep -q "^\.TH [^ ]* [0-9] $date \"libcpucycles $v\"" ||
    { ok=0; echo "$page: $(sed -n 1p "$page")"; }
done
[ $ok = 1 ] && pass version_man_pages || fail version_man_pages "see above"
