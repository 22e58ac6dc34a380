#!/usr/bin/env bash
# The upgrade path. For every update script locality_uuid--A--B.sql, a
# database that installed A and ran ALTER EXTENSION ... UPDATE TO 'B' must
# have exactly the catalog of a fresh install of B: functions (arguments
# with names and defaults, result, volatility, parallel safety,
# strictness, security, C symbol, comment, privileges), the extension's own comment and
# version, and the settings the library defines; a table using the
# extension must keep working across the update. Every version must be
# reachable from 1.0, at least one update script must exist and be checked,
# and updating at the default version must be a no-op.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"

run() {
  set -euo pipefail
  q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
  surface="SELECT p.proname::text, pg_get_function_arguments(p.oid), pg_get_function_result(p.oid),
                  p.provolatile::text, p.proparallel::text, p.proisstrict::text, p.prosecdef::text,
                  p.prosrc, p.probin, obj_description(p.oid, 'pg_proc'),
                  coalesce(p.proacl::text, 'default privileges')
           FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
           WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'locality_uuid')
           UNION ALL
           SELECT 'extension', extversion, obj_description(oid, 'pg_extension'), NULL, NULL, NULL,
                  NULL, NULL, NULL, NULL, NULL
           FROM pg_extension WHERE extname = 'locality_uuid'
           UNION ALL
           SELECT 'setting', name, setting, context, vartype, min_val, max_val, boot_val, NULL, short_desc, NULL
           FROM pg_settings WHERE name LIKE 'locality_uuid.%'
           ORDER BY 1, 2"
  # The settings appear once the library is loaded in the session.
  surface_of() { q -d "$1" -c "LOAD 'locality_uuid'" -c "$surface"; }
  default=$(q -c "SELECT default_version FROM pg_available_extensions WHERE name = 'locality_uuid'")
  echo "default version: $default"
  unreachable=$(q -c "SELECT string_agg(version, ', ') FROM pg_available_extension_versions
                      WHERE name = 'locality_uuid' AND version <> '1.0'
                        AND NOT EXISTS (SELECT FROM pg_extension_update_paths('locality_uuid')
                                        WHERE source = '1.0' AND target = version AND path IS NOT NULL)")
  [ -z "$unreachable" ] || { echo "FAIL: not reachable from 1.0: $unreachable"; return 1; }

  local checked=0 script from to
  for script in "$ROOT"/extension/locality_uuid--*--*.sql; do
    [ -e "$script" ] || continue
    from=$(basename "$script" .sql | cut -d- -f3); to=$(basename "$script" .sql | cut -d- -f5)
    q -c "CREATE DATABASE updated" -c "CREATE DATABASE fresh"
    q -d updated -c "CREATE EXTENSION locality_uuid VERSION '$from'" \
      -c "CREATE TABLE t (id uuid PRIMARY KEY DEFAULT locality_uuid(), n int)" \
      -c "INSERT INTO t (n) VALUES (1)" \
      -c "ALTER EXTENSION locality_uuid UPDATE TO '$to'" \
      -c "INSERT INTO t (n) VALUES (2)"
    q -d fresh -c "CREATE EXTENSION locality_uuid VERSION '$to'"
    if ! diff <(surface_of updated) <(surface_of fresh); then
      echo "FAIL: $from -> $to differs from a fresh $to"; return 1
    fi
    [ "$(q -d updated -c "SELECT count(*) FROM t WHERE locality_uuid_version(id) = 'b'")" = 2 ] \
      || { echo "FAIL: table broken by $from -> $to"; return 1; }
    q -c "DROP DATABASE updated" -c "DROP DATABASE fresh"
    echo "update $from -> $to matches a fresh install of $to"
    checked=$((checked + 1))
  done
  echo "$checked update script(s) checked"
  [ "$checked" -ge 1 ] || { echo "FAIL: no update script was checked"; return 1; }

  q -c "CREATE EXTENSION locality_uuid"
  before=$(surface_of postgres)
  out=$(psql -X -v ON_ERROR_STOP=1 -c "ALTER EXTENSION locality_uuid UPDATE" 2>&1)
  echo "$out" | grep -q "version \"$default\" of extension \"locality_uuid\" is already installed" \
    || { echo "FAIL: unexpected: $out"; return 1; }
  [ "$before" = "$(surface_of postgres)" ] || { echo "FAIL: no-op update changed functions"; return 1; }
  echo "ALTER EXTENSION locality_uuid UPDATE at $default is a no-op"
}
export -f run
with_cluster -- bash -c run
