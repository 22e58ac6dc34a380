#!/usr/bin/env bash
# The Debian packages of this major, built and checked as Debian and the
# PostgreSQL project's apt repository build and check extension packages
# (runs on every major: here and in each major's chroot):
#
#   build     dpkg-buildpackage -us -uc -b on a copy of this tree, for this
#             major only (PG_SUPPORTED_VERSIONS): postgresql-N-locality-uuid
#             and locality-uuid (the CLI); their contents, the README's
#             pages (doc/*.md) included
#   lintian   the suite's own lintian on both packages: no error and no
#             warning (debian/*.lintian-overrides say why for each tag
#             left; every tag printed)
#   autopkgtest  the packages installed, debian/tests/installcheck run from
#             the source tree as autopkgtest runs it: pg_buildext installcheck
#             with the library loaded per session, then preloaded
#   smoke     CREATE EXTENSION reaches the control file's version; the
#             packaged CLI decodes the reference id
#
# The packages are removed afterwards and the extension built from this
# tree is installed again, as the other suites expect.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
ensure_packages dpkg-dev debhelper postgresql-server-dev-all lintian
work=$(mktemp -d)
version=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)
extversion=$(control_version)
newest_update=$(cd "$ROOT/extension" && ls locality_uuid--*--"$extversion".sql)
arch=$(dpkg --print-architecture)
module_deb="postgresql-$PG_MAJOR-locality-uuid"
cleanup() {
  dpkg -r "$module_deb" locality-uuid >/dev/null 2>&1 || true
  rm -rf "$work"
  build_and_install_extension >/dev/null
}
trap cleanup EXIT

# --- build ----------------------------------------------------------------------
mkdir "$work/src"
copy_tree "$work/src"
# debian/control names this major only (pg_buildext updatecontrol).
(cd "$work/src" && PG_SUPPORTED_VERSIONS=$PG_MAJOR PG_UPDATECONTROL=yes dpkg-buildpackage -us -uc -b \
   >"$work/build.log" 2>&1) || { tail -n 40 "$work/build.log"; exit 1; }
module="$work/${module_deb}_${version}_$arch.deb"
cli="$work/locality-uuid_${version}_$arch.deb"
[ -f "$module" ] && [ -f "$cli" ] || { ls "$work"; echo "FAIL: expected $module and $cli"; exit 1; }

# The module package holds the module, control file and scripts, no CLI;
# the CLI package holds /usr/bin/locality-uuid and its manual page.
module_files=$(dpkg -c "$module")
cli_files=$(dpkg -c "$cli")
grep -q "/usr/lib/postgresql/$PG_MAJOR/lib/locality_uuid.so" <<<"$module_files" || { echo "FAIL: no module"; exit 1; }
grep -q "/usr/share/postgresql/$PG_MAJOR/extension/$newest_update" <<<"$module_files" ||
  { echo "FAIL: no update script $newest_update"; exit 1; }
# The README's pages (doc/*.md) beside it, in both packages.
# Uncompressed, so that their links to each other work.
for page in README.md BENCHMARKS.md doc/operations.md doc/guarantees.md doc/backfills.md doc/development.md \
            doc/sql-edition.md doc/fleets.md; do
  grep -q "/usr/share/doc/$module_deb/$page$" <<<"$module_files" || { echo "FAIL: no $page in $module"; exit 1; }
  grep -q "/usr/share/doc/locality-uuid/$page$" <<<"$cli_files" || { echo "FAIL: no $page in $cli"; exit 1; }
done
if grep -q "usr/bin/" <<<"$module_files"; then echo "FAIL: the module package ships a program"; exit 1; fi
grep -q "./usr/bin/locality-uuid$" <<<"$cli_files" || { echo "FAIL: no CLI in $cli"; exit 1; }
grep -q "./usr/share/man/man1/locality-uuid.1.gz$" <<<"$cli_files" || { echo "FAIL: no manual page in $cli"; exit 1; }
# The fleet commands' one run-time dependency, declared (shlibs).
dpkg-deb -f "$cli" Depends | grep -q "libpq5" || { echo "FAIL: $cli does not depend on libpq5: $(dpkg-deb -f "$cli" Depends)"; exit 1; }
echo "built: $(basename "$module") (module, control file, $(grep -c '\.sql$' <<<"$module_files") SQL scripts), $(basename "$cli") (CLI and its manual page)"

# --- lintian --------------------------------------------------------------------
# Errors and warnings fail; the overridden tags are printed (O:) with
# every other tag lintian shows by default.
lintian_out=$(lintian --fail-on error,warning "$module" "$cli" 2>&1) ||
  { echo "$lintian_out"; echo "FAIL: $(lintian --version)"; exit 1; }
echo "$(lintian --version): no error or warning on either package; tags, overridden ones included:"
lintian --show-overrides "$module" "$cli" 2>&1 | grep -v -e "running with root privileges" -e "^N:" | sed 's/^/  /' || true

# --- autopkgtest: debian/tests against the installed packages ---------------------
# Nothing from this tree's make install may stand in for the package.
make -C "$ROOT" -s PG_CONFIG="$PG_CONFIG" uninstall >/dev/null
dpkg -i "$module" "$cli" >/dev/null
echo "installed: $(dpkg-query -W -f='${Package} ${Version}, ' "$module_deb" locality-uuid)"
grep -q "^Tests: installcheck" "$work/src/debian/tests/control" || { echo "FAIL: debian/tests/control"; exit 1; }
(cd "$work/src" && AUTOPKGTEST_TMP=$(mktemp -d) debian/tests/installcheck >"$work/autopkgtest.log" 2>&1) ||
  { tail -n 60 "$work/autopkgtest.log"; echo "FAIL: debian/tests/installcheck"; exit 1; }
grep -E "^### (PostgreSQL|End)|tests passed|All [0-9]+ tests" "$work/autopkgtest.log" | sed 's/^/  /'
[ "$(grep -c "^### End $PG_MAJOR installcheck ###" "$work/autopkgtest.log")" = 2 ] ||
  { echo "FAIL: installcheck did not pass in both modes"; exit 1; }
echo "autopkgtest installcheck: passed per session and preloaded"

# --- smoke -----------------------------------------------------------------------
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
with_cluster -o shared_preload_libraries=locality_uuid -- bash -c check
/usr/bin/locality-uuid decode 20be0ffc-314a-bd53-7a50-013a65ca76d2 | grep -q "3,488,672,514" ||
  { echo "FAIL: packaged CLI"; exit 1; }
[ "$(/usr/bin/locality-uuid --version)" = "locality-uuid $extversion" ] || { echo "FAIL: packaged CLI version"; exit 1; }
echo "packaged CLI: decodes the reference id, version $extversion"
