#!/usr/bin/env bash
# Installing as DBAs and packagers do: a build in its own directory (VPATH,
# as pg_buildext does), make install into DESTDIR with PREFIX or bindir for
# the CLI, make uninstall removing everything it installed, make clean
# removing the CLI; and META.json (PGXN) naming the control file's version.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
work=$(mktemp -d)
# (A test run's compiler cache leaves this copy's own path out of its key:
# scripts/compiler_cache.sh.)
export CCACHE_BASEDIR=$work
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

version=$(control_version)
meta=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["version"], m["provides"]["locality_uuid"]["version"], m["meta-spec"]["version"])' "$ROOT/META.json")
read -r dist provides spec <<<"$meta"
# PGXN versions are semantic versions: 1.1 is written 1.1.0.
[ "$provides" = "$version.0" ] && [ "$dist" = "$version.0" ] && [ "$spec" = 1.0.0 ] ||
  fail "META.json ($dist, provides $provides, meta-spec $spec) does not match default_version $version"
echo "META.json: meta-spec 1.0.0, provides locality_uuid $provides = default_version $version"
sql_version=$(sql_edition_version)
sql_provides=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["provides"]["locality_uuid_sql"]["version"])' "$ROOT/META.json")
[ "$sql_provides" = "$sql_version.0" ] || fail "META.json provides locality_uuid_sql $sql_provides; the Makefile builds $sql_version"
# The SQL edition's version is the library's (being released with it), an
# earlier release whose script test/fixtures holds (sql_edition_moves.sh
# checks that the build still gives that script, byte for byte), or, while
# CHANGELOG.md starts with "Unreleased", the library's next minor version
# (the SQL edition changed since the library's release: the two go out
# together).
next_minor="${version%%.*}.$((${version#*.} + 1))"
unreleased=$(sed -n 's/^## \(.*\)/\1/p' "$ROOT/CHANGELOG.md" | head -n 1)
[ "$sql_version" = "$version" ] || [ -f "$ROOT/test/fixtures/sql_edition_$sql_version/locality_uuid_sql--$sql_version.sql" ] ||
  { [ "$sql_version" = "$next_minor" ] && [ "$unreleased" = Unreleased ]; } ||
  fail "SQL_EDITION_VERSION $sql_version is neither default_version $version, nor a release in test/fixtures, nor the unreleased $next_minor"
echo "META.json: provides locality_uuid_sql $sql_provides = the Makefile's SQL_EDITION_VERSION (this release's, a fixture's or the unreleased next)"
# debian/changelog (upstream part of its newest entry) and CHANGELOG.md
# (its first release heading) name the same version.
deb=$(sed -n '1s/^[^(]*(\([^-)]*\)-[^)]*).*/\1/p' "$ROOT/debian/changelog")
changes=$(sed -n 's/^## \([0-9][0-9.]*\)\b.*/\1/p' "$ROOT/CHANGELOG.md" | head -n 1)
[ "$deb" = "$version" ] || fail "debian/changelog's newest version $deb is not default_version $version"
[ "$changes" = "$version" ] || fail "CHANGELOG.md's newest release $changes is not default_version $version"
echo "debian/changelog $deb and CHANGELOG.md $changes = default_version $version"

# A clean copy of the tree, built elsewhere.
mkdir "$work/src" "$work/build"
copy_tree "$work/src"
mk() { make -s -C "$work/build" -f "$work/src/Makefile" VPATH="$work/src" PG_CONFIG="$PG_CONFIG" "$@"; }
mk -j"$(nproc)" CXXFLAGS="-O1 -g0" LDFLAGS="-Wl,-z,now" >/dev/null
[ -f "$work/build/locality_uuid.so" ] && [ -x "$work/build/locality-uuid" ] || fail "VPATH build"

mk install DESTDIR="$work/root" PREFIX=/usr >/dev/null
find "$work/root" -type f | sed "s|$work/root||" | sort >"$work/installed"
grep -qx /usr/bin/locality-uuid "$work/installed" || fail "CLI not in PREFIX/bin"
grep -qx /usr/share/man/man1/locality-uuid.1 "$work/installed" || fail "manual page not in PREFIX/share/man/man1"
grep -qx "$("$PG_CONFIG" --pkglibdir)/locality_uuid.so" "$work/installed" || fail "module not installed"
grep -qx "$("$PG_CONFIG" --sharedir)/extension/locality_uuid--$version.sql" "$work/installed" || fail "install script"
echo "make install DESTDIR=... PREFIX=/usr: $(wc -l <"$work/installed") files, CLI in /usr/bin"
mk uninstall DESTDIR="$work/root" PREFIX=/usr >/dev/null
left=$(find "$work/root" -type f | wc -l)
[ "$left" = 0 ] || fail "make uninstall left $left files"
mk install DESTDIR="$work/root" bindir=/opt/tools/bin >/dev/null
[ -x "$work/root/opt/tools/bin/locality-uuid" ] || fail "bindir= not honoured"
mk uninstall DESTDIR="$work/root" bindir=/opt/tools/bin >/dev/null
mk install DESTDIR="$work/root" mandir=/opt/tools/man >/dev/null
[ -f "$work/root/opt/tools/man/man1/locality-uuid.1" ] || fail "mandir= not honoured"
mk uninstall DESTDIR="$work/root" mandir=/opt/tools/man >/dev/null
[ ! -e "$work/root/opt/tools/man/man1/locality-uuid.1" ] || fail "uninstall with mandir="
mk install DESTDIR="$work/root" bindir=/opt/tools/bin >/dev/null
mk uninstall DESTDIR="$work/root" bindir=/opt/tools/bin >/dev/null
[ ! -e "$work/root/opt/tools/bin/locality-uuid" ] || fail "uninstall with bindir="
echo "make uninstall removes every file it installed; bindir= places the CLI, mandir= its manual page"
mk clean
[ ! -e "$work/build/locality-uuid" ] && [ ! -e "$work/build/locality_uuid.so" ] && [ ! -e "$work/build/cli-objects" ] ||
  fail "make clean left the CLI, its objects or the module"
echo "make clean removes the module and the CLI"
