#!/usr/bin/env bash
# The locality story on a real sharded PostgreSQL: 1 coordinator + 4 shard
# servers on loopback, each with the extension preloaded and its own
# locality_uuid.node_id. The coordinator's table is range-partitioned on
# `id uuid` by first hex digit (0-3, 4-7, 8-b, c-f); each partition is a
# postgres_fdw foreign table on one shard.
#
# Workloads: (a) inserts through the coordinator with DEFAULT locality_uuid()
# in variable mode, then in sequential mode; (b) every shard generating ids
# itself and inserting through the coordinator, concurrently; (c) Hot Guids:
# a second table list-partitioned on hot_guid_shard_key(id), shard key k on
# shard k, fed by the coordinator and by every shard.
# Checks: variable spreads within +-10% of even; >= 95% of a sequential
# window's rows land on one shard; no id twice in the cluster; every id
# carries the node id (Hot Guids: the machine bytes) of the server that made
# it; every Hot Guid row sits on the shard its key names, and a lookup by id
# alone plans a scan of that one shard.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
. "$ROOT/test/integration/lib/servers.sh"  # keep_logs_if_failed
ROWS=${SHARDING_ROWS:-120000}          # per workload (a); (b) is 4 x ROWS/4
BIN=$(pg_config --bindir)
WORK=$(mktemp -d /tmp/locality-sharding.XXXXXX)
NODES=(coordinator shard1 shard2 shard3 shard4)
declare -A PORT NODE_ID
failures=0

as_postgres() { runuser -u postgres -- "$@"; }
cleanup() {
  keep_logs_if_failed $? "$WORK"
  for n in "${NODES[@]}"; do
    [ -f "$WORK/$n/postmaster.pid" ] && as_postgres "$BIN/pg_ctl" -D "$WORK/$n" -m immediate stop >/dev/null 2>&1 || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT
q() { local n=$1; shift; psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "${PORT[$n]}" -U postgres -d postgres "$@"; }
check() { if eval "$2"; then echo "ok:   $1"; else echo "FAIL: $1"; failures=$((failures + 1)); fi; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# --- start the five servers ------------------------------------------------
chown postgres "$WORK"
i=0
for n in "${NODES[@]}"; do
  PORT[$n]=$(free_port); NODE_ID[$n]=$((1000 + i)); i=$((i + 1))
  as_postgres "$BIN/initdb" --no-sync -D "$WORK/$n" -U postgres --auth=trust -E UTF8 >/dev/null
  cat >>"$WORK/$n/postgresql.conf" <<CONF
port = ${PORT[$n]}
listen_addresses = '127.0.0.1'
unix_socket_directories = '$WORK'
shared_preload_libraries = 'locality_uuid'
locality_uuid.node_id = ${NODE_ID[$n]}
locality_uuid.machine_name = '$n'
max_connections = 40
fsync = off
CONF
  as_postgres "$BIN/pg_ctl" -D "$WORK/$n" -l "$WORK/$n.log" -w start >/dev/null
  q "$n" -c "CREATE EXTENSION locality_uuid"
done
echo "started: $(for n in "${NODES[@]}"; do printf '%s (port %s, node_id %s)  ' "$n" "${PORT[$n]}" "${NODE_ID[$n]}"; done)"

# --- schema ------------------------------------------------------------------
q coordinator -c "CREATE EXTENSION postgres_fdw"
q coordinator -c "CREATE TABLE items (id uuid NOT NULL DEFAULT locality_uuid(), origin text, payload text) PARTITION BY RANGE (id)"
bounds=("'00000000-0000-0000-0000-000000000000'" "'40000000-0000-0000-0000-000000000000'"
        "'80000000-0000-0000-0000-000000000000'" "'c0000000-0000-0000-0000-000000000000'" "MAXVALUE")
for s in 1 2 3 4; do
  q "shard$s" -c "CREATE TABLE items (id uuid PRIMARY KEY, origin text, payload text)"
  q coordinator -c "CREATE SERVER shard$s FOREIGN DATA WRAPPER postgres_fdw
                      OPTIONS (host '127.0.0.1', port '${PORT[shard$s]}', dbname 'postgres', batch_size '1000')" \
                -c "CREATE USER MAPPING FOR postgres SERVER shard$s OPTIONS (user 'postgres')" \
                -c "CREATE FOREIGN TABLE items_shard$s PARTITION OF items
                      FOR VALUES FROM (${bounds[$((s - 1))]}) TO (${bounds[$s]})
                      SERVER shard$s OPTIONS (table_name 'items')"
  # Each shard can insert through the coordinator.
  q "shard$s" -c "CREATE EXTENSION postgres_fdw" \
              -c "CREATE SERVER coordinator FOREIGN DATA WRAPPER postgres_fdw
                    OPTIONS (host '127.0.0.1', port '${PORT[coordinator]}', dbname 'postgres', batch_size '1000')" \
              -c "CREATE USER MAPPING FOR postgres SERVER coordinator OPTIONS (user 'postgres')" \
              -c "CREATE FOREIGN TABLE cluster_items (id uuid, origin text, payload text)
                    SERVER coordinator OPTIONS (table_name 'items')"
done

# Hot Guids: shard key k lives on shard k; the partition key is computed
# from the id alone.
q coordinator -c "CREATE TABLE tenant_items (id uuid NOT NULL, origin text, payload text)
                    PARTITION BY LIST (hot_guid_shard_key(id))"
for s in 1 2 3 4; do
  q "shard$s" -c "CREATE TABLE tenant_items (id uuid PRIMARY KEY, origin text, payload text)"
  q coordinator -c "CREATE FOREIGN TABLE tenant_items_shard$s PARTITION OF tenant_items
                      FOR VALUES IN ($s) SERVER shard$s OPTIONS (table_name 'tenant_items')"
  q "shard$s" -c "CREATE FOREIGN TABLE cluster_tenant_items (id uuid, origin text, payload text)
                    SERVER coordinator OPTIONS (table_name 'tenant_items')"
done

per_shard() {  # rows per shard for one origin pattern [of TABLE, default items], as "n1 n2 n3 n4"
  local table=${2:-items}
  q coordinator -F ' ' -c "SELECT $(for s in 1 2 3 4; do printf "count(*) FILTER (WHERE tableoid = '${table}_shard$s'::regclass)%s" "$([ $s = 4 ] || echo ,)"; done)
                           FROM $table WHERE origin LIKE '$1'"
}
table_row() { printf '| %-44s | %7s | %7s | %7s | %7s | %8s |\n' "$@"; }
echo
table_row workload "shard1" "shard2" "shard3" "shard4" "total"
echo "|----------------------------------------------|---------|---------|---------|---------|----------|"

# --- (a) through the coordinator ----------------------------------------------
for mode in variable sequential; do
  seq=$([ $mode = sequential ] && echo on || echo off)
  q coordinator -c "SET locality_uuid.sequential = $seq" \
                -c "INSERT INTO items (origin, payload) SELECT 'coordinator $mode', 'x' FROM generate_series(1, $ROWS)"
  read -r a b c d < <(per_shard "coordinator $mode")
  table_row "(a) coordinator, $mode mode" "$a" "$b" "$c" "$d" $((a + b + c + d))
  eval "a_$mode=\"$a $b $c $d\""
done

# --- (b) every shard generates, inserting through the coordinator concurrently --
for s in 1 2 3 4; do
  q "shard$s" -c "INSERT INTO cluster_items SELECT locality_uuid(), 'shard$s variable', 'y' FROM generate_series(1, $((ROWS / 4)))" &
done
wait
read -r a b c d < <(per_shard "shard% variable")
table_row "(b) 4 shards concurrently, variable mode" "$a" "$b" "$c" "$d" $((a + b + c + d))
b_variable="$a $b $c $d"
for s in 1 2 3 4; do
  q "shard$s" -c "SET locality_uuid.sequential = on" \
              -c "INSERT INTO cluster_items SELECT locality_uuid(), 'shard$s sequential', 'y' FROM generate_series(1, $((ROWS / 4)))" &
done
wait
read -r a b c d < <(per_shard "shard% sequential")
table_row "(b) 4 shards concurrently, sequential mode" "$a" "$b" "$c" "$d" $((a + b + c + d))

# --- (c) Hot Guids: keys 1-4 from the coordinator, key s from shard s -----------
q coordinator -c "INSERT INTO tenant_items SELECT hot_guid(g % 4 + 1), 'coordinator hot', 'z' FROM generate_series(1, $ROWS) g"
read -r a b c d < <(per_shard "coordinator hot" tenant_items)
table_row "(c) coordinator, hot_guid(1..4)" "$a" "$b" "$c" "$d" $((a + b + c + d))
for s in 1 2 3 4; do
  q "shard$s" -c "INSERT INTO cluster_tenant_items SELECT hot_guid($s), 'shard$s hot', 'y' FROM generate_series(1, $((ROWS / 4)))" &
done
wait
read -r a b c d < <(per_shard "shard% hot" tenant_items)
table_row "(c) 4 shards concurrently, hot_guid(own key)" "$a" "$b" "$c" "$d" $((a + b + c + d))
echo

# --- checks --------------------------------------------------------------------
even_within() {  # "n1 n2 n3 n4" within +-10% of their mean
  python3 -c "import sys; v=[int(x) for x in sys.argv[1].split()]; m=sum(v)/4; sys.exit(0 if sum(v) >= 100000 and all(abs(x-m) <= 0.1*m for x in v) else 1)" "$1"
}
check "variable mode through the coordinator spreads within 10% of even ($a_variable)" 'even_within "$a_variable"'
check "variable mode from 4 shards spreads within 10% of even ($b_variable)" 'even_within "$b_variable"'
# Sequential: per 10-minute window, the share of the busiest shard. Each
# window's ids are one run of counters (one session: places in blocks of
# 256, so a span of at most its rows and a block); a run that passes one of
# the shards' bounds (a multiple of 2^30 of the counter, about once in 10^4
# runs) is split there, onto the two shards beside it, and only such a run.
# (Spans and starts mod 2^32: a run may pass 2^32 - 1 on to 0.)
read -r windows runs worst split split_shards < <(q coordinator -F ' ' -c "
  WITH r AS (SELECT floor(extract(epoch FROM locality_uuid_timestamp(id)) / 600) AS w, tableoid,
                    locality_uuid_counter(id, true) AS c
             FROM items WHERE origin = 'coordinator sequential'),
       f AS (SELECT w, tableoid, c, (c - min(c) OVER (PARTITION BY w) + 2147483648) % 4294967296 - 2147483648 AS d,
                    min(c) OVER (PARTITION BY w) AS c0
             FROM r),
       win AS (SELECT w, count(*) AS n, max(d) - min(d) + 1 AS span, (min(c0) + min(d) + 4294967296) % 4294967296 AS first,
                      count(DISTINCT tableoid) AS shards
               FROM f GROUP BY w),
       kind AS (SELECT w, shards, span <= n + 256 AS one_run,
                       span <= n + 256 AND first % 1073741824 + span > 1073741824 AS at_bound
                FROM win),
       share AS (SELECT w, max(n)::numeric / sum(n) AS share
                 FROM (SELECT w, tableoid, count(*) AS n FROM r GROUP BY 1, 2) s GROUP BY w)
  SELECT count(*), count(*) FILTER (WHERE one_run), coalesce(min(share) FILTER (WHERE NOT at_bound), 1),
         count(*) FILTER (WHERE at_bound), coalesce(max(shards) FILTER (WHERE at_bound), 0)
  FROM kind JOIN share USING (w)")
check "sequential mode puts >= 95% of each window's rows on one shard ($windows windows, $runs of them one run of counters; worst window: $worst; $split split at a shard's bound, on $split_shards shards)" \
  "[ $windows -ge 1 ] && [ $runs = $windows ] && python3 -c 'import sys; sys.exit(0 if $worst >= 0.95 else 1)' && [ $split_shards -le 2 ]"
read -r total distinct < <(q coordinator -F ' ' -c "SELECT count(*), count(DISTINCT id) FROM items")
check "no id twice in the cluster ($total rows, $distinct distinct, checked through the coordinator)" '[ "$total" = "$distinct" ] && [ "$total" = $((ROWS * 4)) ]'
misattributed=$(q coordinator -c "
  SELECT count(*) FROM items
  WHERE locality_uuid_node(id) <> CASE split_part(origin, ' ', 1)
        WHEN 'coordinator' THEN ${NODE_ID[coordinator]} WHEN 'shard1' THEN ${NODE_ID[shard1]}
        WHEN 'shard2' THEN ${NODE_ID[shard2]} WHEN 'shard3' THEN ${NODE_ID[shard3]}
        WHEN 'shard4' THEN ${NODE_ID[shard4]} END")
check "every id decodes to the node id of the server that made it ($misattributed wrong)" '[ "$misattributed" = 0 ]'
routed=$(q coordinator -c "
  SELECT count(*) FROM items
  WHERE (tableoid = 'items_shard1'::regclass) <> (left(id::text, 1) IN ('0','1','2','3'))
     OR (tableoid = 'items_shard4'::regclass) <> (left(id::text, 1) IN ('c','d','e','f'))")
check "every row sits on the shard its first hex digit names ($routed misplaced)" '[ "$routed" = 0 ]'

hot_misplaced=$(q coordinator -c "
  SELECT count(*) FROM tenant_items
  WHERE tableoid <> ('tenant_items_shard' || hot_guid_shard_key(id))::regclass")
read -r hot_total hot_distinct < <(q coordinator -F ' ' -c "SELECT count(*), count(DISTINCT id) FROM tenant_items")
check "every Hot Guid row sits on the shard its key names ($hot_misplaced misplaced, $hot_total rows, $hot_distinct distinct)" \
  '[ "$hot_misplaced" = 0 ] && [ "$hot_total" = "$hot_distinct" ] && [ "$hot_total" = $((ROWS * 2)) ]'
hot_wrong_machine=$(q coordinator -c "
  SELECT count(*) FROM tenant_items WHERE hot_guid_machine(id) <> left(md5(split_part(origin, ' ', 1)), 6)")
check "every Hot Guid carries the machine bytes of the server that made it ($hot_wrong_machine wrong)" '[ "$hot_wrong_machine" = 0 ]'
# A lookup by id alone: the shard key comes from the id, so the planner
# prunes to one foreign partition.
probe=$(q coordinator -c "SELECT id FROM tenant_items WHERE origin = 'shard3 hot' LIMIT 1")
plan=$(q coordinator -c "EXPLAIN (COSTS OFF)
  SELECT * FROM tenant_items WHERE id = '$probe' AND hot_guid_shard_key(id) = hot_guid_shard_key('$probe')")
echo "lookup of $probe by id alone:"; sed 's/^/    /' <<<"$plan"
check "a lookup by id alone scans one shard (shard3)" \
  '[ "$(grep -c "Foreign Scan" <<<"$plan")" = 1 ] && grep -q tenant_items_shard3 <<<"$plan"'
found=$(q coordinator -c "SELECT origin FROM tenant_items WHERE id = '$probe' AND hot_guid_shard_key(id) = hot_guid_shard_key('$probe')")
check "and finds the row ($found)" '[ "$found" = "shard3 hot" ]'

[ $failures = 0 ] || { echo "$failures sharding check(s) failed"; exit 1; }
echo "sharding checks passed"
