# doc/api.md's ctypes recipe, as printed there, against the built
# library: cpucycles bound as a variable holding a function pointer
# (CFUNCTYPE(...).in_dll) counts; bound as a function it would crash.
. tests/lib.sh
if [ -n "$RUN" ]; then skip ffi_ctypes "native only (python3 is this machine's)"; exit 0; fi
if [ -n "$SANITIZE" ]; then skip ffi_ctypes "not under make test-sanitize (python3 cannot load an ASan library)"; exit 0; fi
if ! command -v python3 > /dev/null 2>&1 || ! python3 -c 'import ctypes' > /dev/null 2>&1; then
  skip ffi_ctypes "python3 with ctypes is not installed"; exit 0
fi
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
lib=$(cd "$PACKAGE/lib" && pwd)/libcpucycles.so.1
# the indented lines from "import ctypes" to the print, the library's
# name made the built one's path
sed -n '/^    import ctypes$/,/^    print(/p' doc/api.md | sed -e 's/^    //' -e "s|\"libcpucycles.so.1\"|\"$lib\"|" > "$d/recipe.py"
grep -q 'in_dll(lib, "cpucycles")' "$d/recipe.py" || { fail ffi_ctypes_recipe "no in_dll recipe found in doc/api.md"; exit 0; }
if out=$(python3 "$d/recipe.py" 2>&1) && echo "$out" | grep -q '^[0-9][0-9]* [a-z0-9-][a-z0-9-]*$'; then
  pass "ffi_ctypes_recipe ($out)"
else
  fail ffi_ctypes_recipe "$(echo "$out" | tail -n 2 | tr '\n' ' ')"
fi
