# The docs show what cpucycles-info prints: every "cpucycles KEY ..." line
# in a doc's example is a kind of line the command prints here (wanted:
# with CPUCYCLES_IMPLEMENTATION set), and the examples of the whole report
# (README.md, doc/selection.md) show every kind it printed, the summary
# last, as the command does.
. tests/lib.sh
out=$($RUN "$PACKAGE/bin/cpucycles-info") || { fail docs_output_info_runs "exit status $?"; exit 1; }
w=$(CPUCYCLES_IMPLEMENTATION=default-zero $RUN "$PACKAGE/bin/cpucycles-info")
printed=$( { echo "$out"; echo "$w"; } | awk '{ print $2 }' | sort -u)
keys() { # the kinds of line a doc shows (man pages: after roff's \&)
  sed -n 's/^[ 	]*\(\\&\)\{0,1\}cpucycles \([a-z-]*\) .*/\2/p' "$1" | sort -u
}
for doc in README.md doc/*.md doc/man/*.[13]; do
  name=$(echo "$doc" | tr '/.' '__')
  extra=$(keys "$doc" | grep -vxF "$printed")
  [ -z "$extra" ] && pass "docs_output_$name" ||
    fail "docs_output_$name" "shows lines cpucycles-info does not print: $(echo $extra)"
done
for doc in README.md doc/selection.md; do
  name=$(echo "$doc" | tr '/.' '__')
  missing=$(echo "$out" | awk '{ print $2 }' | sort -u | grep -vxF "$(keys "$doc")")
  last=$(sed -n 's/^[ 	]*cpucycles \([a-z-]*\) .*/\1/p' "$doc" | tail -n 1)
  [ -z "$missing" ] && [ "$last" = summary ] && pass "docs_output_whole_$name" ||
    fail "docs_output_whole_$name" "lacks $(echo $missing); its last line is $last"
done
