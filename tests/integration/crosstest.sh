# scripts/cross-test when tools are missing: without CI=true or --install
# it installs nothing, prints the one apt-get command, and skips the rows
# that lack tools (exit 0); with CI=true it runs apt-get; the table stays
# within 100 columns.  Run in a scratch tree with a PATH of only the basic
# utilities, so that every cross tool is missing whatever this machine
# has; apt-get and id are stand-ins (id says root), and the rows are x86
# (a matrix row) and loong64 (a freestanding row).
. tests/lib.sh
if [ -n "$SANITIZE" ]; then skip crosstest "not under make test-sanitize"; exit 0; fi
if [ -n "$RUN" ]; then skip crosstest "native only"; exit 0; fi
own_build_env
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
mkdir "$d/tree" "$d/bin"
scratch_tree "$d/tree"
for tool in awk cat cut date dirname fold grep mkdir rm sed sort tr wc; do
  p=$(command -v "$tool") && ln -s "$p" "$d/bin/$tool"
done
printf '#!/bin/sh\necho "$*" >> %s/apt-get.calls\n' "$d" > "$d/bin/apt-get"
printf '#!/bin/sh\necho 0\n' > "$d/bin/id"
chmod +x "$d/bin/apt-get" "$d/bin/id"
sh=$(command -v sh)

run() { # OUTPUT ENVIRONMENT...: cross-test x86 loong64
  out=$1; shift
  (cd "$d/tree" && env -i PATH="$d/bin" HOME="$d" "$@" "$sh" scripts/cross-test x86 loong64) > "$out" 2>&1
}
run "$d/out" CROSS_INSTALL=
st=$?
cmd='apt-get update && apt-get install -y gcc-i686-linux-gnu qemu-user clang-19 lld-19'
# the command may be wrapped with backslashes; joined, it is one line
joined=$(sed -e ':a' -e '/\\$/N; s/ *\\\n */ /; ta' "$d/out")
if [ $st = 0 ] && [ ! -f "$d/apt-get.calls" ] && echo "$joined" | grep -qxF "  $cmd" &&
   grep -q '^x86  *-  .*skip$' "$d/out" && grep -q '^loong64  *-  .*skip$' "$d/out" &&
   grep -q '^loong64: skip: not installed: clang-19 (clang-19), qemu-loongarch64 (qemu-user), ld.lld-19 (lld-19)$' "$d/out" &&
   grep -q 'rows 2: 0 ok, 2 skipped, 0 failed' "$d/out"; then
  pass crosstest_missing_tools_skip_and_say_how
else
  fail crosstest_missing_tools_skip_and_say_how "status $st, apt-get $(cat "$d/apt-get.calls" 2>/dev/null): $(tr '\n' '|' < "$d/out")"
fi
long=$(awk 'length($0) > 100' "$d/out" | head -n 1)
[ -z "$long" ] && pass crosstest_within_100_columns || fail crosstest_within_100_columns "$long"

# in CI the tools are installed; where they still are not there (the
# recorder installs nothing), the rows fail: CI never passes by running
# nothing
run "$d/out" CI=true
st=$?
if grep -q 'install -y -qq gcc-i686-linux-gnu qemu-user clang-19 lld-19' "$d/apt-get.calls" 2>/dev/null &&
   grep -q 'rows 2: 0 ok, 0 skipped, 2 failed' "$d/out" && [ $st != 0 ]; then
  pass crosstest_ci_installs
else
  fail crosstest_ci_installs "apt-get: $(cat "$d/apt-get.calls" 2>/dev/null); $(tail -n 3 "$d/out")"
fi

(cd "$d/tree" && "$sh" scripts/cross-test vax) > "$d/out" 2>&1
st=$?
[ $st = 2 ] && grep -q "no row 'vax'" "$d/out" && pass crosstest_unknown_row || fail crosstest_unknown_row "status $st"
