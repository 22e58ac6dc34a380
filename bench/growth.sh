#!/usr/bin/env bash
# How insert cost grows with the table: for each key kind, rows are
# inserted into `id <key> PRIMARY KEY, payload text` in fixed batches from
# several clients until GROWTH_ROWS, with shared_buffers small against the
# final index. Per batch: rows/s, WAL bytes and full-page images per row
# (pg_stat_wal on 14+), index size, index blocks read from outside shared
# buffers. Writes growth.csv, one PNG per measure (gnuplot) and summary.md
# (final batch, each key against bigint) to GROWTH_OUT; prints the summary.
#
#   GROWTH_ROWS=20000000 (100M works)   GROWTH_BATCHES=40   GROWTH_CLIENTS=4
#   GROWTH_SHARED_BUFFERS=64MB          GROWTH_OUT=bench/results/growth-<major>-<rows>
#   GROWTH_KEYS="bigint seq var hot1 hot16 random v7"   (v7: 18+ only)
# Bounded: GROWTH_BATCHES batches per key, each pgbench run with a timeout.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ensure_packages gnuplot-nox
ROWS=${GROWTH_ROWS:-20000000}
BATCHES=${GROWTH_BATCHES:-40}
CLIENTS=${GROWTH_CLIENTS:-4}
ROWS_PER_TX=1000
SHARED_BUFFERS=${GROWTH_SHARED_BUFFERS:-64MB}
KEYS=${GROWTH_KEYS:-bigint seq var hot1 hot16 random v7}
OUT=${GROWTH_OUT:-$ROOT/bench/results/growth-$PG_MAJOR-$ROWS}
TX_PER_CLIENT=$(( ROWS / BATCHES / ROWS_PER_TX / CLIENTS ))
BATCH_ROWS=$(( TX_PER_CLIENT * CLIENTS * ROWS_PER_TX ))
[ "$TX_PER_CLIENT" -ge 1 ] || { echo "GROWTH_ROWS too small for $BATCHES batches of $CLIENTS x $ROWS_PER_TX rows" >&2; exit 2; }
mkdir -p "$OUT"

run() {
  set -euo pipefail
  q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
  q -c "CREATE EXTENSION locality_uuid"
  local major has_wal_stats script
  major=$(q -c "SELECT current_setting('server_version_num')::int / 10000")
  has_wal_stats=$([ "$major" -ge 14 ] && echo 1 || echo 0)
  machine_line >"$OUT/machine.txt"
  echo "$CLIENTS clients, batches of $BATCH_ROWS rows in transactions of $ROWS_PER_TX," \
       "shared_buffers $(q -c 'SHOW shared_buffers'), synchronous_commit off, checkpoint_timeout 30s (full-page images after each checkpoint, as in production), max_wal_size 1GB" >>"$OUT/machine.txt"
  echo "key,batch,rows,rows_per_s,wal_bytes_per_row,fpi_per_row,index_mb,index_blks_read" >"$OUT/growth.csv"
  script=$(mktemp)
  echo "INSERT INTO t (payload) SELECT repeat('x', 64) FROM generate_series(1, $ROWS_PER_TX);" >"$script"
  local key keydef b rows=0
  for key in $KEYS; do
    case $key in
      bigint) keydef="bigint GENERATED ALWAYS AS IDENTITY" ;;
      seq) keydef="uuid DEFAULT locality_uuid(true)" ;;
      var) keydef="uuid DEFAULT locality_uuid(false)" ;;
      hot1) keydef="uuid DEFAULT hot_guid(42)" ;;
      hot16) keydef="uuid DEFAULT hot_guid((random() * 15)::int)" ;;
      random) keydef="uuid DEFAULT gen_random_uuid()" ;;
      v7) [ "$major" -ge 18 ] || { echo "skipped v7: uuidv7() needs PostgreSQL 18" >>"$OUT/machine.txt"; continue; }
          keydef="uuid DEFAULT uuidv7()" ;;
      *) echo "unknown key kind $key" >&2; return 2 ;;
    esac
    q -c "DROP TABLE IF EXISTS t" -c "CREATE TABLE t (id $keydef PRIMARY KEY, payload text)" -c "CHECKPOINT"
    rows=0
    for b in $(seq "$BATCHES"); do
      local lsn0 fpi0 read0 t0 t1 out
      read -r lsn0 fpi0 read0 < <(q -F ' ' -c "SELECT pg_current_wal_lsn(),
          $([ "$has_wal_stats" = 1 ] && echo "(SELECT wal_fpi FROM pg_stat_wal)" || echo 0),
          coalesce((SELECT idx_blks_read FROM pg_statio_user_indexes WHERE indexrelname = 't_pkey'), 0)")
      t0=$(date +%s.%N)
      out=$(timeout 3600 pgbench -n -c "$CLIENTS" -j 2 -t "$TX_PER_CLIENT" -f "$script" 2>&1) ||
        { echo "pgbench failed for $key, batch $b: $out" >&2; return 1; }
      t1=$(date +%s.%N)
      rows=$(( rows + BATCH_ROWS ))
      # pg_stat_wal and the index statistics are flushed by the backends as
      # they end; a moment for the stats collector (13, 14) to catch up.
      [ "$major" -ge 15 ] || sleep 0.6
      q -F ',' -c "SELECT '$key', $b, $rows,
          round($BATCH_ROWS / ($t1 - $t0)),
          round(pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn0') / $BATCH_ROWS, 1),
          $([ "$has_wal_stats" = 1 ] && echo "round(((SELECT wal_fpi FROM pg_stat_wal) - $fpi0)::numeric / $BATCH_ROWS, 4)" || echo "''"),
          round(pg_relation_size('t_pkey') / 1048576.0, 1),
          (SELECT idx_blks_read FROM pg_statio_user_indexes WHERE indexrelname = 't_pkey') - $read0" >>"$OUT/growth.csv"
    done
    echo "$key: $rows rows, index $(q -c "SELECT pg_size_pretty(pg_relation_size('t_pkey'))"), table $(q -c "SELECT pg_size_pretty(pg_relation_size('t'))")" >>"$OUT/machine.txt"
  done
  rm -f "$script"
  # The final index against shared_buffers: how far it outgrew memory.
  q -c "SELECT 'shared_buffers ' || current_setting('shared_buffers')" >>"$OUT/machine.txt"
}
export -f run machine_line
export OUT KEYS BATCHES CLIENTS ROWS_PER_TX TX_PER_CLIENT BATCH_ROWS
# GROWTH_REPORT_ONLY=1: the summary and plots again from GROWTH_OUT's CSV.
[ "${GROWTH_REPORT_ONLY:-0}" = 1 ] || with_cluster -o shared_preload_libraries=locality_uuid -o "shared_buffers=$SHARED_BUFFERS" \
  -o synchronous_commit=off -o max_wal_size=1GB -o checkpoint_timeout=30s -o jit=off -o autovacuum=off \
  -- bash -c run >/dev/null

python3 - "$OUT" <<'PY'
import csv, sys
out = sys.argv[1]
rows = list(csv.DictReader(open(f"{out}/growth.csv")))
keys = list(dict.fromkeys(r["key"] for r in rows))
names = {"bigint": "bigint identity", "seq": "locality_uuid(true) sequential", "var": "locality_uuid() variable",
         "hot1": "hot_guid(42)", "hot16": "hot_guid(key 0-15 per row)", "random": "gen_random_uuid()",
         "v7": "uuidv7() (core, 18+)"}
last = {k: [r for r in rows if r["key"] == k][-1] for k in keys}
# One data file per key for gnuplot.
for k in keys:
    with open(f"{out}/{k}.dat", "w") as f:
        for r in rows:
            if r["key"] == k:
                f.write(f'{int(r["rows"]) / 1e6} {r["rows_per_s"]} {r["wal_bytes_per_row"]} {r["fpi_per_row"] or 0} '
                        f'{r["index_mb"]} {r["index_blks_read"]}\n')
with open(f"{out}/plots.gp", "w") as g:
    g.write('set terminal pngcairo size 1000,600 font ",11" noenhanced\nset key outside right\nset grid\n'
            'set xlabel "rows inserted (millions)"\nset yrange [0:*]\n')
    for col, name, label in ((2, "rows_per_s", "rows/s (batch)"), (3, "wal_per_row", "WAL bytes per row"),
                             (5, "index_size", "primary key index (MB)"), (4, "fpi_per_row", "full-page images per row")):
        plots = ", ".join(f'"{out}/{k}.dat" using 1:{col} with linespoints title "{names.get(k, k)}"' for k in keys)
        g.write(f'set output "{out}/{name}.png"\nset ylabel "{label}"\nplot {plots}\n')
# Per key: rows/s of the final batch and of the last quarter of the batches
# (a single batch is short, and a checkpoint may or may not fall in it);
# WAL and full-page images per row over the whole run (time-based
# checkpoints: a slower run sees more of them, as in production).
def summary(k):
    rs = [r for r in rows if r["key"] == k]
    tail = rs[-max(1, len(rs) // 4):]
    batch_rows = int(rs[0]["rows"])
    return {"rows": int(rs[-1]["rows"]), "final": float(rs[-1]["rows_per_s"]),
            "tail": sum(float(r["rows_per_s"]) for r in tail) / len(tail),
            "wal": sum(float(r["wal_bytes_per_row"]) for r in rs) / len(rs),
            "fpi": sum(float(r["fpi_per_row"] or 0) for r in rs) / len(rs),
            "index": rs[-1]["index_mb"], "read": sum(int(r["index_blks_read"]) for r in rs)}
sums = {k: summary(k) for k in keys}
base = sums.get("bigint")
vs = lambda a, b: f"{a / b:.2f}x" if base and b else "-"
with open(f"{out}/summary.md", "w") as s:
    s.write("| key | rows | rows/s, final batch | vs bigint | rows/s, last quarter | vs bigint | WAL B/row | vs bigint "
            "| FPI/row | index MB | index blocks read |\n")
    s.write("|---|---|---|---|---|---|---|---|---|---|---|\n")
    for k in keys:
        r = sums[k]
        s.write(f'| {names.get(k, k)} | {r["rows"]:,} | {r["final"]:.0f} | {vs(r["final"], base["final"]) if base else "-"} '
                f'| {r["tail"]:.0f} | {vs(r["tail"], base["tail"]) if base else "-"} '
                f'| {r["wal"]:.1f} | {vs(r["wal"], base["wal"]) if base else "-"} | {r["fpi"]:.4f} | {r["index"]} | {r["read"]} |\n')
PY
gnuplot "$OUT/plots.gp"
cat "$OUT/machine.txt"
echo
cat "$OUT/summary.md"
echo
echo "CSV, plots and summary in $OUT"
