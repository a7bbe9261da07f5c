# The recipes of doc/packaging/ name one identity (doc/install.md, "One
# identity"): the distributions' package names, this version (Debian's
# 0~ form sorting after the archive's 0~YYYYMMDD packages), the project's
# own site and never the reference's, one SPDX expression for the licence
# (in LICENSE, README and the installed header too); and Debian's recipe has its autopkgtest,
# Build-Depends-Package and <!nocheck> test tools.
. tests/lib.sh
v=$(sh scripts/version)
deb=doc/packaging/debian
spec=doc/packaging/fedora/libcpucycles.spec
formula=doc/packaging/homebrew/libcpucycles.rb
spdx='LicenseRef-PD-hp OR CC0-1.0 OR 0BSD OR MIT-0 OR MIT'

bad=$(grep -rl 'cr\.yp\.to' doc/packaging)
[ -z "$bad" ] && pass recipes_name_no_reference_site || fail recipes_name_no_reference_site "$bad"
# one site in all three, said once in each to be not yet published
sites=$(grep -rhoE 'https?://[a-z0-9.-]+' "$deb/control" "$deb/copyright" "$spec" "$formula" |
  grep -v 'www\.debian\.org' | sort -u)
unpublished=$(grep -il 'not yet published' "$deb/control" "$spec" "$formula" | wc -l)
[ "$(echo "$sites" | wc -l)" = 1 ] && [ "$unpublished" = 3 ] && pass recipes_one_site ||
  fail recipes_one_site "sites: $(echo $sites); said unpublished in $unpublished of 3"

# versions: Debian's changelog and symbols, Fedora's Version, the formula's url
ok=1
top=$(sed -n '1s/^libcpucycles (\([^)]*\)) .*/\1/p' "$deb/changelog")
[ "$top" = "0~$v-1" ] || { ok=0; echo "debian/changelog: $top, not 0~$v-1"; }
if command -v dpkg > /dev/null 2>&1; then
  # the archive's packages of the earlier upstream, and a real 1.0 later
  for older in 0~20240318-2 0~20260105-9; do
    dpkg --compare-versions "$top" gt "$older" || { ok=0; echo "$top does not sort after $older"; }
  done
  for s in $(awk '/@Base/ {print $2}' "$deb/libcpucycles1.symbols"); do
    dpkg --compare-versions "$s" le "$top" || { ok=0; echo "symbols: $s is later than $top"; }
  done
fi
grep -qx "Version: *$v" "$spec" || { ok=0; echo "$spec: $(grep '^Version:' "$spec")"; }
grep -q "^  url \".*/libcpucycles-$v\\.tar\\.gz\"$" "$formula" || { ok=0; echo "$formula: url"; }
[ $ok = 1 ] && pass recipes_version || fail recipes_version "see above"

# Debian's binary packages are the archive's names, each with its list
names=$(sed -n 's/^Package: //p' "$deb/control" | tr '\n' ' ')
ok=1
[ "$names" = "libcpucycles1 libcpucycles-dev cpucycles " ] || { ok=0; echo "packages: $names"; }
for p in $names; do
  [ -f "$deb/$p.install" ] || { ok=0; echo "no $deb/$p.install"; }
done
grep -q '^%package -n *cpucycles$' "$spec" || { ok=0; echo "$spec: no cpucycles package"; }
[ $ok = 1 ] && pass recipes_package_names || fail recipes_package_names "see above"

# the licence: one expression (Debian's copyright syntax writes "or";
# Homebrew has :public_domain for the first and says so beside it)
ok=1
for f in LICENSE README.md include/cpucycles.h "$deb/copyright" "$formula"; do
  tr '\n' ' ' < "$f" | sed 's/  */ /g; s/# //g' | grep -qF "$spdx" ||
    { ok=0; echo "$f lacks $spdx"; }
done
grep -qx "License: *$spdx" "$spec" || { ok=0; echo "$spec: $(grep '^License:' "$spec")"; }
grep -qx "License: $(echo "$spdx" | sed 's/ OR / or /g')" "$deb/copyright" ||
  { ok=0; echo "$deb/copyright: License is not the expression"; }
other=$(grep -rn 'Fedora-Public-Domain\|public-domain or' LICENSE README.md doc/packaging)
[ -z "$other" ] || { ok=0; echo "another spelling: $other"; }
[ $ok = 1 ] && pass recipes_one_licence || fail recipes_one_licence "see above"

# Debian's policy details
ok=1
grep -qx '\* Build-Depends-Package: libcpucycles-dev' "$deb/libcpucycles1.symbols" ||
  { ok=0; echo "symbols: no Build-Depends-Package"; }
for tool in cmake pkg-config; do
  grep '^Build-Depends:' "$deb/control" | grep -q "$tool <!nocheck>" ||
    { ok=0; echo "control: no $tool <!nocheck>"; }
done
for t in $(sed -n 's/^Tests: //p' "$deb/tests/control"); do
  [ -x "$deb/tests/$t" ] || { ok=0; echo "tests/control names $t, no executable $deb/tests/$t"; }
done
grep -q '^Depends:.*libcpucycles-dev.*cpucycles' "$deb/tests/control" ||
  { ok=0; echo "tests/control does not depend on the packages it tests"; }
[ $ok = 1 ] && pass recipes_debian_policy || fail recipes_debian_policy "see above"
