#!/usr/bin/env bash
# The Debian packages, built as PostgreSQL extensions are (debian/ with
# pg_buildext): dpkg-buildpackage -us -uc -b on a copy of this tree gives
# postgresql-N-locality-uuid for every installed major that debian/pgversions
# supports, and locality-uuid with the CLI; installed, CREATE EXTENSION works
# at the control file's default version and the CLI decodes. The packages are removed afterwards
# and the extension built from this tree is installed again, as the other
# suites expect.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
ensure_packages dpkg-dev debhelper postgresql-server-dev-all
work=$(mktemp -d)
version=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)
extversion=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" "$ROOT/locality_uuid.control")
newest_update=$(cd "$ROOT" && ls locality_uuid--*--"$extversion".sql)
module_deb="postgresql-$PG_MAJOR-locality-uuid"
cleanup() {
  dpkg -r "$module_deb" locality-uuid >/dev/null 2>&1 || true
  rm -rf "$work"
  build_and_install_extension >/dev/null
}
trap cleanup EXIT

mkdir "$work/src"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
   tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$work/src"
# debian/control names the majors installed here (pg_buildext checkcontrol).
(cd "$work/src" && PG_UPDATECONTROL=yes dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1) ||
  { tail -n 40 "$work/build.log"; exit 1; }
ls "$work"/*.deb | xargs -n1 basename
module="$work/${module_deb}_${version}_$(dpkg --print-architecture).deb"
cli="$work/locality-uuid_${version}_$(dpkg --print-architecture).deb"
[ -f "$module" ] && [ -f "$cli" ] || { echo "FAIL: expected $module and $cli"; exit 1; }

# The module package holds the module, control file and scripts, no CLI;
# the CLI package holds /usr/bin/locality-uuid.
module_files=$(dpkg -c "$module")
cli_files=$(dpkg -c "$cli")
grep -q "/usr/lib/postgresql/$PG_MAJOR/lib/locality_uuid.so" <<<"$module_files" || { echo "FAIL: no module"; exit 1; }
grep -q "/usr/share/postgresql/$PG_MAJOR/extension/$newest_update" <<<"$module_files" ||
  { echo "FAIL: no update script"; exit 1; }
if grep -q "usr/bin/" <<<"$module_files"; then echo "FAIL: the module package ships a program"; exit 1; fi
grep -q "./usr/bin/locality-uuid$" <<<"$cli_files" || { echo "FAIL: no CLI in $cli"; exit 1; }
grep -q "./usr/share/man/man1/locality-uuid.1.gz$" <<<"$cli_files" || { echo "FAIL: no manual page in $cli"; exit 1; }
echo "$(basename "$module"): module, control file and $(grep -c '\.sql$' <<<"$module_files") SQL scripts; $(basename "$cli"): /usr/bin/locality-uuid and its manual page"

# Nothing from this tree's make install may stand in for the package.
make -C "$ROOT" -s uninstall >/dev/null
dpkg -i "$module" "$cli" >/dev/null
echo "installed: $(dpkg-query -W -f='${Package} ${Version}, ' "$module_deb" locality-uuid)"
check() {
  set -euo pipefail
  psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION locality_uuid"
  [ "$(psql -X -At -c "SELECT extversion FROM pg_extension WHERE extname = 'locality_uuid'")" = "$extversion" ]
  ts=$(PGTZ=UTC psql -X -At -c "SELECT locality_uuid_timestamp(locality_uuid_at('2024-01-01 00:00:00+00'))")
  [ "$ts" = "2024-01-01 00:00:00+00" ] || { echo "FAIL: $ts"; return 1; }
  echo "CREATE EXTENSION from the package: version $extversion, locality_uuid_at works"
}
export -f check
export extversion
with_cluster -- bash -c check
/usr/bin/locality-uuid decode 20be0ffc-314a-bd53-7a50-013a65ca76d2 | grep -q "3,488,672,514" ||
  { echo "FAIL: packaged CLI"; exit 1; }
echo "packaged CLI decodes the reference id"
