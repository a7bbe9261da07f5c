# The shared library exports exactly the five API symbols, has the right
# soname, and each counter object defines exactly its three entry points.
. tests/lib.sh
NM=nm
command -v "${AR%ar}nm" >/dev/null 2>&1 && NM=${AR%ar}nm
so=$PACKAGE/lib/libcpucycles.so.1
got=$($NM -D --defined-only "$so" | awk '{print $3}' | grep -v '^$' | sort | tr '\n' ' ')
want="cpucycles cpucycles_implementation cpucycles_persecond cpucycles_tracesetup cpucycles_version "
[ "$got" = "$want" ] && pass symbols_exactly_five || fail symbols_exactly_five "exports: $got"
READELF=readelf
command -v "${AR%ar}readelf" >/dev/null 2>&1 && READELF=${AR%ar}readelf
$READELF -d "$so" | grep -q 'SONAME.*\[libcpucycles.so.1\]' && pass symbols_soname ||
  fail symbols_soname "no SONAME libcpucycles.so.1"
[ "$(readlink "$PACKAGE/lib/libcpucycles.so")" = libcpucycles.so.1 ] && pass symbols_so_link ||
  fail symbols_so_link "libcpucycles.so does not point at libcpucycles.so.1"
ok=1
for name in $COUNTERS; do
  id=$(echo "$name" | tr - _)
  # Only names a C file can define count: the compiler makes global ones
  # of its own with a dot in them (i386 PIC code's __x86.get_pc_thunk.REG
  # in every object, GCC's LTO with -g its FILE.c.HASH), which are not
  # ours.
  defs=$($NM --defined-only "$B/obj/cpucycles/$name.o" | awk '$2 ~ /[TtDdBbRrWwVv]/ && $2 != "t" && $2 != "d" && $2 != "b" && $2 != "r" && $3 !~ /\./ {print $3}' | sort | tr '\n' ' ')
  [ "$defs" = "cpucycles_${id}_close cpucycles_${id}_setup cpucycles_${id}_ticks " ] || { ok=0; echo "$name defines: $defs"; }
done
[ $ok = 1 ] && pass symbols_counter_objects_define_their_three || fail symbols_counter_objects_define_their_three "see above"
# The commands are plain clients: they include only the public header, and
# cpucycles-open links nothing of the library but cpucycles_version(),
# which is alone in its object (wrapper/version.c) for that.
others=$(grep -h '#include "' command/*.c | grep -v '"cpucycles.h"' | tr '\n' ' ')
[ -z "$others" ] && pass symbols_commands_include_only_the_public_header ||
  fail symbols_commands_include_only_the_public_header "$others"
if [ -f "$PACKAGE/bin/cpucycles-open" ]; then
  # the library's names: the five of the API and the counters' entry
  # points (not what the compiler names after the file, such as GCC's
  # LTO cpucycles_open.c.HASH), defined there (a static link) or left to
  # the shared library (U, the name last)
  library_names() { # PROGRAM
    $NM "$1" 2>/dev/null |
      awk '$NF ~ /^cpucycles(_implementation|_persecond|_tracesetup|_version)?$/ ||
           $NF ~ /^cpucycles_[a-z0-9_]+_(setup|ticks|close)$/ {print $NF}' | tr '\n' ' '
  }
  linked=$(library_names "$PACKAGE/bin/cpucycles-open")
  # (with LTO the one call may be inlined, and then no name is left)
  case "$linked" in
    ''|'cpucycles_version ') pass symbols_open_links_only_the_version ;;
    *) fail symbols_open_links_only_the_version "$linked" ;;
  esac
  # and the same look finds them in cpucycles-info, which does link them
  # (unless the programs are stripped)
  if [ -f "$PACKAGE/bin/cpucycles-info" ] && $NM "$PACKAGE/bin/cpucycles-info" > /dev/null 2>&1; then
    # (with LTO the API functions may be inlined away; the counters'
    # entry points stay, reached through the table)
    [ -n "$(library_names "$PACKAGE/bin/cpucycles-info")" ] && pass symbols_info_links_the_library ||
      fail symbols_info_links_the_library "none of the library's names in cpucycles-info: the look at cpucycles-open proves nothing"
  fi
fi

# A program that never traces links neither the trace printer nor any of
# the printf family (issue 30): the probes' words are formatted through
# the pointer cpucycles_tracesetup() hands in.  Names the same program
# links without the library (a sanitizer's runtime prints) are not ours;
# the look at cpucycles-info proves nm sees them where they are linked.
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
printf '#include <cpucycles.h>\nint main(void) { return cpucycles() < 0; }\n' > "$d/quiet.c"
printf 'int main(void) { return 0; }\n' > "$d/bare.c"
printing() { # PROGRAM: the printing names it links
  $NM "$1" 2>/dev/null | awk '$NF ~ /^(cpucycles_trace_print|v?s?n?printf|putchar|fflush)(@.*)?$/ {print $NF}' | sort -u
}
if $CC -I"$PACKAGE/include" "$d/quiet.c" "$PACKAGE/lib/libcpucycles.a" -o "$d/quiet" $LIBPTHREAD > "$d/log" 2>&1 &&
   $CC "$d/bare.c" -o "$d/bare" > "$d/log" 2>&1 && $NM "$d/quiet" > /dev/null 2>&1; then
  printing "$d/bare" > "$d/bare.names"
  got=$(printing "$d/quiet" | grep -vxF -f "$d/bare.names" | tr '\n' ' ')
  traced=$(printing "$PACKAGE/bin/cpucycles-info" | grep -vxF -f "$d/bare.names")
  if [ -n "$got" ]; then
    fail symbols_untraced_program_links_no_printf "$got"
  elif [ -z "$traced" ]; then
    skip symbols_untraced_program_links_no_printf "nm sees no printing names in cpucycles-info beyond a bare program's"
  else
    pass symbols_untraced_program_links_no_printf
  fi
else
  fail symbols_untraced_program_links_no_printf "does not build or nm cannot read it: $(head -n 3 "$d/log")"
fi
