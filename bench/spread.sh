#!/usr/bin/env bash
# Shard spread: for 16 equal ranges of the first hex digit (what a
# range-sharded store sees), the share of 1M ids made within one 10-minute
# window that falls in each range, per generator.
# Prints a table; exits non-zero only when it cannot run.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
IDS=${BENCH_IDS:-1000000}

run() {
  set -euo pipefail
  q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
  q -c "CREATE EXTENSION locality_uuid" -c 'CREATE EXTENSION "uuid-ossp"'
  machine_line
  echo "$IDS ids per generator, each set made within one 10-minute UTC window"
  echo
  printf '| %-26s | %11s | %15s | %15s | %8s |\n' generator "ranges used" "busiest range" "quietest range" "max/min"
  echo "|----------------------------|-------------|-----------------|-----------------|----------|"
  local name expr attempt row
  while IFS='|' read -r name expr; do
    for attempt in 1 2 3; do
      # Retry if the set straddled a window boundary (it takes about a second).
      q -c "DROP TABLE IF EXISTS ids" 2>/dev/null
      q -c "CREATE TABLE ids AS SELECT $expr AS id, clock_timestamp() AS t FROM generate_series(1, $IDS)"
      [ "$(q -c "SELECT count(DISTINCT floor(extract(epoch FROM t) / 600)) FROM ids")" = 1 ] && break
    done
    row=$(q -F '|' -c "
      WITH r AS (SELECT left(id::text, 1) AS digit, count(*) AS n FROM ids GROUP BY 1),
           all16 AS (SELECT d.digit, coalesce(r.n, 0) AS n
                     FROM unnest(string_to_array('0 1 2 3 4 5 6 7 8 9 a b c d e f', ' ')) d(digit)
                     LEFT JOIN r USING (digit))
      SELECT count(*) FILTER (WHERE n > 0),
             round(100.0 * max(n) / sum(n), 2) || '%',
             round(100.0 * min(n) / sum(n), 2) || '%',
             CASE WHEN min(n) = 0 THEN 'inf' ELSE round(max(n)::numeric / min(n), 3)::text END
      FROM all16")
    IFS='|' read -r used busiest quietest maxmin <<<"$row"
    printf '| %-26s | %8s/16 | %15s | %15s | %8s |\n' "$name" "$used" "$busiest" "$quietest" "$maxmin"
  done <<'GENERATORS'
locality_uuid variable|locality_uuid(false)
locality_uuid sequential|locality_uuid(true)
gen_random_uuid()|gen_random_uuid()
uuid_generate_v1()|uuid_generate_v1()
GENERATORS
}
export -f run machine_line
export IDS
with_cluster -o shared_preload_libraries=locality_uuid -- bash -c run
