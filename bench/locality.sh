#!/usr/bin/env bash
# Write locality: an insert-only pgbench workload into `id <key> PRIMARY KEY,
# payload text`, one run per key kind, with shared_buffers small enough that
# table and index outgrow it. Reports TPS, WAL bytes per row, index size and
# the INSERT's shared buffer hits/reads (pg_stat_statements).
# Prints a table; exits non-zero only when it cannot run.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
CLIENTS=${BENCH_CLIENTS:-4}
ROWS_PER_TX=${BENCH_ROWS_PER_TX:-10}
TX_PER_CLIENT=${BENCH_TX_PER_CLIENT:-25000}   # 4 * 25000 * 10 = 1,000,000 rows per kind

run() {
  set -euo pipefail
  q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
  q -c "CREATE EXTENSION locality_uuid" -c "CREATE EXTENSION pg_stat_statements"
  machine_line
  echo "$CLIENTS clients, $((CLIENTS * TX_PER_CLIENT * ROWS_PER_TX)) rows per kind in transactions of $ROWS_PER_TX rows;" \
       "shared_buffers $(q -c 'SHOW shared_buffers'), synchronous_commit off"
  echo
  printf '| %-26s | %8s | %7s | %9s | %9s | %10s | %9s | %10s |\n' key TPS "vs bigint" "WAL B/row" "vs bigint" "index MB" "hit ratio" "blks read"
  echo "|----------------------------|----------|-----------|-----------|-----------|------------|-----------|------------|"
  local script base_tps="" base_wal="" major
  major=$(q -c "SELECT current_setting('server_version_num')::int / 10000")
  script=$(mktemp)
  trap 'rm -f "$script"' RETURN
  echo "INSERT INTO t (payload) SELECT repeat('x', 64) FROM generate_series(1, $ROWS_PER_TX);" >"$script"
  while IFS='|' read -r name keydef; do
    # "[18] name": only on PostgreSQL 18 and later.
    if [[ $name =~ ^\[([0-9]+)\]\ (.*)$ ]]; then
      [ "$major" -ge "${BASH_REMATCH[1]}" ] || continue
      name=${BASH_REMATCH[2]}
    fi
    q -c "DROP TABLE IF EXISTS t" 2>/dev/null
    q -c "CREATE TABLE t (id $keydef PRIMARY KEY, payload text)"
    q -c "CHECKPOINT" -c "SELECT pg_stat_statements_reset()" >/dev/null
    local lsn0 out tps wal idx hit read ratio
    lsn0=$(q -c "SELECT pg_current_wal_lsn()")
    out=$(pgbench -n -c "$CLIENTS" -j 2 -t "$TX_PER_CLIENT" -f "$script" 2>&1)
    tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' <<<"$out" | head -1)
    read -r wal idx < <(q -F ' ' -c "SELECT round(pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn0') / count(*)),
                                            round(pg_relation_size('t_pkey') / 1048576.0, 1) FROM t")
    read -r hit read < <(q -F ' ' -c "SELECT sum(shared_blks_hit), sum(shared_blks_read) FROM pg_stat_statements
                                       WHERE query LIKE 'INSERT INTO t %'")
    ratio=$(python3 -c "print(f'{$hit / max($hit + $read, 1):.4f}')")
    base_tps=${base_tps:-$tps}; base_wal=${base_wal:-$wal}
    printf '| %-26s | %8.0f | %8.2fx | %9s | %8.2fx | %10s | %9s | %10s |\n' "$name" "$tps" \
      "$(python3 -c "print($tps / $base_tps)")" "$wal" "$(python3 -c "print($wal / $base_wal)")" "$idx" "$ratio" "$read"
  done <<'KINDS'
bigint identity|bigint GENERATED ALWAYS AS IDENTITY
locality_uuid sequential|uuid DEFAULT locality_uuid(true)
locality_uuid variable|uuid DEFAULT locality_uuid(false)
gen_random_uuid()|uuid DEFAULT gen_random_uuid()
hot_guid(42)|uuid DEFAULT hot_guid(42)
hot_guid(key 0-15 per row)|uuid DEFAULT hot_guid((random() * 15)::int)
[18] uuidv7() (core)|uuid DEFAULT uuidv7()
KINDS
}
export -f run machine_line
export CLIENTS ROWS_PER_TX TX_PER_CLIENT
with_cluster -o shared_preload_libraries=locality_uuid,pg_stat_statements -o shared_buffers=16MB \
  -o synchronous_commit=off -o max_wal_size=1GB -o checkpoint_timeout=30s -o jit=off -- bash -c run
