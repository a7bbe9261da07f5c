# Every --host spelling maps to the right architecture; unknown ones fail.
. tests/lib.sh
ok=1
while read -r input want; do
  got=$(sh scripts/hostarch "$input") || got=ERROR
  [ "$got" = "$want" ] || { ok=0; echo "hostarch $input: got $got, want $want"; }
done <<'TABLE'
amd64 amd64
x86_64 amd64
x86_64-linux-gnu amd64
x86 x86
i386 x86
i486 x86
i586 x86
i686 x86
i686-linux-gnu x86
arm64 arm64
aarch64 arm64
armv8 arm64
aarch64-linux-gnu arm64
arm32 arm32
arm arm32
armv7l arm32
armeabi arm32
arm-linux-gnueabihf arm32
ppc64 ppc64
ppc64le ppc64
powerpc64 ppc64
powerpc64-linux-gnu ppc64
powerpc64le-linux-gnu ppc64
ppc32 ppc32
powerpc ppc32
powerpc-linux-gnu ppc32
sparc64 sparc64
sun4u sparc64
sun4v sparc64
sparc64-linux-gnu sparc64
loong64 loong64
loongarch64 loong64
loongarch64-linux-gnu loong64
mips64 mips64
mips64el mips64
mips64el-linux-gnuabi64 mips64
riscv64 riscv64
riscv64-linux-gnu riscv64
riscv32 riscv32
s390x s390x
s390x-linux-gnu s390x
vax ERROR
ia64 ERROR
TABLE
[ $ok = 1 ] && pass hostarch_table || fail hostarch_table "see above"
