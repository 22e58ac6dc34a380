#!/usr/bin/env bash
# bench/backfill.sh on a small table (100,000 rows; a VACUUM every 20,000,
# so that each fill call commits two batches of 10,000 while the writer runs):
# it stops by itself, and every recipe fills every row with a distinct id
# while the writer runs, builds the unique index and reports every measure.
# (The figures themselves belong to BENCHMARKS.md, not to a test.)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
BACKFILL_ROWS=100000 BACKFILL_SLICE=20000 BACKFILL_OUT="$out" timeout 900 bash "$ROOT/bench/backfill.sh" >"$out/run.log" 2>&1 ||
  { tail -n 30 "$out/run.log"; fail "bench/backfill.sh"; }
recipes="seq var random v1 oneshot"
for recipe in $recipes; do
  # recipe,rows,fill_s,vacuum_s,index_s,total_s,wal_mb,table_mb_before,table_mb_after,index_mb,
  # distinct_ids,writer_tx,writer_p50_ms,writer_p99_ms,writer_max_ms,lock_waits,longest_lock_wait_ms
  line=$(awk -F, -v r="$recipe" '$1 == r' "$out/backfill.csv")
  [ -n "$line" ] || fail "$recipe: no CSV row"
  IFS=, read -r _ rows fill vacuum index total wal before after index_mb distinct tx p50 p99 max waits longest <<<"$line"
  [ "$rows" = 100000 ] || fail "$recipe: $rows rows"
  [ "$distinct" = all ] || fail "$recipe: ids distinct: $distinct"
  python3 -c "import sys; sys.exit(0 if all(float(x) > 0 for x in sys.argv[1:]) else 1)" \
    "$fill" "$vacuum" "$index" "$total" "$wal" "$before" "$after" "$index_mb" "$tx" "$p50" "$p99" "$max" ||
    fail "$recipe: a measure is not positive: $line"
  [[ $waits =~ ^[0-9]+$ && $longest =~ ^[0-9.]+$ ]] || fail "$recipe: lock waits '$waits', longest '$longest'"
  echo "$recipe: every row filled, ids distinct, unique index built; writer $tx transactions, $waits lock waits"
done
in_summary=$(grep -c "^| .* | 100,000 | [0-9.]* | [0-9.]* | [0-9.]* | [0-9.]* | [0-9]* | [0-9]* → [0-9]* | [0-9]* | all | " "$out/summary.md" || true)
[ "$in_summary" = 5 ] || fail "$in_summary recipes in the summary"
echo "summary: all 5 recipes"
