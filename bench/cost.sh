#!/usr/bin/env bash
# Cost per call, one backend: SELECT count(f(...)) FROM generate_series(1, N),
# best of 5, against what PostgreSQL ships (gen_random_uuid(), uuid-ossp, and
# core uuidv7() on 18+) and the seed PL/pgSQL/SQL functions. On another
# major: bash scripts/in_major.sh 18 bash bench/run.sh cost
# Extractors run over a 1M-row table column (constants would be folded).
# Prints a table; exits non-zero only when it cannot run.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
N=${BENCH_N:-2000000}
ROWS=${BENCH_ROWS:-1000000}

run() {
  set -euo pipefail
  psql -X -q -v ON_ERROR_STOP=1 -f "$ROOT/bench/sql/setup_cost.sql" -v rows="$ROWS" >/dev/null
  machine_line
  echo "calls per query: $N (generators), $ROWS (extractors over a table column); best of ${BENCH_REPEAT:-5}"
  echo
  printf '| %-52s | %9s | %8s | %8s |\n' "query" "ns/call" "vs first" "speed-up"
  printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..54})" "-----------" "----------" "----------"
  local floor="" name sql ms ns base="" major
  major=$(psql -X -At -c "SELECT current_setting('server_version_num')::int / 10000")
  while IFS='|' read -r name sql; do
    [ -n "$name" ] || continue
    # "[18] name": only on PostgreSQL 18 and later.
    if [[ $name =~ ^\[([0-9]+)\]\ (.*)$ ]]; then
      [ "$major" -ge "${BASH_REMATCH[1]}" ] || continue
      name=${BASH_REMATCH[2]}
    fi
    case "$name" in \#*) printf '| **%s** | | | |\n' "${name#\# }"; base=""; continue ;; esac
    sql=${sql//:N/$N}
    ms=$(best_ms "$sql")
    local per=$N; [[ "$sql" == *"FROM bench_"* ]] && per=$ROWS
    ns=$(python3 -c "print(round($ms * 1e6 / $per, 1))")
    [ -n "$base" ] || base=$ns
    printf '| %-52s | %9s | %7sx | %7sx |\n' "$name" "$ns" \
      "$(python3 -c "print(round($ns / $base, 2))")" "$(python3 -c "print(round($base / $ns, 1))")"
  done <"$ROOT/bench/sql/cost_queries.txt"
  echo
  echo "vs first: ns/call divided by the group's first row; speed-up: the inverse"
}
export -f run best_ms machine_line
export N ROWS
with_cluster -o shared_preload_libraries=locality_uuid -o jit=off -o max_parallel_workers_per_gather=0 -- bash -c run
