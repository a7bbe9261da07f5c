# Man pages: every real page lints clean with mandoc -T lint (warnings
# count) and groff -man -ww; each alias page is a single ".so" line whose
# target exists; after an install the aliases render exactly like their
# target, the way man(1) finds them (search from the man root).
# mandoc reports every ".so" as a warning ("fragile, better use ln"), so
# alias pages are checked by resolving them instead of by mandoc's lint.
. tests/lib.sh
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
v=$(sed -n 's/.*return "\([0-9]\{8\}\)";.*/\1/p' wrapper/cpucycles.c)

linters=
command -v mandoc > /dev/null 2>&1 && linters="$linters mandoc"
command -v groff > /dev/null 2>&1 && linters="$linters groff"
if [ -z "$linters" ]; then skip man_lint "neither mandoc nor groff is installed"; fi

is_alias() { grep -q '^\.so ' "$1"; }

ok=1
for page in doc/man/*.[0-9]; do
  if is_alias "$page"; then
    target=$(sed -n 's/^\.so //p' "$page")
    if [ "$(wc -l < "$page")" != 1 ] || [ ! -f "doc/man/${target#man[0-9]/}" ]; then
      ok=0; echo "$page: not one .so line to an existing page"
    fi
    continue
  fi
  for l in $linters; do
    case $l in
      mandoc) mandoc -T lint -W warning "$page" > "$d/lint" 2>&1 ;;
      groff) groff -man -ww -z "$page" > "$d/lint" 2>&1 ;;
    esac
    [ -s "$d/lint" ] && { ok=0; echo "$l $page:"; cat "$d/lint"; }
  done
  grep -q "^\.TH .*\"libcpucycles $v\"" "$page" || { ok=0; echo "$page: .TH does not name libcpucycles $v"; }
done
[ -n "$linters" ] && { [ $ok = 1 ] && pass man_lint || fail man_lint "see above"; }

# every public symbol and every command has a page
ok=1
for name in cpucycles.3 cpucycles_persecond.3 cpucycles_implementation.3 cpucycles_version.3 \
            cpucycles_tracesetup.3 cpucycles-info.1 cpucycles-open.1; do
  [ -f "doc/man/$name" ] || { ok=0; echo "missing doc/man/$name"; }
done
for c in $COMMANDS; do
  [ -f "doc/man/$c.1" ] || { ok=0; echo "command $c has no doc/man/$c.1"; }
done
[ $ok = 1 ] && pass man_pages_complete || fail man_pages_complete "see above"

# after install: section directories, and aliases that resolve
sh scripts/install "$PACKAGE" "$d/usr" > /dev/null || { fail man_install "scripts/install failed"; exit 1; }
ok=1
for page in doc/man/*.[0-9]; do
  name=${page#doc/man/}
  [ -f "$d/usr/man/man${name##*.}/$name" ] || { ok=0; echo "not installed: man/man${name##*.}/$name"; }
done
[ $ok = 1 ] && pass man_installed_in_sections || fail man_installed_in_sections "see above"

if ! command -v groff > /dev/null 2>&1; then
  skip man_aliases_resolve "groff is not installed"
  exit 0
fi
ok=1
for page in doc/man/*.[0-9]; do
  is_alias "$page" || continue
  name=${page#doc/man/}
  target=$(sed -n 's/^\.so //p' "$page")
  (cd "$d/usr/man" && groff -man -ww -Tutf8 "man${name##*.}/$name") > "$d/alias" 2> "$d/err"
  (cd "$d/usr/man" && groff -man -ww -Tutf8 "$target") > "$d/target" 2>&1
  if [ -s "$d/err" ] || ! grep -q 'count CPU cycles' "$d/alias" || ! cmp -s "$d/alias" "$d/target"; then
    ok=0; echo "$name does not render as $target: $(head -n 2 "$d/err")"
  fi
  if command -v man > /dev/null 2>&1; then
    n=${name%.*}
    MANPATH=$d/usr/man MANWIDTH=80 man -P cat "${name##*.}" "$n" > "$d/man" 2> "$d/err"
    if [ -s "$d/err" ] || ! grep -q 'cpucycles_persecond' "$d/man"; then
      ok=0; echo "man ${name##*.} $n: $(head -n 2 "$d/err")"
    fi
  fi
done
[ $ok = 1 ] && pass man_aliases_resolve || fail man_aliases_resolve "see above"
