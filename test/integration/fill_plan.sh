#!/usr/bin/env bash
# locality_uuid_fill's batches walk the key's index at any physical order:
# bench/fill_plan.sh on a 1M-row table stored in key order, in random
# order, and in random order with an index of the keys to fill; 333,333
# rows to fill at batch sizes 1,000 / 10,000 / 100,000.
# Every fill fills them all, and scans the whole table at most three times
# (its count of the rows to fill, its search for the first, its count of
# the rows left): a batch that read the whole table would add one per
# batch (the first version at batch size 10,000: 34). The times are the
# benchmark's to print (BENCHMARKS.md §8), not this test's.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
FILL_PLAN_ROWS=1000000 FILL_PLAN_OUT="$out" timeout 900 bash "$ROOT/bench/fill_plan.sh" >"$out/run.log" 2>&1 ||
  { tail -n 30 "$out/run.log"; fail "bench/fill_plan.sh"; }
fills=0
while IFS=, read -r rows order batch fill_s per_s filled seq_scans idx_scans; do
  [ "$rows" = rows ] && continue
  fills=$((fills + 1))
  [ "$filled" = 333333 ] || fail "$order order, batch_size $batch: $filled rows filled"
  [ "$seq_scans" -le 3 ] || fail "$order order, batch_size $batch: $seq_scans sequential scans of the table (batches read all of it)"
  # Statistics that never arrived would pass the bound above: the index
  # scans prove they did.
  [ "$idx_scans" -gt 0 ] || fail "$order order, batch_size $batch: no index scan counted"
  echo "1M rows in $order order, batch_size $batch: 333,333 filled, $seq_scans sequential scans, $idx_scans index scans"
done <"$out/fill_plan.csv"
[ "$fills" = 9 ] || fail "$fills fills measured"
