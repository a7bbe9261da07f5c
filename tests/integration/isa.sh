# What each ISA's own counters do under qemu-user (seen with qemu 7.2; see
# doc/cross.md): a counter whose instruction traps is dropped with the
# signal named and a later counter is chosen, not a dead process; a counter
# qemu supports has positive precision; a counter that never moves is
# rejected; a stated tick rate is read, not measured.  On real hardware
# other than amd64 these facts vary from machine to machine: skip there.
. tests/lib.sh
out=$($RUN "$PACKAGE/bin/cpucycles-info") || { fail isa_info_runs "exit status $?"; exit 1; }
impl=$(echo "$out" | sed -n 's/^cpucycles implementation //p')

compiled() {
  case " $COUNTERS " in *" $1 "*) return 0 ;; esac
  fail "isa_$1_compiled" "not among the compiled counters ($COUNTERS)"
  return 1
}
precision() {
  echo "$out" | awk -v n="$1" '$2 == "tracesetup" && $4 == n { print $6 }'
}
doctor() {
  echo "$out" | sed -n "s/^cpucycles counter $1 //p"
}
works() { # NAME: positive precision
  compiled "$1" || return
  p=$(precision "$1")
  [ "${p:-0}" -gt 0 ] && pass "isa_$1_works" || fail "isa_$1_works" "precision ${p:-none}: $(doctor "$1")"
}
traps() { # NAME: the read traps, the guard names SIGILL, another counter is chosen
  compiled "$1" || return
  d=$(doctor "$1")
  case "$d" in
    "dropped: SIGILL"*) [ "$impl" != "$1" ] && pass "isa_$1_trap_caught" || fail "isa_$1_trap_caught" "chosen anyway" ;;
    *) fail "isa_$1_trap_caught" "want 'dropped: SIGILL', got '$d'" ;;
  esac
}
stuck() { # NAME: reads but never moves, so it is dropped
  compiled "$1" || return
  d=$(doctor "$1")
  case "$d" in
    "dropped: never moved"*) [ "$impl" != "$1" ] && pass "isa_$1_stuck_rejected" || fail "isa_$1_stuck_rejected" "chosen anyway" ;;
    *) fail "isa_$1_stuck_rejected" "want 'dropped: never moved', got '$d'" ;;
  esac
}
says() { # NAME WORDS: the counter's own words contain WORDS
  compiled "$1" || return
  d=$(doctor "$1")
  case "$d" in
    *"$2"*) pass "isa_$1_says_$(echo "$2" | tr -c 'A-Za-z0-9\n' _)" ;;
    *) fail "isa_$1_says_$(echo "$2" | tr -c 'A-Za-z0-9\n' _)" "want '$2' in '$d'" ;;
  esac
}
scaling_is() { # NAME HZ: scaling is persecond / HZ
  p=$(echo "$out" | sed -n 's/^cpucycles persecond //p')
  s=$(echo "$out" | awk -v n="$1" '$2 == "tracesetup" && $4 == n { print $8 }')
  if echo "$p $2 $s" | awk '{ w = $1 / $2; exit !(w - $3 < 0.000001 && $3 - w < 0.000001) }'; then
    pass "isa_$1_scaled_by_stated_rate"
  else
    fail "isa_$1_scaled_by_stated_rate" "scaling $s, persecond $p over $2 is $(echo "$p $2" | awk '{ printf "%f", $1 / $2 }')"
  fi
}

case "$RUN" in
  qemu-*) ;;
  *)
    if [ "$ARCH" = amd64 ]; then
      works amd64-tsc # RDTSC is open to user code on every amd64 Linux
    else
      skip isa_expectations "native $ARCH: the expectations are for qemu-user"
    fi
    exit 0 ;;
esac

# qemu-user implements no perf_event_open
d=$(doctor default-perfevent)
case "$d" in
  *ENOSYS*) pass isa_perf_event_open_enosys ;;
  *) fail isa_perf_event_open_enosys "default-perfevent: $d" ;;
esac

case "$ARCH" in
  amd64) works amd64-tsc ;;
  x86) works x86-tsc ;;
  arm64)
    traps arm64-pmc
    works arm64-vct
    says arm64-vct "rate from CNTFRQ_EL0" ;;
  arm32)
    traps arm32-cortex
    traps arm32-1176 ;;
  loong64)
    works loong64-rdtime
    says loong64-rdtime "rate from CPUCFG" ;;
  mips64) stuck mips64-cc ;;
  ppc32) works ppc32-mftb ;;
  ppc64) works ppc64-mftb ;;
  riscv32) works riscv32-rdcycle ;;
  riscv64) works riscv64-rdcycle ;;
  s390x)
    works s390x-stckf
    scaling_is s390x-stckf 4096000000 ;;
  sparc64)
    works sparc64-rdtick
    # qemu's own sparc64 /proc/cpuinfo has no frequency line
    src=$(echo "$out" | sed -n 's/^cpucycles persecond-source //p')
    case "$src" in
      cpuinfo*) fail isa_sparc64_persecond_not_from_cpuinfo "source $src" ;;
      *) pass isa_sparc64_persecond_not_from_cpuinfo ;;
    esac ;;
  *) skip isa_expectations "none written for $ARCH" ;;
esac
