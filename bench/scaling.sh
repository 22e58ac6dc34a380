#!/usr/bin/env bash
# Generation throughput as clients are added: ids/s for 1, 2, 4 and 8
# pgbench clients, each transaction SELECT count(locality_uuid()) over
# 10,000 rows, with the library preloaded (one shared-memory counter) and
# without (one counter per backend), in both modes.
# Prints a table; exits non-zero only when it cannot run.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
SECONDS_PER_RUN=${BENCH_SECONDS:-8}

run() {
  set -euo pipefail
  psql -X -q -c "CREATE EXTENSION locality_uuid"
  local scope script clients mode tps base
  scope=$(psql -X -At -c "SELECT locality_uuid_counter_scope()")
  script=$(mktemp)
  trap 'rm -f "$script"' RETURN
  for mode in false true; do
    echo "SELECT count(locality_uuid($mode)) FROM generate_series(1, 10000);" >"$script"
    base=""
    for clients in 1 2 4 8; do
      tps=$(pgbench -n -c "$clients" -j "$clients" -T "$SECONDS_PER_RUN" -f "$script" 2>&1 |
            sed -n 's/^tps = \([0-9.]*\) .*/\1/p' | head -1)
      base=${base:-$tps}
      printf '| %-7s | %-10s | %7s | %12.0f | %7.2fx |\n' "$scope" \
        "$([ $mode = true ] && echo sequential || echo variable)" "$clients" \
        "$(python3 -c "print($tps * 10000)")" "$(python3 -c "print($tps / $base)")"
    done
  done
}
export -f run machine_line
export SECONDS_PER_RUN
with_cluster -o jit=off -- bash -c machine_line
echo "$(nproc) cores; ${SECONDS_PER_RUN}s per run; scaling: ids/s over the 1-client figure of the same row group"
echo
echo "| counter | mode       | clients |        ids/s | scaling |"
echo "|---------|------------|---------|--------------|---------|"
with_cluster -o shared_preload_libraries=locality_uuid -o jit=off -- bash -c run
with_cluster -o jit=off -- bash -c run
