#!/usr/bin/env bash
# Leases (doc/fleets.md) cost nothing per id: two preloaded servers of
# this machine's major, one taking its node value from a lease
# (locality_uuid.registry, a registry in a third, throw-away cluster), one
# with locality_uuid.node_id and machine_name set, make the same ids; each
# query's executor time (bench/common.sh best_ms) per server, rounds
# interleaved between the servers, best of BENCH_REPEAT rounds. Prints a
# table with the ratio of the two and the registry connections the lease
# server made meanwhile (one, at its start).
#   bash bench/leases.sh                 (BENCH_N=1000000 ids per query)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
. "$ROOT/test/integration/lib/servers.sh"
N=${BENCH_N:-1000000}
ROUNDS=${BENCH_REPEAT:-5}
CLI=${CLI:-locality-uuid}
WORK=$(mktemp -d /tmp/locality-bench-leases.XXXXXX)
chmod 755 "$WORK"
chown postgres "$WORK"
trap 'stop_servers_under "$WORK"; rm -rf "$WORK"' EXIT
declare -A PORT
start() {  # start NAME SETTINGS: a server in $WORK/NAME, started
  PORT[$1]=$(init_server "$WORK/$1" "$WORK" <<<"$2")
  as_postgres "$BIN/pg_ctl" -D "$WORK/$1" -l "$WORK/$1.log" -w start >/dev/null
}
q() { local n=$1; shift; psql -X -q -At -v ON_ERROR_STOP=1 -h "$WORK" -p "${PORT[$n]}" -U postgres -d postgres "$@"; }

start registry "log_connections = on"
"$CLI" fleet registry --registry "host=$WORK port=${PORT[registry]} dbname=postgres user=postgres" >/dev/null
q registry -c "CREATE ROLE leaser LOGIN" -c "GRANT USAGE ON SCHEMA locality_uuid_registry TO leaser" \
  -c "GRANT EXECUTE ON FUNCTION locality_uuid_registry.lease(text, text, text, text, timestamptz) TO leaser"
start leased "locality_uuid.registry = 'host=$WORK port=${PORT[registry]} dbname=postgres user=leaser'
locality_uuid.registry_owner = 'postgres'"
start configured "locality_uuid.node_id = 4242
locality_uuid.machine_name = 'bench-configured'"
for s in leased configured; do q "$s" -c "CREATE EXTENSION locality_uuid"; done
# The lease server's first id waits for its lease (a second at most here).
for _ in $(seq 100); do q leased -c "SELECT locality_uuid()" >/dev/null 2>&1 && break; sleep 0.1; done
connections_before=$(grep -c "connection authorized: user=leaser" "$WORK/registry.log" || true)

names=("locality_uuid() variable" "locality_uuid(true) sequential" "locality_uuid_at(ts, false)"
       "hot_guid(5)" "hot_guid(5, ts)")
sqls=("SELECT count(locality_uuid()) FROM generate_series(1, $N)"
      "SELECT count(locality_uuid(true)) FROM generate_series(1, $N)"
      "SELECT count(locality_uuid_at(timestamptz '2026-01-01 00:00:00+00', false)) FROM generate_series(1, $N)"
      "SELECT count(hot_guid(5)) FROM generate_series(1, $N)"
      "SELECT count(hot_guid(5, timestamptz '2026-01-01 00:00:00+00' + (g / 60000) * interval '1 s')) FROM generate_series(1, $N) g")
declare -A best
for _ in $(seq "$ROUNDS"); do
  for i in "${!names[@]}"; do
    for s in leased configured; do
      ms=$(PGHOST=$WORK PGPORT=${PORT[$s]} PGUSER=postgres PGDATABASE=postgres BENCH_REPEAT=1 best_ms "${sqls[i]}")
      best[$s,$i]=$(python3 -c "print(min($ms, float('${best[$s,$i]:-inf}')))")
    done
  done
done
connections_after=$(grep -c "connection authorized: user=leaser" "$WORK/registry.log" || true)

PGHOST=$WORK PGPORT=${PORT[leased]} PGUSER=postgres PGDATABASE=postgres machine_line
echo "ids per query: $N; best of $ROUNDS rounds, interleaved between the two servers"
echo "leased server: $(q leased -c "SELECT node_source FROM locality_uuid_binding()" | cut -c1-60)..."
echo "configured server: node value 4242 and machine name from postgresql.conf"
echo
printf '| %-34s | %14s | %18s | %16s |\n' "query" "leased ns/id" "configured ns/id" "leased/configured"
printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..36})" "----------------" "--------------------" "------------------"
for i in "${!names[@]}"; do
  a=$(python3 -c "print(round(${best[leased,$i]} * 1e6 / $N, 1))")
  b=$(python3 -c "print(round(${best[configured,$i]} * 1e6 / $N, 1))")
  printf '| %-34s | %14s | %18s | %15sx |\n' "${names[i]}" "$a" "$b" "$(python3 -c "print(round($a / $b, 3))")"
done
echo
echo "registry connections by the leased server while it made $((${#names[@]} * ROUNDS * N)) ids: $((connections_after - connections_before))"
