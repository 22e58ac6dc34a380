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
# (A test run's compiler cache leaves this copy's own path out of its key:
# scripts/compiler_cache.sh.)
export CCACHE_BASEDIR=$work
version=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)
extversion=$(control_version)
newest_update=$(cd "$ROOT/extension" && ls locality_uuid--*--"$extversion".sql)
arch=$(dpkg --print-architecture)
module_deb="postgresql-$PG_MAJOR-locality-uuid"
cleanup() {
  dpkg -r "$module_deb" locality-uuid >/dev/null 2>&1 || true
  rm -rf "$work"
  install_built_extension
}
trap cleanup EXIT

# --- build, with the README's Quick start commands ---------------------------------
# Step 1's commands as the README writes them (15 there: this major here;
# amd64 there: this architecture here): the build, then the install of
# exactly the files it wrote (review first-day-1.3, finding 9).
quick=$(sed -n '/^## Quick start$/,/^### What an id reveals$/p' "$ROOT/README.md")
step1=$(sed -n '/^1\. \*\*Install/,/^2\. /p' <<<"$quick" | sed -n '/```sh/,/```/p' | sed -n '2,/```/p' | sed '$d' | sed 's/^   //')
for_here() { sed "s/15/$PG_MAJOR/g; s/_amd64\.deb/_$arch.deb/g" <<<"$1"; }
build_line=$(grep '^PG_SUPPORTED_VERSIONS=15 .*dpkg-buildpackage' <<<"$step1" | sed 's/ *#.*//')
install_line=$(grep '^apt-get install -y \.\./' <<<"$step1")
[ -n "$build_line" ] && [ -n "$install_line" ] || { echo "$step1"; echo "FAIL: the Quick start's step 1 has no build and install line"; exit 1; }
mkdir "$work/src"
copy_tree "$work/src"
(cd "$work/src" && eval "$(for_here "$build_line")" >"$work/build.log" 2>&1) || { tail -n 40 "$work/build.log"; exit 1; }
module="$work/${module_deb}_${version}_$arch.deb"
cli="$work/locality-uuid_${version}_$arch.deb"
[ -f "$module" ] && [ -f "$cli" ] || { ls "$work"; echo "FAIL: expected $module and $cli"; exit 1; }
named=$(for_here "$install_line" | grep -o '\.\./[^ ]*\.deb' | sed 's|^\.\./||' | sort | tr '\n' ' ')
built=$(cd "$work" && ls ./*.deb | sed 's|^\./||' | grep -v dbgsym | sort | tr '\n' ' ')
[ "$named" = "$built" ] || { echo "FAIL: the Quick start installs $named; the build wrote $built"; exit 1; }
echo "the Quick start's build command, run here: $(for_here "$build_line"); it installs exactly what that wrote: $named"

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
# Errors (E:) and warnings (W:) fail; the overridden tags are printed (O:)
# with every other tag lintian shows by default. One lintian run: its exit
# status says only whether lintian itself failed (1; 2 is "tags found", and
# with --show-overrides an overridden tag counts), the tags are judged here.
lintian_rc=0
lintian_out=$(lintian --show-overrides "$module" "$cli" 2>&1) || lintian_rc=$?
lintian_out=$(grep -v "running with root privileges" <<<"$lintian_out" || true)
if [ $lintian_rc = 1 ] || grep -q '^[EW]: ' <<<"$lintian_out"; then
  echo "$lintian_out"; echo "FAIL: $(lintian --version) (exit $lintian_rc)"; exit 1
fi
echo "$(lintian --version): no error or warning on either package; tags, overridden ones included:"
grep -v "^N:" <<<"$lintian_out" | sed 's/^/  /' || true

# --- autopkgtest: debian/tests against the installed packages ---------------------
# Nothing from this tree's make install may stand in for the package.
make -C "$ROOT" -s PG_CONFIG="$PG_CONFIG" uninstall >/dev/null
(cd "$work/src" && eval "$(for_here "$install_line")" >"$work/install.log" 2>&1) ||
  { tail -n 20 "$work/install.log"; echo "FAIL: the Quick start's install line"; exit 1; }
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

# --- the rest of the Quick start, as written, on a cluster of its own ---------------
# Steps 2 to 5 on a new cluster made for them (the README's 15/main is
# this major's "quickstart" here: the machine's own cluster is left alone);
# its first start logs what step 3 says, and no WARNING.
pg_createcluster "$PG_MAJOR" quickstart >/dev/null
qs_log=/var/log/postgresql/postgresql-$PG_MAJOR-quickstart.log
cleanup_cluster() { pg_dropcluster --stop "$PG_MAJOR" quickstart >/dev/null 2>&1 || true; }
trap 'cleanup_cluster; cleanup' EXIT
here_cluster() { sed "s/15/$PG_MAJOR/g; s|/main/|/quickstart/|g; s/ main / quickstart /g; s/@15-main/@$PG_MAJOR-quickstart/g" <<<"$1"; }
steps=$(sed -n '/^2\. \*\*Preload/,/^4\. /p' <<<"$quick" | awk '/```sh/{b=1; next} /```/{b=0} b' | sed 's/^   //')
grep -q "pg_ctlcluster 15 main restart" <<<"$steps" || { echo "$steps"; echo "FAIL: steps 2 and 3 restart no cluster"; exit 1; }
: >"$qs_log" 2>/dev/null || true
eval "$(here_cluster "$steps")"
sql=$(sed -n '/^4\. \*\*Create the extension/,/^### What an id reveals/p' <<<"$quick" | awk '/```sql/{b=1; next} /```/{b=0} b' | sed 's/^   //')
got=$(runuser -u postgres -- /usr/bin/psql --cluster "$PG_MAJOR/quickstart" -X -q -At -v ON_ERROR_STOP=1 -f - <<<"$sql" 2>&1) ||
  { echo "$got"; echo "FAIL: the Quick start's SQL"; exit 1; }
expected=$(grep -o -- '-- result: .*' <<<"$sql" | sed 's/^-- result: //' | tr -d ' ' | tr '\n' ' ')
got_flat=$(tr -d ' ' <<<"$got" | tr '\n' ' ')
[ "$got_flat" = "$expected" ] || { echo "FAIL: the Quick start's results: $got_flat, the README says $expected"; exit 1; }
logged=$(grep "locality_uuid" "$qs_log" | sed 's/^.*UTC \[[0-9]*\] //')
for line in "LOG:  locality_uuid: node value 17, from locality_uuid.node_id (file /etc/postgresql/$PG_MAJOR/quickstart/conf.d/locality_uuid_node.conf)" \
            "LOG:  locality_uuid: Hot Guid machine name \"db17\", from locality_uuid.machine_name (file /etc/postgresql/$PG_MAJOR/quickstart/conf.d/locality_uuid_node.conf)" \
            "LOG:  locality_uuid: server-wide counters start fresh: a new cluster (no \"locality_uuid.state\" and no \"locality_uuid.binding\" yet)" \
            "LOG:  locality_uuid: server-wide counters bound here"; do
  grep -qxF "$line" <<<"$logged" || { echo "$logged"; echo "FAIL: the first start did not log: $line"; exit 1; }
done
! grep -q "WARNING" "$qs_log" || { grep WARNING "$qs_log"; echo "FAIL: the Quick start's first start WARNed"; exit 1; }
echo "the Quick start's steps 2 to 5, as written, on a new cluster: results $expected; its first start logged the four LOG lines step 3 shows, no WARNING"
cleanup_cluster

# --- scripts/try.sh beside the package (review first-day-1.3, finding 8) ------------
# The tour refuses to replace an install it did not make: the package's
# files are untouched, and the refusal names the package.
so="$("$PG_CONFIG" --pkglibdir)/locality_uuid.so"
before=$(sha256sum "$so")
rc=0; out=$(bash "$ROOT/scripts/try.sh" 2>&1) || rc=$?
[ $rc = 1 ] && grep -q "belongs to the Debian package $module_deb; not replacing it" <<<"$out" &&
  [ "$(sha256sum "$so")" = "$before" ] || { echo "$out"; echo "FAIL: scripts/try.sh beside the package (exit $rc)"; exit 1; }
echo "scripts/try.sh beside the package: refused (exit $rc), the package's module unchanged: $(grep -m1 'belongs to' <<<"$out")"
