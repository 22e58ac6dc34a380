#!/usr/bin/env bash
# A real upgrade from 1.2 (review first-day-1.3, finding 2): a primary and
# its pg_basebackup -R standby run the 1.2 library (built here from the
# commit that released it) with the node value and machine name in a file
# of their host outside the data directory, as doc/operations.md says;
# then this tree's library is installed and doc/operations.md's order
# followed (the standby restarted, then the primary; ALTER EXTENSION ...
# UPDATE). Neither server logs a WARNING: the primary's first start says,
# as a LOG line, that it bound its counters for the first time (and moved
# them once, as a copy made under 1.2 would be); ids continue, none equal
# to an id of 1.2 (pid field masked).
#
# The installed module is the 1.2 one while the servers run it: this tree's
# is installed again when the suite ends, whatever happens (the next suite
# runs against this tree's, as build-install left it).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
. "$ROOT/test/integration/lib/servers.sh"
. "$ROOT/test/integration/lib/ha_nodes.sh"
RELEASE_1_2=caa860b  # default_version '1.2', the parent of the commit that moved it to 1.3
start_work locality-upgrade-binary
reinstall() { make -C "$ROOT" -s PG_CONFIG="$PG_CONFIG" install >/dev/null; }
trap 'keep_logs_if_failed $? "$WORK"; stop_servers_under "$WORK"; reinstall; rm -rf "$WORK"' EXIT
set_clock "$WORK/clock" 0

git -C "$ROOT" cat-file -e "$RELEASE_1_2^{commit}" 2>/dev/null ||
  { echo "FAIL: commit $RELEASE_1_2 (1.2) is not in this clone: a clone with its history is needed"; exit 1; }
mkdir "$WORK/v12"
git -C "$ROOT" archive "$RELEASE_1_2" | tar -x -C "$WORK/v12"
grep -q "default_version = '1.2'" "$WORK/v12/locality_uuid.control" || { echo "FAIL: $RELEASE_1_2 is not 1.2"; exit 1; }
make -C "$WORK/v12" -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG" with_llvm=no >/dev/null 2>&1 || { echo "FAIL: 1.2 does not build"; exit 1; }
make -C "$WORK/v12" -s PG_CONFIG="$PG_CONFIG" with_llvm=no install >/dev/null
echo "1.2 built from $RELEASE_1_2 and installed"

# The host's node file, outside both data directories.
printf "locality_uuid.node_id = 17\nlocality_uuid.machine_name = 'db17'\n" >"$WORK/node.conf"
chown -R postgres "$WORK"
PORT[p]=$(init_server "$WORK/p" "$WORK" <<CONF
wal_level = replica
max_wal_senders = 5
include '$WORK/node.conf'
CONF
)
pgctl p start
q p -c "CREATE EXTENSION locality_uuid"
v=$(q p -c "SELECT extversion FROM pg_extension WHERE extname = 'locality_uuid'")
masked="set_byte(set_byte(uuid_send(x), 4, 0), 5, 0)"
q p -c "CREATE TABLE made AS SELECT 'v12'::text AS by, x FROM (SELECT locality_uuid_at('2020-01-01 00:00:00+00', true) AS x
        FROM generate_series(1, 20000) UNION ALL SELECT locality_uuid(false) FROM generate_series(1, 20000)) s"
base_backup p s -R
pgctl s start
wait_replay p s
check "1.2 runs: extension $v, ids made, a standby replays" '[ "$v" = 1.2 ] && [ "$(q s -c "SELECT count(*) FROM made")" = 40000 ]'

# doc/operations.md, Upgrading: the new library, the standby first, then
# the primary, then ALTER EXTENSION.
reinstall
: >"$WORK/s.log"
pgctl s restart -m fast
: >"$WORK/p.log"
pgctl p restart -m fast
q p -c "ALTER EXTENSION locality_uuid UPDATE"
v=$(q p -c "SELECT extversion FROM pg_extension WHERE extname = 'locality_uuid'")
q p -c "INSERT INTO made SELECT '1.3', x FROM (SELECT locality_uuid_at('2020-01-01 00:00:00+00', true) AS x
        FROM generate_series(1, 20000) UNION ALL SELECT locality_uuid(false) FROM generate_series(1, 20000)) s"
wait_replay p s
repeats=$(q p -c "SELECT count(*) - count(DISTINCT $masked) FROM made")
check "upgraded to $v: 80,000 ids of 1.2 and $(control_version), none equal with the pid masked ($repeats)" \
  '[ "$v" = "$(control_version)" ] && [ "$repeats" = 0 ]'
warnings=$(grep -h "WARNING" "$WORK/p.log" "$WORK/s.log" || true)
check "neither server logged a WARNING at the upgrade: ${warnings:-none}" '[ -z "$warnings" ]'
check "the primary's first start says, as LOG, that it bound its counters for the first time" \
  'grep -q "LOG:  locality_uuid: server-wide counters moved past fresh random points: first start with a binding: \"locality_uuid.state\" is this cluster.s" "$WORK/p.log"'
check "... and both name their values' file" \
  'grep -q "LOG:  locality_uuid: node value 17, from locality_uuid.node_id (file $WORK/node.conf)" "$WORK/p.log" &&
   grep -q "LOG:  locality_uuid: Hot Guid machine name \"db17\", from locality_uuid.machine_name (file $WORK/node.conf)" "$WORK/s.log"'
echo "--- what the primary logged at its first start of $(control_version):"
grep "locality_uuid" "$WORK/p.log" | sed 's/^[0-9-]* [0-9:.]* UTC \[[0-9]*\] //' | head -n 12

echo
[ "$failures" = 0 ] && echo "all binary upgrade checks passed" || { echo "$failures binary upgrade checks FAILED"; exit 1; }
