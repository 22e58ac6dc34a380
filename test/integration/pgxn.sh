#!/usr/bin/env bash
# The PGXN distribution, as PGXN and its client take it:
#   make dist     locality_uuid-<version>.zip of the committed tree, one top
#                 directory locality_uuid-<version>/, no build outputs, the
#                 sources, tests and docs inside
#   META.json     valid against the PGXN Meta Spec 1.0.0 (required keys and
#                 their forms, semantic versions, a known license, every
#                 provided file and docfile in the zip) and naming the
#                 control file's version
#   pgxn install  Debian's pgxnclient builds and installs the zip; pgxn load
#                 creates the extension in a throw-away cluster, which then
#                 makes ids; pgxn uninstall removes what it installed
# The tree's own build is installed again afterwards.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
ensure_packages pgxnclient unzip
work=$(mktemp -d)
# (A test run's compiler cache leaves this copy's own path out of its key:
# scripts/compiler_cache.sh; pgxn unpacks the zip under TMPDIR, here.)
export CCACHE_BASEDIR=$work
trap 'rm -rf "$work"; install_built_extension' EXIT
fail() { echo "FAIL: $*"; exit 1; }

[ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no)" ] ||
  echo "note: the working tree has uncommitted changes; make dist packs HEAD"
make -s -C "$ROOT" dist >/dev/null
dist=$(ls "$ROOT"/locality_uuid-*.zip)
mv "$dist" "$work/"
zip="$work/$(basename "$dist")"
name=$(basename "$zip" .zip)
unzip -q "$zip" -d "$work/unpacked"
tops=$(ls "$work/unpacked")
[ "$tops" = "$name" ] || fail "top directories of the zip: $tops (wanted $name)"
built=$(cd "$work/unpacked/$name" && find . \( -name '*.o' -o -name '*.so' -o -name '*.bc' -o -name '.git' -o -name results \
                                            -o -name 'locality-uuid' -type f \) | head -5)
[ -z "$built" ] || fail "build outputs in the zip: $built"
for f in META.json README.md LICENSE Makefile locality_uuid.control sql expected specs test/unit src/core src/pg doc/locality-uuid.1; do
  [ -e "$work/unpacked/$name/$f" ] || fail "$f missing from the zip"
done
echo "make dist: $(basename "$zip"), $(unzip -l "$zip" | tail -n 1 | awk '{print $2}') files under $name/, no build outputs"

# The PGXN Meta Spec 1.0.0 (https://pgxn.org/spec/), the parts a
# distribution must get right.
python3 - "$work/unpacked/$name" "$(control_version)" <<'PY'
import json, os, re, sys
root, control_version = sys.argv[1], sys.argv[2]
meta = json.load(open(os.path.join(root, "META.json")))
errors = []
semver = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z]+)?$")
for key in ("name", "version", "abstract", "maintainer", "license", "provides", "meta-spec"):
    if key not in meta:
        errors.append(f"required key {key} missing")
if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", meta.get("name", "")) or len(meta.get("name", "")) < 2:
    errors.append(f"name {meta.get('name')!r}")
if not semver.match(meta.get("version", "")):
    errors.append(f"version {meta.get('version')!r} is not a semantic version")
if meta.get("version") != control_version + ".0":
    errors.append(f"version {meta.get('version')} is not the control file's {control_version} (as x.y.0)")
if meta.get("meta-spec", {}).get("version") != "1.0.0":
    errors.append("meta-spec version is not 1.0.0")
m = meta.get("maintainer")
if not (isinstance(m, str) and m) and not (isinstance(m, list) and m and all(isinstance(x, str) and x for x in m)):
    errors.append("maintainer must be a string or a list of strings")
licenses = {"agpl_3", "apache_1_1", "apache_2_0", "artistic_1", "artistic_2", "bsd", "freebsd", "gfdl_1_2",
            "gfdl_1_3", "gpl_1", "gpl_2", "gpl_3", "lgpl_2_1", "lgpl_3_0", "mit", "mozilla_1_0", "mozilla_1_1",
            "openssl", "perl_5", "postgresql", "qpl_1_0", "ssleay", "sun", "zlib", "open_source",
            "restricted", "unrestricted", "unknown"}
lic = meta.get("license")
if not ((isinstance(lic, str) and lic in licenses) or isinstance(lic, dict)):
    errors.append(f"license {lic!r} is not one the spec names")
for ext, p in meta.get("provides", {}).items():
    if not semver.match(p.get("version", "")):
        errors.append(f"provides {ext}: version {p.get('version')!r}")
    for field in ("file", "docfile"):
        if field in p and not os.path.exists(os.path.join(root, p[field])):
            errors.append(f"provides {ext}: {field} {p[field]} is not in the distribution")
    if "file" not in p:
        errors.append(f"provides {ext}: no file")
if meta.get("release_status", "stable") not in ("stable", "testing", "unstable"):
    errors.append(f"release_status {meta['release_status']!r}")
for phase, kinds in meta.get("prereqs", {}).items():
    if phase not in ("configure", "build", "test", "runtime", "develop"):
        errors.append(f"prereqs phase {phase}")
    for kind in kinds:
        if kind not in ("requires", "recommends", "suggests", "conflicts"):
            errors.append(f"prereqs {phase}.{kind}")
for e in errors:
    print("FAIL: META.json:", e)
if errors:
    sys.exit(1)
print(f"META.json: valid against the PGXN Meta Spec 1.0.0; {meta['name']} {meta['version']} provides "
      + ", ".join(f"{k} {v['version']} ({v['file']})" for k, v in meta["provides"].items()))
PY

# pgxnclient, as a DBA runs it; nothing of this tree's make install may
# stand in for what it installs.
make -C "$ROOT" -s PG_CONFIG="$PG_CONFIG" uninstall >/dev/null
libdir=$("$PG_CONFIG" --pkglibdir)
[ ! -e "$libdir/locality_uuid.so" ] || fail "the module is still installed before pgxn install"
(cd "$work" && TMPDIR="$work" pgxn install --yes --pg_config "$PG_CONFIG" --make make "./$(basename "$zip")" >"$work/install.log" 2>&1) ||
  { tail -n 30 "$work/install.log"; fail "pgxn install"; }
[ -e "$libdir/locality_uuid.so" ] || fail "pgxn install installed no module"
echo "pgxn install ./$(basename "$zip"): built and installed for PostgreSQL $PG_MAJOR"
load() {
  set -euo pipefail
  cd "$work"
  # The C edition (META.json provides the SQL edition too; its data-only
  # extension is built with make sql-edition, and refuses a database's
  # schema that holds the C edition).
  pgxn load --yes --pg_config "$PG_CONFIG" -d postgres "./$(basename "$zip")" locality_uuid >"$work/load.log" 2>&1 ||
    { cat "$work/load.log"; return 1; }
  read -r version kind < <(psql -X -At -F ' ' -c "SELECT extversion, locality_uuid_version(locality_uuid()) FROM pg_extension WHERE extname = 'locality_uuid'")
  [ "$version $kind" = "$EXTVERSION b" ] || { echo "FAIL: after pgxn load: $version $kind"; return 1; }
  echo "pgxn load: extension $version created, locality_uuid() makes ids"
}
export -f load
export work zip PG_CONFIG
EXTVERSION=$(control_version)
export EXTVERSION
with_cluster -- bash -c load
(cd "$work" && TMPDIR="$work" pgxn uninstall --yes --pg_config "$PG_CONFIG" --make make "./$(basename "$zip")" >"$work/uninstall.log" 2>&1) ||
  { tail -n 30 "$work/uninstall.log"; fail "pgxn uninstall"; }
[ ! -e "$libdir/locality_uuid.so" ] || fail "pgxn uninstall left the module"
echo "pgxn uninstall: the module is gone"
