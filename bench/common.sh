# Shared by the bench/ scripts: a throw-away cluster and a best-of-N timer (BENCH_REPEAT, default 5).
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"

# best_ms SQL: best of $BENCH_REPEAT (default 5) executor times (ms) of SQL, from EXPLAIN ANALYZE
# without per-node timing, so client and network costs are not counted.
best_ms() {
  local best="" t i
  for i in $(seq "${BENCH_REPEAT:-5}"); do
    t=$(psql -X -At -v ON_ERROR_STOP=1 -c "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, FORMAT JSON) $1" \
        | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["Execution Time"])')
    best=$(python3 -c "print(min(float('$t'), float('${best:-inf}')))")
  done
  echo "$best"
}

machine_line() {
  echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -1); $(psql -X -At -c 'SELECT version()' | cut -d, -f1)"
}
