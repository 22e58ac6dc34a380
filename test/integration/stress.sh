#!/usr/bin/env bash
# Uniqueness under concurrency: 8 pgbench clients insert 2,000,000 rows per
# kind of id through a DEFAULT into a uuid primary key (locality_uuid() in
# variable and in sequential mode, hot_guid(42)), with the library preloaded
# (one server-wide counter). Any duplicate id would be a unique violation,
# which aborts a client and makes the row count short.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
CLIENTS=${STRESS_CLIENTS:-8}
ROWS_PER_TX=1000
TX_PER_CLIENT=${STRESS_TX_PER_CLIENT:-250}   # 8 * 250 * 1000 = 2,000,000 rows per mode

run() {
  set -euo pipefail
  q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
  q -c "CREATE EXTENSION locality_uuid"
  echo "counter scope: $(q -c 'SELECT locality_uuid_counter_scope()')"
  local script expected=$((CLIENTS * TX_PER_CLIENT * ROWS_PER_TX)) status=0
  script=$(mktemp)
  trap 'rm -f "$script" "$script.out"' RETURN
  echo "INSERT INTO stress (client) SELECT :client_id FROM generate_series(1, $ROWS_PER_TX);" >"$script"
  local kind mode default check
  for kind in variable sequential hot_guid; do
    mode=off; default="locality_uuid()"; check="locality_uuid_version(id) <> 'b'"
    [ "$kind" = sequential ] && mode=on
    [ "$kind" = hot_guid ] && { default="hot_guid(42)"; check="hot_guid_shard_key(id) <> 42"; }
    q -c "DROP TABLE IF EXISTS stress" 2>/dev/null; q -c "CREATE TABLE stress (id uuid PRIMARY KEY DEFAULT $default, client int)"
    local start=$SECONDS
    if ! PGOPTIONS="-c locality_uuid.sequential=$mode" \
         pgbench -n -c "$CLIENTS" -j 2 -t "$TX_PER_CLIENT" -f "$script" >"$script.out" 2>&1; then
      cat "$script.out"; status=1
    fi
    read -r rows distinct clients < <(q -F ' ' -c "SELECT count(*), count(DISTINCT id), count(DISTINCT client) FROM stress")
    not_version_b=$(q -c "SELECT count(*) FROM stress WHERE $check")
    printf '%-10s %d clients: %d rows, %d distinct ids, %d clients wrote, %ds\n' \
      "$kind" "$CLIENTS" "$rows" "$distinct" "$clients" $((SECONDS - start))
    grep -E 'number of (failed|transactions actually)' "$script.out" || true
    [ "$rows" = "$expected" ] && [ "$distinct" = "$expected" ] && [ "$clients" = "$CLIENTS" ] \
      && [ "$not_version_b" = 0 ] || { echo "FAIL: expected $expected unique rows"; status=1; }
  done
  return $status
}
export -f run
export CLIENTS ROWS_PER_TX TX_PER_CLIENT
with_cluster -o shared_preload_libraries=locality_uuid -o max_wal_size=4GB -o fsync=off -- bash -c run
echo "stress test passed: 0 unique violations"
