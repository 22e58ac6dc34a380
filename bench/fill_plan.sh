#!/usr/bin/env bash
# locality_uuid_fill's batch plan at every table size and physical order
# (issue: a batch's UPDATE ... FROM batch planned as a Hash Join over a Seq
# Scan once batch_size is a fraction of a percent of the table).
#
# For each table size (FILL_PLAN_ROWS, default 1M and 10M rows) and each
# physical order (FILL_PLAN_ORDERS: rows stored in key order, or in a
# random order, as after years of updates or a load in another order, the
# latter also with an index of the keys still to fill), a table
#   t (k bigint PRIMARY KEY, created_at timestamptz, id uuid, pad text)
# whose id is set for every row but those whose key is a multiple of
# rows / 300,000 (333,333 of 1M, 303,030 of 10M), spread evenly over the
# key range; then, per batch size (1,000 / 10,000 / 100,000), those 300,000
# filled with locality_uuid_fill(..., 'locality_uuid_at(t.created_at, true)'),
# after a CHECKPOINT, and their id set back to NULL (and the table
# vacuumed) for the next.
# Per fill: seconds, rows/s, batches, and the sequential and index scans
# of t that the fill made (pg_stat_user_tables). Besides its batches a
# fill scans the table to count the rows to fill and searches for the
# first one (two scans at most), and since the fix counts the rows left
# at the end (one more); every other sequential scan is a batch that read
# the whole table. Parallel query is off, so that each scan counts once
# (a parallel scan counts once per process).
#
#   FILL_PLAN_ROWS="1000000"  FILL_PLAN_OUT=bench/results/fill-plan-<major>
# Writes fill_plan.csv and summary.md to FILL_PLAN_OUT and prints the summary.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
SIZES=${FILL_PLAN_ROWS:-1000000 10000000}
# key: stored in key order; random: in random order; partial: in random
# order, with an index of the keys still to fill (CREATE INDEX ... WHERE
# id IS NULL), as README advises for such tables.
ORDERS=${FILL_PLAN_ORDERS:-key random partial}
OUT=${FILL_PLAN_OUT:-$ROOT/bench/results/fill-plan-$PG_MAJOR}
export CLUSTER_TIMEOUT=${CLUSTER_TIMEOUT:-5400}
mkdir -p "$OUT"

run() {
  set -euo pipefail
  q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
  now() { date +%s.%N; }
  since() { awk -v t0="$1" -v t1="$(now)" 'BEGIN { printf "%.2f", t1 - t0 }'; }
  scans() {  # sequential and index scans of t so far (stats flushed by then)
    q -F ' ' -c "SELECT pg_stat_clear_snapshot()" \
      -c "SELECT seq_scan, coalesce(idx_scan, 0) FROM pg_stat_user_tables WHERE relname = 't'" | tail -n 1
  }
  q -c "CREATE EXTENSION locality_uuid"
  machine_line >"$OUT/machine.txt"
  echo "333,333 (1M) or 303,030 (10M) rows to fill a table, spread over its key range, a CHECKPOINT before each fill; shared_buffers $(q -c 'SHOW shared_buffers')," \
       "random_page_cost $(q -c 'SHOW random_page_cost') (Debian's default), autovacuum off, no parallel query (each scan counts once)" >>"$OUT/machine.txt"
  echo "rows,order,batch_size,fill_s,rows_per_s,filled,seq_scans,idx_scans" >"$OUT/fill_plan.csv"
  local rows order stride batch t0 fill_s filled s0 i0 s1 i1
  for rows in $SIZES; do
    stride=$(( rows / 300000 ))
    for order in $ORDERS; do
      q -c "DROP TABLE IF EXISTS t" \
        -c "CREATE TABLE t (k bigint PRIMARY KEY, created_at timestamptz NOT NULL, id uuid, pad text)" \
        -c "INSERT INTO t SELECT g, timestamptz '2026-01-01' + g * interval '250 ms',
                  CASE WHEN g % $stride <> 0 THEN gen_random_uuid() END, repeat('x', 80)
            FROM generate_series(1, $rows) g ORDER BY $([ $order = key ] && echo g || echo 'random()')"
      # The README's advice for a big table stored out of key order: an
      # index of the keys still to fill, so that a batch finds its rows
      # without reading every row of its key range.
      if [ "$order" = partial ]; then q -c "CREATE INDEX t_unfilled ON t (k) WHERE id IS NULL"; fi
      q -c "VACUUM ANALYZE t"
      for batch in 1000 10000 100000; do
        # Every fill starts after a checkpoint: each pays the full-page
        # images of its first write to a page, not only the first fill.
        q -c "CHECKPOINT"
        read -r s0 i0 <<<"$(scans)"
        t0=$(now)
        filled=$(q -c "CALL locality_uuid_fill('t', 'id', 'locality_uuid_at(t.created_at, true)', batch_size => $batch)" 2>/dev/null)
        fill_s=$(since "$t0")
        sleep 1.2  # the session's statistics reach the shared ones
        read -r s1 i1 <<<"$(scans)"
        printf '%s,%s,%s,%s,%s,%s,%s,%s\n' "$rows" "$order" "$batch" "$fill_s" \
          "$(awk -v n="$filled" -v s="$fill_s" 'BEGIN { printf "%d", n / s }')" "$filled" \
          $((s1 - s0)) $((i1 - i0)) >>"$OUT/fill_plan.csv"
        q -c "UPDATE t SET id = NULL WHERE k % $stride = 0" -c "VACUUM ANALYZE t"
      done
    done
  done
}
export -f run machine_line
export OUT SIZES ORDERS
with_cluster -o shared_preload_libraries=locality_uuid -o shared_buffers=256MB -o max_wal_size=4GB -o max_parallel_workers_per_gather=0 \
  -o autovacuum=off -o jit=off -- bash -c run >/dev/null

python3 - "$OUT" <<'PY'
import csv, sys
out = sys.argv[1]
with open(f"{out}/summary.md", "w") as s:
    s.write("| table rows | stored | batch_size | fill s | rows/s | rows filled | sequential scans of the table | index scans |\n")
    s.write("|---|---|---|---|---|---|---|---|\n")
    for r in csv.DictReader(open(f"{out}/fill_plan.csv")):
        stored = {"key": "in key order", "random": "in random order",
                  "partial": "in random order, index of keys to fill"}[r["order"]]
        s.write(f'| {int(r["rows"]):,} | {stored} '
                f'| {int(r["batch_size"]):,} | {r["fill_s"]} | {int(r["rows_per_s"]):,} | {int(r["filled"]):,} '
                f'| {r["seq_scans"]} | {int(r["idx_scans"]):,} |\n')
PY
cat "$OUT/machine.txt"
echo
cat "$OUT/summary.md"
echo
echo "(sequential scans: 2 or 3 are the fill's own counts and search; more are batches that read the whole table)"
echo "CSV and summary in $OUT"
