# configure's Darwin decisions, without a Mac or Zig: this machine's gcc
# stands in for a Darwin compiler of the same ISA, and configure is read,
# not the build (scripts/macos-test builds and reads the Mach-O files).
# A Darwin triplet, and uname -s saying Darwin, each give a dylib with an
# install name and versions, a Darwin archiver and no way to run the
# programs; install lists the dylib and its link.
# test: long (two configure runs)
. tests/lib.sh
if [ -n "$SANITIZE" ]; then skip darwin "not under make test-sanitize"; exit 0; fi
if [ -n "$RUN" ] || [ "$OS" = darwin ]; then skip darwin "native ELF builds only"; exit 0; fi
case "$ARCH" in
  amd64) cpu=x86_64 ;;
  arm64) cpu=aarch64 ;;
  *) skip darwin "macOS runs on amd64 and arm64, not $ARCH"; exit 0 ;;
esac
command -v gcc > /dev/null 2>&1 || { skip darwin "no gcc"; exit 0; }
into_scratch_tree
setting() { # NAME: its value in config.sh
  (. build/0/config.sh && eval "echo \"\$$1\"")
}

out=$(./configure --host=$cpu-apple-darwin CC=gcc 2>&1)
st=$?
if [ $st != 0 ] && ! command -v llvm-ar > /dev/null 2>&1; then
  # no archiver that writes Darwin archives: said, not GNU ar taken
  echo "$out" | grep -q 'no archiver found' && pass darwin_triplet_archiver ||
    fail darwin_triplet_archiver "status $st: $(echo "$out" | tail -n 1)"
elif [ $st != 0 ]; then
  fail darwin_triplet_configures "status $st: $(echo "$out" | tail -n 2 | tr '\n' ' ')"
else
  shared=$(sed -n 's/^SHARED = //p' build/0/config.mk)
  ok=1
  [ "$(setting OS)" = darwin ] || { ok=0; echo "OS $(setting OS)"; }
  [ "$(setting SHLIB) $(setting SHLINK)" = "libcpucycles.1.dylib libcpucycles.dylib" ] ||
    { ok=0; echo "names $(setting SHLIB) $(setting SHLINK)"; }
  v=$(sh scripts/version --dylib)
  for w in -dynamiclib '-install_name $(LIBDIR)/libcpucycles.1.dylib' \
           -Wl,-compatibility_version,1.0.0 "-Wl,-current_version,$v"; do
    case " $shared " in *" $w "*) ;; *) ok=0; echo "SHARED lacks $w: $shared" ;; esac
  done
  case "$shared" in *soname*) ok=0; echo "SHARED has a soname: $shared" ;; esac
  [ -z "$(setting RUN)" ] || { ok=0; echo "RUN $(setting RUN)"; }
  grep -q '^LIB_CFLAGS = .*-D_DARWIN_C_SOURCE' build/0/config.mk || { ok=0; echo "no -D_DARWIN_C_SOURCE"; }
  [ $ok = 1 ] && pass darwin_triplet_dylib || fail darwin_triplet_dylib "see above"
  # GNU ar's archives are refused by Zig's Mach-O linker
  [ "$(setting AR)" = 'llvm-ar --format=darwin' ] && pass darwin_triplet_archiver ||
    fail darwin_triplet_archiver "AR='$(setting AR)'"
  list=$(sh scripts/install --list | grep '^lib/libcpucycles' | tr '\n' ' ')
  [ "$list" = "lib/libcpucycles.a lib/libcpucycles.1.dylib lib/libcpucycles.dylib " ] &&
    pass darwin_install_lists_dylib || fail darwin_install_lists_dylib "$list"
fi

# natively: uname -s says Darwin, and no --host
mkdir fakebin
real=$(command -v uname)
printf '#!/bin/sh\n[ "$1" = -s ] && { echo Darwin; exit 0; }\nexec %s "$@"\n' "$real" > fakebin/uname
chmod +x fakebin/uname
if PATH=$PWD/fakebin:$PATH ./configure CC=gcc > out 2>&1 && [ "$(setting OS)" = darwin ] &&
   [ "$(setting SHLIB)" = libcpucycles.1.dylib ] && [ "$(setting AR)" = ar ]; then
  pass darwin_native_uname
else
  fail darwin_native_uname "OS '$(setting OS)', AR '$(setting AR)': $(tail -n 1 out)"
fi
out=$(./configure --host=$cpu-linux-gnu CC=gcc 2>&1)
[ "$(setting OS)" = elf ] && [ "$(setting SHLIB)" = libcpucycles.so.1 ] && pass darwin_linux_triplet_is_elf ||
  fail darwin_linux_triplet_is_elf "OS '$(setting OS)': $(echo "$out" | tail -n 1)"
