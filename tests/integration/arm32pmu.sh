# arm32-cortex against an emulated ARMv7 PMU (issue 11, item 3): a kernel
# module may grant user access to the PMU without starting the cycle
# counter, and then the counter's first, guarded, read must start it.
# qemu-user cannot show this (every PMU access traps there; isa.sh checks
# that trap is caught), so tests/baremetal/arm32-pmu.c is booted as the
# kernel of qemu-system-arm's virt machine, plays the module, drops to User
# mode and reads through the counter's own ticks().  Each scenario is one
# boot of a second or less (see the harness for what each one checks).
# Needs qemu-system-arm and clang with ld.lld, or arm-linux-gnueabihf-gcc;
# scripts/cross-test installs them for its arm32 row.  Runs in the native
# make test and in the arm32 row, not in every other ISA's row.
. tests/lib.sh
if [ -n "$RUN" ] && [ "$ARCH" != arm32 ]; then
  skip arm32pmu "a host-side test: it runs in the native make test and the arm32 row"
  exit 0
fi
if ! command -v qemu-system-arm > /dev/null 2>&1; then
  skip arm32pmu "qemu-system-arm not installed (scripts/cross-test arm32 installs it)"
  exit 0
fi
if command -v clang > /dev/null 2>&1 && command -v ld.lld > /dev/null 2>&1; then
  armcc="clang --target=armv7a-none-eabi" link=-fuse-ld=lld
elif command -v arm-linux-gnueabihf-gcc > /dev/null 2>&1; then
  armcc=arm-linux-gnueabihf-gcc link=
else
  skip arm32pmu "no compiler for bare-metal ARMv7 (clang with ld.lld, or arm-linux-gnueabihf-gcc)"
  exit 0
fi
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
flags="-marm -march=armv7-a -mfloat-abi=soft -O2 -Wall -Wextra -Werror -ffreestanding -fno-pic -fno-stack-protector
  -fno-unwind-tables -fno-asynchronous-unwind-tables -ffunction-sections -fdata-sections"
# shellcheck disable=SC2086
if ! $armcc $flags -Icpucycles -DCOUNTER=arm32_cortex -c cpucycles/arm32-cortex.c -o "$d/counter.o" > "$d/build.out" 2>&1; then
  fail arm32pmu_builds "$(head -n 3 "$d/build.out" | tr '\n' ' ')"
  exit 0
fi

# scenario, qemu CPU (readonly needs ARMv8's PMUSERENR.CR)
for row in stopped:cortex-a15 divided:cortex-a15 running:cortex-a15 readonly:max; do
  sc=${row%%:*} cpu=${row#*:}
  # shellcheck disable=SC2086
  if ! $armcc $flags -DSCENARIO="$sc" -c tests/baremetal/arm32-pmu.c -o "$d/$sc.o" > "$d/build.out" 2>&1 ||
     ! $armcc $flags $link -nostdlib -static -Wl,--gc-sections -T tests/baremetal/arm32.ld \
         "$d/$sc.o" "$d/counter.o" -o "$d/$sc.elf" > "$d/build.out" 2>&1; then
    fail "arm32pmu_${sc}_builds" "$(head -n 3 "$d/build.out" | tr '\n' ' ')"
    continue
  fi
  # -icount shift=0: one instruction is one nanosecond, one cycle of qemu's
  # 1 GHz PMU, so the counter's three back-to-back reads are a few cycles
  # apart here as on hardware, whatever the host's speed
  timeout 60 qemu-system-arm -M virt -cpu "$cpu" -m 64 -nographic -monitor none -nic none \
    -semihosting -icount shift=0 -kernel "$d/$sc.elf" < /dev/null > "$d/$sc.out" 2>&1
  status=$?
  sed -n "s/^\(pass\|fail\) arm32pmu_/\1 arm32pmu_${sc}_/p" "$d/$sc.out"
  if [ "$status" != 0 ] || ! grep -q '^arm32pmu: ok$' "$d/$sc.out"; then
    grep -q '^fail ' "$d/$sc.out" ||
      fail "arm32pmu_${sc}_runs" "qemu status $status: $(tail -n 3 "$d/$sc.out" | tr '\n' ' ')"
  fi
done
