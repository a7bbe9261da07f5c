# Man pages: every real page (as make writes it, with the version's date
# and number on its .TH line) lints clean with mandoc -T lint (warnings
# count) and groff -man -ww; each alias page is a symlink to a real page
# beside it (not a ".so" line, which man -l cannot follow from the source
# tree); every page in doc/man renders with man -l there; after an install
# the aliases render exactly like their target, the way man(1) finds them.
. tests/lib.sh
# the C locale: man and groff warn on stderr about a locale that is set
# but not installed, and stderr here is a finding
LC_ALL=C
export LC_ALL
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
# install's records of the directories it made stay in the scratch directory
export CPUCYCLES_INSTALL_RECORDS=$d
v=$(sh scripts/version)
date=$(sh scripts/version --date)

linters=
command -v mandoc > /dev/null 2>&1 && linters="$linters mandoc"
command -v groff > /dev/null 2>&1 && linters="$linters groff"
if [ -z "$linters" ]; then skip man_lint "neither mandoc nor groff is installed"; fi

is_alias() { [ -L "$1" ]; }

ok=1
for page in doc/man/*.[0-9]; do
  if is_alias "$page"; then
    target=$(readlink "$page")
    case "$target" in
      */*) ok=0; echo "$page: links to $target, not to a page beside it" ;;
      *) [ -f "doc/man/$target" ] && [ ! -L "doc/man/$target" ] ||
           { ok=0; echo "$page: links to $target, not to a real page in doc/man"; } ;;
    esac
    continue
  fi
  grep -q '^\.so ' "$page" && { ok=0; echo "$page: a .so page (make it a symlink)"; }
  # the tree's page leaves date and version to make (scripts/package-docs):
  # the package's copy is the one installed, so that is the one linted
  sed -n 1p "$page" | grep -q '^\.TH [^ ]* [0-9] "" "libcpucycles" ' ||
    { ok=0; echo "$page: .TH is not .TH NAME SECTION \"\" \"libcpucycles\" ..."; }
  made=$PACKAGE/share/man/man${page##*.}/${page#doc/man/}
  for l in $linters; do
    case $l in
      mandoc) mandoc -T lint -W warning "$made" > "$d/lint" 2>&1 ;;
      groff) groff -man -ww -z "$made" > "$d/lint" 2>&1 ;;
    esac
    [ -s "$d/lint" ] && { ok=0; echo "$l $made:"; cat "$d/lint"; }
  done
  sed -n 1p "$made" | grep -q "^\.TH [^ ]* [0-9] $date \"libcpucycles $v\" " ||
    { ok=0; echo "$made: .TH does not name $date and libcpucycles $v"; }
done
[ -n "$linters" ] && { [ $ok = 1 ] && pass man_lint || fail man_lint "see above"; }

# every page reads from the source tree, as a user tries it first.  man
# without a formatter (Ubuntu's man-db without groff) prints nothing and
# exits 0: a page of our own first says whether this man can format.
printf '.TH PROBE 1\n.SH NAME\nprobe \\- a page\n' > "$d/probe.1"
if ! command -v man > /dev/null 2>&1; then
  skip man_pages_read_in_tree "man is not installed"
elif ! MANWIDTH=80 man -l "$d/probe.1" 2> /dev/null < /dev/null | grep -q 'probe'; then
  skip man_pages_read_in_tree "man is installed but formats nothing (no groff, nroff or mandoc behind it)"
else
  first=
  for page in doc/man/*.[0-9]; do
    MANWIDTH=80 man -l "$page" > "$d/out" 2> "$d/err" < /dev/null
    st=$?
    if [ $st != 0 ] || [ -s "$d/err" ] || ! grep -q 'NAME' "$d/out" || ! grep -q 'DESCRIPTION' "$d/out"; then
      why="man -l $page: status $st, $(wc -l < "$d/out") lines: $(head -n 1 "$d/err")"
      echo "$why"
      [ -n "$first" ] || first=$why
    fi
  done
  [ -z "$first" ] && pass man_pages_read_in_tree || fail man_pages_read_in_tree "$first"
fi

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

# each command's EXIT STATUS names the 2 it returns for an unknown argument
bad=
for c in $COMMANDS; do
  sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "doc/man/$c.1" | grep -qw 2 || bad="$bad $c.1"
done
[ -z "$bad" ] && pass man_exit_status_lists_2 || fail man_exit_status_lists_2 "no 2 in EXIT STATUS of$bad"

# after install: section directories, and aliases that resolve
sh scripts/install "$PACKAGE" "$d/usr" > /dev/null || { fail man_install "scripts/install failed"; exit 1; }
ok=1
for page in doc/man/*.[0-9]; do
  name=${page#doc/man/}
  [ -f "$d/usr/share/man/man${name##*.}/$name" ] || { ok=0; echo "not installed: share/man/man${name##*.}/$name"; }
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
  target=man${name##*.}/$(readlink "$page")
  [ -L "$d/usr/share/man/man${name##*.}/$name" ] || { ok=0; echo "$name is not installed as a symlink"; }
  (cd "$d/usr/share/man" && groff -man -ww -Tutf8 "man${name##*.}/$name") > "$d/alias" 2> "$d/err"
  (cd "$d/usr/share/man" && groff -man -ww -Tutf8 "$target") > "$d/target" 2>&1
  if [ -s "$d/err" ] || ! grep -q 'count CPU cycles' "$d/alias" || ! cmp -s "$d/alias" "$d/target"; then
    ok=0; echo "$name does not render as $target: $(head -n 2 "$d/err")"
  fi
  if command -v man > /dev/null 2>&1; then
    n=${name%.*}
    MANPATH=$d/usr/share/man MANWIDTH=80 man -P cat "${name##*.}" "$n" > "$d/man" 2> "$d/err"
    if [ -s "$d/err" ] || ! grep -q 'cpucycles_persecond' "$d/man"; then
      ok=0; echo "man ${name##*.} $n: $(head -n 2 "$d/err")"
    fi
  fi
done
[ $ok = 1 ] && pass man_aliases_resolve || fail man_aliases_resolve "see above"
