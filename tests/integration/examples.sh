# doc/examples: each compiles against the package without warnings, runs
# under $RUN, prints well-formed lines, and its checksum is the value the
# deterministic work must give.  Timings are printed, never judged.
# The expected checksums were derived independently of the C code (a
# Python model of the same arithmetic mod 2^64) and are fixed here.
. tests/lib.sh
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT

# build NAME: compile doc/examples/NAME.c to $d/NAME; 0 on success
build() {
  if ! $CC -I"$PACKAGE/include" "doc/examples/$1.c" "$PACKAGE/lib/libcpucycles.a" -o "$d/$1" > "$d/$1.log" 2>&1; then
    fail "example_$1_builds" "$(head -n 3 "$d/$1.log")"
    return 1
  fi
  if grep -qi 'warning' "$d/$1.log"; then
    fail "example_$1_builds" "warnings: $(grep -i -m 2 warning "$d/$1.log")"
    return 1
  fi
  pass "example_$1_builds"
}

# lines FILE NAME REGEX...: each REGEX matches exactly one line of FILE
lines() {
  f=$1; n=$2; shift 2
  for re in "$@"; do
    c=$(grep -cE "$re" "$f")
    if [ "$c" != 1 ]; then fail "$n" "$c lines match '$re': $(cat "$f")"; return; fi
  done
  pass "$n"
}

num='[0-9]+'
dec='[0-9]+\.[0-9]{2}'
hex='[0-9a-f]{16}'

# example NAME CHECKSUM-LINE REGEX...: build, run, every REGEX matches one
# line, the counter named is one that was compiled in, the checksum is right
example() {
  name=$1; want=$2; shift 2
  build "$name" || return
  if ! $RUN "$d/$name" > "$d/$name.out" 2>&1; then
    fail "example_${name}_runs" "exit status $?: $(tail -n 2 "$d/$name.out")"
    return
  fi
  lines "$d/$name.out" "example_${name}_output_well_formed" "$@"
  impl=$(sed -n 's/^counter \([^ ]*\) .*/\1/p' "$d/$name.out")
  case " $COUNTERS " in
    *" $impl "*) pass "example_${name}_names_a_compiled_counter" ;;
    *) fail "example_${name}_names_a_compiled_counter" "'$impl' not in$COUNTERS" ;;
  esac
  grep -qx "$want" "$d/$name.out" && pass "example_${name}_checksum" ||
    fail "example_${name}_checksum" "$(grep '^checksum' "$d/$name.out")"
}

example measure 'checksum latency fdd5caaf6f9e2325 throughput f85c44c026d90800' \
  '^hardware .+; .+' \
  "^counter [a-z0-9]+-[a-z0-9]+ persecond $num library [0-9]{8}\$" \
  "^checksum latency $hex throughput $hex\$" \
  "^runs 31 timed after 3 warm-ups, 4096 inputs each, latency and throughput interleaved\$" \
  "^overhead -?$num cycles per timed run \\(median of 1001 back-to-back cpucycles\\(\\) pairs\\): in every count below, subtracted from per-input\$" \
  "^latency q1 -?$num median -?$num q3 -?$num best -?$num per-input $dec \\(dependent: each input waits for the last result\\)\$" \
  "^throughput q1 -?$num median -?$num q3 -?$num best -?$num per-input $dec \\(independent: inputs may overlap\\)\$"

# measure's figures are sane, whatever the counter: best <= q1 <= median
# <= q3 (the program sorts), and per-input is (median - overhead) / 4096,
# never negative, to the two decimals printed.  Nothing is judged against
# a speed: a machine may count zero (default-zero) or run under qemu.
if [ -f "$d/measure.out" ]; then
  why=$(awk -v n=4096 '
    /^overhead / { cost = $2 }
    /^(latency|throughput) q1 / {
      seen++
      q1 = $3; med = $5; q3 = $7; best = $9; per = $11
      if (!(best <= q1 && q1 <= med && med <= q3)) print $1 ": not best <= q1 <= median <= q3: " $0
      want = (med - cost) / n; if (want < 0) want = 0
      if (per + 0 < 0 || per - want > 0.006 || want - per > 0.006) print $1 ": per-input " per ", (median - overhead) / " n " is " want
    }
    END { if (seen != 2 || cost == "") print "no overhead line or not two figure lines" }' "$d/measure.out")
  [ -z "$why" ] && pass example_measure_figures_sane || fail example_measure_figures_sane "$why"
fi

example latency 'checksum chain a21a56ce41e886bb independent abad7e46986065c3' \
  "^counter [a-z0-9]+-[a-z0-9]+ persecond $num\$" \
  "^overhead -?$num cycles for two back-to-back cpucycles\\(\\) calls \\(median of 1001\\), subtracted below\$" \
  "^latency $dec cycles per call \\(dependent chain of 16384 calls, best of 15\\)\$" \
  "^throughput $dec cycles per call \\(16384 independent calls, best of 15\\)\$" \
  "^checksum chain $hex independent $hex\$"

# The C programs shown in README.md and doc/api.md compile and run too.
for md in README.md doc/api.md; do
  [ -f "$md" ] || continue
  n=$(echo "$md" | tr '/.' '__')
  awk '/^```c$/ { on = 1; next } /^```$/ { on = 0 } on' "$md" > "$d/$n.c"
  if [ ! -s "$d/$n.c" ]; then fail "doc_example_$n" "no \`\`\`c block"; continue; fi
  if $CC -I"$PACKAGE/include" "$d/$n.c" "$PACKAGE/lib/libcpucycles.a" -o "$d/$n" > "$d/$n.log" 2>&1 &&
     ! grep -qi warning "$d/$n.log" && $RUN "$d/$n" > "$d/$n.out" 2>&1 &&
     grep -q '[0-9] cycles' "$d/$n.out"; then
    pass "doc_example_$n"
  else
    fail "doc_example_$n" "$(head -n 3 "$d/$n.log" "$d/$n.out" 2>/dev/null)"
  fi
done
