#!/usr/bin/env bash
# Cost per call, one backend: SELECT count(f(...)) FROM generate_series(1, N),
# best of 5 interleaved rounds, against what PostgreSQL ships (gen_random_uuid(), uuid-ossp, and
# core uuidv7() on 18+) and the seed PL/pgSQL/SQL functions. On another
# major: bash scripts/in_major.sh 18 bash bench/run.sh cost
# Extractors run over a 1M-row table column (constants would be folded).
# Prints a table; exits non-zero only when it cannot run.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
N=${BENCH_N:-2000000}
ROWS=${BENCH_ROWS:-1000000}
# bench/sql_edition.sh runs this with its own queries, and the SQL edition
# installed in schema sqled beside the C edition.
QUERIES=${BENCH_QUERIES:-$ROOT/bench/sql/cost_queries.txt}
SQL_EDITION=${BENCH_SQL_EDITION:-}
[ -z "$SQL_EDITION" ] || make -s -C "$ROOT" PG_CONFIG="$PG_CONFIG" sql-edition

# The floors of any uuid-returning C function (bench/floor/bench_floor.c),
# built against this major in a temporary directory the server can read.
FLOOR_DIR=$(mktemp -d)
trap 'rm -rf "$FLOOR_DIR"' EXIT
cp "$ROOT/bench/floor/bench_floor.c" "$ROOT/bench/floor/Makefile" "$FLOOR_DIR"
make -C "$FLOOR_DIR" -s PG_CONFIG="$PG_CONFIG" with_llvm=no >/dev/null
chmod -R a+rX "$FLOOR_DIR"

run() {
  set -euo pipefail
  psql -X -q -v ON_ERROR_STOP=1 -f "$ROOT/bench/sql/setup_cost.sql" -v rows="$ROWS" \
    -v floor_lib="$FLOOR_DIR/bench_floor.so" >/dev/null
  if [ -n "$SQL_EDITION" ]; then
    psql -X -q -v ON_ERROR_STOP=1 -c "CREATE SCHEMA sqled"
    psql -X -q -v ON_ERROR_STOP=1 -v locality_schema=sqled -f "$ROOT/locality_uuid_sql.sql" >/dev/null
    # The floor of a generator in PL/pgSQL: the call alone.
    psql -X -q -v ON_ERROR_STOP=1 -c "CREATE FUNCTION public.bench_plpgsql_floor(n int8) RETURNS int8
                                         LANGUAGE plpgsql VOLATILE AS 'BEGIN RETURN n; END'"
  fi
  local rounds=${BENCH_REPEAT:-5} major name sql i r ms
  major=$(psql -X -At -c "SELECT current_setting('server_version_num')::int / 10000")
  # The rows of this major: "# group" headings and "name|sql" queries.
  local names=() sqls=()
  while IFS='|' read -r name sql; do
    [ -n "$name" ] || continue
    # "[18] name": only on PostgreSQL 18 and later.
    if [[ $name =~ ^\[([0-9]+)\]\ (.*)$ ]]; then
      [ "$major" -ge "${BASH_REMATCH[1]}" ] || continue
      name=${BASH_REMATCH[2]}
    fi
    names+=("$name")
    sqls+=("${sql//:N/$N}")
  done <"$QUERIES"
  # Rounds over all queries, best per query: a slow spell of the machine
  # (a busy neighbour on a VM) hits one round of every query, not all
  # repetitions of one, so the ratios between rows stay fair.
  local best=()
  for r in $(seq "$rounds"); do
    for i in "${!names[@]}"; do
      [[ ${names[i]} == \#* ]] && continue
      ms=$(BENCH_REPEAT=1 best_ms "${sqls[i]}")
      best[i]=$(python3 -c "print(min($ms, float('${best[i]:-inf}')))")
    done
  done
  machine_line
  echo "calls per query: $N (generators), $ROWS (extractors over a table column); best of $rounds interleaved rounds"
  echo
  printf '| %-52s | %9s | %8s | %8s |\n' "query" "ns/call" "vs first" "speed-up"
  printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..54})" "-----------" "----------" "----------"
  local ns base="" per
  for i in "${!names[@]}"; do
    name=${names[i]}
    case "$name" in \#*) printf '| **%s** | | | |\n' "${name#\# }"; base=""; continue ;; esac
    per=$N; [[ "${sqls[i]}" == *"FROM bench_"* ]] && per=$ROWS
    ns=$(python3 -c "print(round(${best[i]} * 1e6 / $per, 1))")
    [ -n "$base" ] || base=$ns
    printf '| %-52s | %9s | %7sx | %7sx |\n' "$name" "$ns" \
      "$(python3 -c "print(round($ns / $base, 2))")" "$(python3 -c "print(round($base / $ns, 1))")"
  done
  echo
  echo "vs first: ns/call divided by the group's first row; speed-up: the inverse"
}
export -f run best_ms machine_line
export N ROWS FLOOR_DIR QUERIES SQL_EDITION
with_cluster -o shared_preload_libraries=locality_uuid -o jit=off -o max_parallel_workers_per_gather=0 -- bash -c run
