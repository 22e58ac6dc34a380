#!/usr/bin/env bash
# The SQL edition's counters through what PostgreSQL carries its sequences
# through, on real servers on loopback (lib/ha_nodes.sh, as ha.sh runs the
# C edition's): a primary and a pg_basebackup -R standby whose clocks are
# held at one instant (clock_shim.c), so ids for the clock made on both
# sides share their millisecond and second, and only the counters keep
# them apart. Ids are masked (the pid field zeroed), so uniqueness cannot
# rest on pids; every case checks that the sides share none.
#
# A side makes, on one server, SIDE ids of each kind: variable and
# sequential ids for the clock and for a given time, Hot Guids for the
# clock and for a given time (each kind crosses SIDE / 256 refills of its
# sequence's cache; committed, as the README's durability says).
#
#   failover  the standby replays the primary's side and refuses to make
#             ids (25006); the primary stops at once; the standby, promoted,
#             makes its side
#   crash     the new primary stops at once, starts again, makes a side
#   PITR      a base backup; a side; a restore point; more ids; recovery to
#             the restore point and promotion; the restored server's side,
#             which repeats none of the ids made after the restore point
#             (they are not in its data, as with nextval; its first id, on
#             a new timeline, moves its counters)
#   pg_upgrade  the cluster upgraded (same major, --link-less copy) makes
#             a side
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
. "$ROOT/test/integration/lib/servers.sh"
. "$ROOT/test/integration/lib/ha_nodes.sh"
start_work locality-sqlha
FIXED="'2020-01-01 00:00:00.123+00'"
FROZEN_MS=1767225601000  # 2026-01-01 00:00:01 UTC: every server's clock
SIDE=${SQL_EDITION_HA_SIDE:-20000}
make -s -C "$ROOT" PG_CONFIG="$PG_CONFIG" sql-edition
set_clock "$WORK/clock" "$FROZEN_MS"
chown -R postgres "$WORK"

init_node() {
  PORT[$1]=$(init_server "$WORK/$1" "$WORK" <<CONF
wal_level = replica
max_wal_senders = 5
wal_keep_size = '1GB'
archive_mode = on
archive_command = 'test ! -f $WORK/archive/%f && cp %p $WORK/archive/%f'
CONF
)
}

# Masked ids of each kind, prefixed with their key space (v: variable, s:
# sequential, h: Hot Guid): bytes 4-5 of a Locality UUID, bytes 6 and 8 of
# a Hot Guid zeroed.
KINDS=(
  "'v' || encode(set_byte(set_byte(uuid_send(ids.locality_uuid(false)), 4, 0), 5, 0), 'hex')"
  "'v' || encode(set_byte(set_byte(uuid_send(ids.locality_uuid_at($FIXED, false)), 4, 0), 5, 0), 'hex')"
  "'s' || encode(set_byte(set_byte(uuid_send(ids.locality_uuid(true)), 4, 0), 5, 0), 'hex')"
  "'s' || encode(set_byte(set_byte(uuid_send(ids.locality_uuid_at($FIXED, true)), 4, 0), 5, 0), 'hex')"
  "'h' || encode(set_byte(set_byte(uuid_send(ids.hot_guid(7)), 6, 0), 8, 0), 'hex')"
  "'h' || encode(set_byte(set_byte(uuid_send(ids.hot_guid(7, $FIXED)), 6, 0), 8, 0), 'hex')"
)
# emit NODE N: N masked ids of every kind, a transaction per kind.
emit() {
  local k
  for k in "${KINDS[@]}"; do q "$1" -c "COPY (SELECT $k FROM generate_series(1, $2)) TO STDOUT"; done
}
# side NODE LABEL: a side of NODE, sorted in $WORK/ids/LABEL; no id twice.
side() {
  emit "$1" "$SIDE" | LC_ALL=C sort >"$WORK/ids/$2"
  local n repeats
  n=$(wc -l <"$WORK/ids/$2")
  repeats=$(uniq -d "$WORK/ids/$2" | wc -l)
  check "side $2 on $1: $n masked ids, $repeats repeated within it" '[ "$n" = $((SIDE * ${#KINDS[@]})) ] && [ "$repeats" = 0 ]'
}
shared_ids() {  # shared_ids LABEL...: masked ids the last side shares with the others
  local last=${*: -1} others=("${@:1:$#-1}")
  LC_ALL=C sort -m "${others[@]/#/$WORK/ids/}" | LC_ALL=C comm -12 - "$WORK/ids/$last" | wc -l
}
no_shared_ids() {  # no_shared_ids CASE LABEL...
  local case=$1; shift
  local n
  n=$(shared_ids "$@")
  check "$case: side ${*: -1} shares no masked id with ${*:1:$#-1} ($n shared)" '[ "$n" = 0 ]'
}
# no_shared_locality_ids CASE LABEL...: the same for Locality ids alone, for
# sides two moves apart or more: each move counts as up to 3 * 2^22 of the
# 2^24 draws in which Hot Guids of one second differ (doc/sql-edition.md),
# so Hot Guids are compared with the sides one move away only.
no_shared_locality_ids() {
  local case=$1; shift
  local side n
  for side in "$@"; do grep -v '^h' "$WORK/ids/$side" >"$WORK/ids/$side.locality" || true; done
  n=$(shared_ids "${@/%/.locality}")
  check "$case: side ${*: -1} shares no masked Locality id with ${*:1:$#-1} ($n shared)" '[ "$n" = 0 ]'
}

# --- failover --------------------------------------------------------------------
echo "== failover"
init_node a
pgctl a start
q a -c "CREATE SCHEMA ids"
q a -v locality_schema=ids -f "$ROOT/locality_uuid_sql.sql" >/dev/null
base_backup a b -R
pgctl b start
side a a1
wait_replay a b
refusal=$(q b -c "SELECT ids.locality_uuid()" 2>&1 || true)
check "the standby refuses to make ids: $refusal" \
  'grep -q "cannot execute nextval() in a read-only transaction" <<<"$refusal"'
check "the standby decodes the primary's ids" \
  '[ "$(q b -c "SELECT ids.locality_uuid_timestamp(ids.locality_uuid_pack(1, 2, 3, '"$FROZEN_MS"', true))")" = "2026-01-01 00:00:01+00" ]'
pgctl a stop -m immediate
promote b
side b b2
no_shared_ids "failover" a1 b2
said=$(q b -c "SELECT ids.locality_uuid() IS NOT NULL" 2>&1)
check "the promoted standby is no copy to the edition (no WARNING): $said" '[ "$said" = t ]'

# --- crash -----------------------------------------------------------------------
echo; echo "== crash"
pgctl b stop -m immediate
pgctl b start
side b b3
no_shared_ids "crash" a1 b2 b3

# --- point-in-time recovery ------------------------------------------------------
echo; echo "== point-in-time recovery"
base_backup b p
side b b4
q b -c "SELECT pg_create_restore_point('sql_edition_target')" >/dev/null
emit b 1000 | LC_ALL=C sort >"$WORK/ids/b-after-target"
recover_to b p sql_edition_target
side p p5
no_shared_ids "point-in-time recovery" b2 b3 b4 p5
no_shared_locality_ids "point-in-time recovery, two moves from the first primary" a1 p5
# The restored server is on a new timeline: its first id moved its
# counters, so the ids its origin made after the restore point are not
# made again while the origin runs on (with the move off: about 1,000 of
# 6,000 were).
check "the restored server repeats none of the ids its origin made after the restore point: $(shared_ids b-after-target p5)" \
  '[ "$(shared_ids b-after-target p5)" = 0 ]'
check "the move is in the restored server's log" \
  'grep -q "locality_uuid: the counters of schema ids were bound to database .* moved past fresh random points (a new timeline" "$WORK/p.log"'

# --- pg_upgrade --------------------------------------------------------------------
echo; echo "== pg_upgrade"
pgctl p stop -m fast
init_node u
upgrade p u
pgctl u start
said=$(q u -c "SELECT ids.locality_uuid() IS NOT NULL" 2>&1)
check "pg_upgrade's new cluster warns, as the README says: $(head -n 1 <<<"$said")" \
  'grep -q "^WARNING:  locality_uuid: this database is a copy" <<<"$said"'
q u -c "SELECT ids.locality_uuid_set_node(ids.locality_uuid_node_id(), ids.hot_guid_machine_name())" >/dev/null
said=$(q u -c "SELECT ids.locality_uuid() IS NOT NULL" 2>&1)
check "the same node value set again: no WARNING" '[ "$said" = t ]'
side u u6
no_shared_ids "pg_upgrade" p5 u6
no_shared_locality_ids "pg_upgrade, two and three moves from the sides before" a1 b2 b3 b4 u6

echo
[ $failures = 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "the SQL edition's ids: no masked id repeated through failover, crash, point-in-time recovery and pg_upgrade"
