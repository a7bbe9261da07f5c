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
  # (i386 PIC code gets a global helper __x86.get_pc_thunk.REG from the
  # compiler in every object; it is not ours)
  defs=$($NM --defined-only "$B/obj/cpucycles/$name.o" | awk '$2 ~ /[TtDdBbRr]/ && $2 != "t" && $2 != "d" && $2 != "b" && $2 != "r" && $3 !~ /^__x86\.get_pc_thunk\./ {print $3}' | sort | tr '\n' ' ')
  [ "$defs" = "cpucycles_${id}_close cpucycles_${id}_setup cpucycles_${id}_ticks " ] || { ok=0; echo "$name defines: $defs"; }
done
[ $ok = 1 ] && pass symbols_counter_objects_define_their_three || fail symbols_counter_objects_define_their_three "see above"
# The commands are plain clients: they include only the public header, and
# cpucycles-open links nothing of the library.
others=$(grep -h '#include "' command/*.c | grep -v '"cpucycles.h"' | tr '\n' ' ')
[ -z "$others" ] && pass symbols_commands_include_only_the_public_header ||
  fail symbols_commands_include_only_the_public_header "$others"
if [ -f "$PACKAGE/bin/cpucycles-open" ]; then
  linked=$($NM "$PACKAGE/bin/cpucycles-open" 2>/dev/null | awk '$3 ~ /^cpucycles/ {print $3}' | tr '\n' ' ')
  [ -z "$linked" ] && pass symbols_open_links_none_of_the_library ||
    fail symbols_open_links_none_of_the_library "$linked"
fi
