#!/usr/bin/env bash
# bench/growth.sh on a small table (200,000 rows in 4 batches): it stops by
# itself, writes a CSV row per key kind and batch with every measure, the
# four plots as PNG images, and a summary with every key kind against
# bigint. (The figures themselves belong to BENCHMARKS.md, not to a test.)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
GROWTH_ROWS=200000 GROWTH_BATCHES=4 GROWTH_OUT="$out" timeout 900 bash "$ROOT/bench/growth.sh" >"$out/run.log" 2>&1 ||
  { tail -n 30 "$out/run.log"; fail "bench/growth.sh"; }
keys="bigint seq var hot1 hot16 random"
[ "$PG_MAJOR" -ge 18 ] && keys="$keys v7"
for key in $keys; do
  n=$(awk -F, -v k="$key" '$1 == k && $3 > 0 && $4 > 0 && $5 > 0 && $7 > 0 && $8 != "" {n++} END {print n + 0}' "$out/growth.csv")
  [ "$n" = 4 ] || fail "$key: $n complete CSV rows of 4"
done
in_summary=$(grep -c "^| .* | 192,000 | [0-9]* | [0-9.]*x | [0-9]* | [0-9.]*x | [0-9.]* | [0-9.]*x | " "$out/summary.md" || true)
[ "$in_summary" = "$(wc -w <<<"$keys")" ] || fail "$in_summary key kinds in the summary"

echo "growth.csv: 4 batches of 48,000 rows for each of: $keys"
for plot in rows_per_s wal_per_row index_size fpi_per_row; do
  [ "$(head -c 8 "$out/$plot.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$plot.png is not a PNG image"
done
echo "plots: rows_per_s.png wal_per_row.png index_size.png fpi_per_row.png"
grep -q "^| bigint identity | 192,000 | [0-9]* | 1.00x | [0-9]* | 1.00x | [0-9.]* | 1.00x |" "$out/summary.md" ||
  fail "summary has no bigint baseline"
echo "summary: every key kind against bigint"
