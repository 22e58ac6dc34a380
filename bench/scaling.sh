#!/usr/bin/env bash
# Generation throughput as clients are added: ids/s for 1, 2, 4 and 8
# pgbench clients, each transaction SELECT count(locality_uuid()) over
# 10,000 rows, with the library preloaded (one shared-memory counter) and
# without (one counter per backend), in both modes; then server-wide against
# per-backend counters at 8 clients each, both at once, BENCH_ROUNDS (4) rounds.
# Prints a table; exits non-zero only when it cannot run.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
SECONDS_PER_RUN=${BENCH_SECONDS:-8}
ROUNDS=${BENCH_ROUNDS:-4}

# ids/s of $2 pgbench clients making ids in mode $1 (false: variable,
# true: sequential) for SECONDS_PER_RUN seconds.
ids_per_s() {
  local script out tps
  script=$(mktemp)
  echo "SELECT count(locality_uuid($1)) FROM generate_series(1, 10000);" >"$script"
  out=$(pgbench -n -c "$2" -j "$2" -T "$SECONDS_PER_RUN" -f "$script" 2>&1) || true
  rm -f "$script"
  tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' <<<"$out" | head -1)
  [ -n "$tps" ] || { echo "pgbench failed: $out" >&2; return 1; }
  python3 -c "print(round($tps * 10000))"
}

mode_name() { [ "$1" = true ] && echo sequential || echo variable; }

# Creates the extension in the current cluster and prints where its counters
# live: server (preloaded) or backend.
counter_scope() {
  psql -X -q -c "CREATE EXTENSION locality_uuid"
  psql -X -At -c "SELECT locality_uuid_counter_scope()"
}

table() {
  set -euo pipefail
  local scope clients mode ids base
  scope=$(counter_scope)
  for mode in false true; do
    base=""
    for clients in 1 2 4 8; do
      ids=$(ids_per_s "$mode" "$clients")
      base=${base:-$ids}
      printf '| %-7s | %-10s | %7s | %12s | %7.2fx |\n' "$scope" "$(mode_name "$mode")" "$clients" \
        "$ids" "$(python3 -c "print($ids / $base)")"
    done
  done
}

# Server-wide against per-backend counters, 8 clients each, as a pair: a
# preloaded cluster and one without run the same pgbench at the same time,
# sharing the cores, ROUNDS times per mode. (Run one after the other, single
# runs of one set-up differ by 10-20% on a shared VM; run together, a slow
# spell slows both alike, and the ratio of their ids/s is the ratio of their
# cost per id with 16 backends contending.) pair_inner runs inside the
# per-backend cluster; the preloaded one is at SERVER_HOST/PORT.
pair_inner() {
  set -euo pipefail
  [ "$(counter_scope)" = backend ]
  local mode r backend
  for mode in false true; do
    for r in $(seq "$ROUNDS"); do
      PGHOST=$SERVER_HOST PGPORT=$SERVER_PORT PGPASSWORD=$SERVER_PASSWORD ids_per_s "$mode" 8 >"$SERVER_IDS" &
      backend=$(ids_per_s "$mode" 8)
      wait $!  # the server side's status: a failed run stops the script
      echo "pair $(mode_name "$mode") $(cat "$SERVER_IDS") $backend"
    done
  done
}

pair_outer() {
  set -euo pipefail
  [ "$(counter_scope)" = server ]
  SERVER_IDS=$(mktemp)
  export SERVER_HOST=${PGHOST:-localhost} SERVER_PORT=$PGPORT SERVER_PASSWORD=$PGPASSWORD SERVER_IDS
  with_cluster -c "-p $((PGPORT + 1))" -o jit=off -- bash -c pair_inner
  rm -f "$SERVER_IDS"
}
export -f table pair_inner pair_outer with_cluster counter_scope ids_per_s mode_name machine_line
export SECONDS_PER_RUN ROUNDS PG_MAJOR
with_cluster -o jit=off -- bash -c machine_line
echo "$(nproc) cores; ${SECONDS_PER_RUN}s per run; scaling: ids/s over the 1-client figure of the same row group"
echo
echo "| counter | mode       | clients |        ids/s | scaling |"
echo "|---------|------------|---------|--------------|---------|"
with_cluster -o shared_preload_libraries=locality_uuid -o jit=off -- bash -c table
with_cluster -o jit=off -- bash -c table

pairs=$(mktemp)
trap 'rm -f "$pairs"' EXIT
with_cluster -o shared_preload_libraries=locality_uuid -o jit=off -- bash -c pair_outer >"$pairs"
echo
echo "Server-wide against per-backend counters, 8 clients each, both clusters at the same time,"
echo "$ROUNDS rounds per mode (ids/s):"
echo
python3 - "$pairs" <<'PY'
import statistics, sys
rounds = {}
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) == 4 and parts[0] == "pair":
        rounds.setdefault(parts[1], []).append((int(parts[2]), int(parts[3])))
print("| mode       | server mean | backend mean | server/backend | per round      |")
print("|------------|-------------|--------------|----------------|----------------|")
for mode in ("variable", "sequential"):
    pairs = rounds[mode]
    ratios = [s / b for s, b in pairs]
    print(f"| {mode:<10} | {statistics.mean(s for s, _ in pairs):11.0f} | "
          f"{statistics.mean(b for _, b in pairs):12.0f} | {statistics.mean(ratios):13.3f}x | "
          f"{min(ratios):.3f}-{max(ratios):.3f}x |")
PY
