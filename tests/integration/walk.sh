# Issue 40: doc/layout.md's walk of the first call stays true.  The library
# is built with -finstrument-functions, tests/clients/walk.c makes one
# first call on a fake PMU-less AMD guest (tests/fakeos.c) and prints the
# functions of the library it entered, in the order of their first entry;
# each must stand in the walk ("## Following one selection") under its
# own file, and in that order (the walk may name more: what a counter
# that cannot win would have run).
# test: long (builds the library again)
. tests/lib.sh
name=layout_walk
if [ -n "$SANITIZE" ]; then skip $name "not under make test-sanitize"; exit 0; fi
if [ -n "$RUN" ]; then skip $name "native only"; exit 0; fi
case "$ARCH" in
  amd64) ;;
  *) skip $name "the walk is written for amd64 (this is $ARCH)"; exit 0 ;;
esac
command -v nm > /dev/null 2>&1 || { skip $name "no nm"; exit 0; }
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
for src in $LIBSRCS "$B/counters.c" $(for n in $COUNTERS; do echo "cpucycles/$n.c"; done); do
  [ "$src" = cpucycles/os.c ] && continue # tests/fakeos.c plays it
  def=
  case "$src" in cpucycles/*-*) def="-DCOUNTER=$(basename "$src" .c | tr - _)" ;; esac
  o=$d/$(echo "$src" | tr / @).o
  if ! $CC -O1 -finstrument-functions $INC $def -c "$src" -o "$o" > "$d/log" 2>&1; then
    skip $name "no -finstrument-functions here: $(head -n 2 "$d/log" | tr '\n' ' ')"
    exit 0
  fi
done
if ! $CC -O1 $INC -Itests tests/clients/walk.c tests/fakeos.c "$d"/*.o -o "$d/walk" $LIBPTHREAD -lpthread > "$d/log" 2>&1; then
  fail $name "the traced client does not build: $(head -n 3 "$d/log" | tr '\n' ' ')"
  exit 0
fi
"$d/walk" > "$d/out" 2> "$d/offsets"
chosen=$(sed -n 's/^walk //p' "$d/out")
if [ "$chosen" != amd64-tsc ]; then
  skip $name "the walk is written for amd64-tsc chosen; here the rule chose '$chosen'"
  exit 0
fi
# each function of the library: its address in the program, and its file
nm "$d/walk" | awk '$2 ~ /^[tT]$/ { print $1, $3 }' > "$d/symbols"
for o in "$d"/*.o; do
  f=$(basename "$o" .o | tr @ /)
  case "$f" in build/*) f=counters.c ;; esac
  nm --defined-only "$o" | awk -v f="$f" '$2 ~ /^[tT]$/ { print $3, f }'
done > "$d/files"
main=$(awk '$2 == "main" { print $1 }' "$d/symbols")
# the walk: "FILE FUNCTION" in its order, from doc/layout.md
awk '/^## Following one selection/ { on = 1; next } /^## / { on = 0 } on' doc/layout.md |
  awk '/^[0-9]+\. / { if (item) print item; item = $0; next } /^   / && item { item = item " " $0; next }
       { if (item) print item; item = "" } END { if (item) print item }' |
  while IFS= read -r item; do
    file=$(echo "$item" | sed -n 's/^[0-9]*\. `\([^`]*\)`.*/\1/p')
    echo "$item" | grep -o '`[A-Za-z_0-9]*()`' | tr -d '`()' | sed "s|^|$file |"
  done > "$d/walk.txt"
# the run, "FILE FUNCTION" in the order of first entry
while read -r off; do printf '%016x\n' $((0x$main + off)); done < "$d/offsets" > "$d/hex"
while read -r h; do
  fn=$(awk -v h="$h" '$1 == h { print $2; exit }' "$d/symbols")
  file=$(awk -v n="$fn" '$1 == n { print $2; exit }' "$d/files")
  echo "$file $fn"
done < "$d/hex" > "$d/run.txt"
# every entry of the run in the walk, in the walk's order
missing=$(awk 'NR == FNR { pos[$0] = FNR; next } { if (!($0 in pos)) print $0 }' "$d/walk.txt" "$d/run.txt" | tr '\n' ';')
order=$(awk 'NR == FNR { pos[$0] = FNR; next } ($0 in pos) { if (pos[$0] < last) print $0 " (after " prev ")"; last = pos[$0]; prev = $0 }' \
  "$d/walk.txt" "$d/run.txt" | tr '\n' ';')
n=$(wc -l < "$d/run.txt" | tr -d ' ')
files=$(awk '{ print $1 }' "$d/run.txt" | sort -u | wc -l | tr -d ' ')
if [ -n "$missing" ]; then
  fail $name "not in doc/layout.md's walk (or under another file): $missing"
elif [ -n "$order" ]; then
  fail $name "entered in another order than doc/layout.md's walk: $order"
else
  pass "$name ($n functions in $files files, in the walk's order)"
fi
