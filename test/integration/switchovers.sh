#!/usr/bin/env bash
# A plain streaming pair switched over and back ten times (issue #51,
# finding 4): a and b, each with a node value and machine name of its own
# (host files, as a Patroni pair has them), their clocks held at one
# instant. Each leadership makes a side of ids of every kind (lib/sides.sh)
# and SWITCHOVERS_HOT given-time Hot Guids more; then the leader stops
# (fast: its standby receives everything), the standby is promoted, and the
# old leader rejoins as its standby through pg_rewind -R.
#
# Every promotion moves the counters. Before the lineage (lineage.hpp)
# each move skipped a random quarter to three quarters of each cycle, and
# two skips can add up to a whole one: a member leading again then drew
# where it drew before, and its given-time Hot Guids (2^24 draws a second)
# repeated. Now a member that made ids in this history before continues
# just above where its machine bytes and node value left the counters.
# Checked: 0 repeats among all leaderships of all kinds (pid field masked),
# and every promotion after the first says, at LOG, that it went by the
# lineage, its Hot Guid draw landing 2^20 to 2^21 (a sixteenth to an eighth
# of the cycle) above where that member left off. (Each member's 6 or 5
# leaderships, 440,000 Hot Guid draws each with gaps of at most 2^21, stay
# within one 2^24 cycle of its own arc, which the lineage keeps clear.)
#
# Needs PostgreSQL 15+ (the lineage travels in WAL records of a custom
# resource manager); before it, says so and checks nothing.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
. "$ROOT/test/integration/lib/servers.sh"
. "$ROOT/test/integration/lib/ha_nodes.sh"
if [ "$PG_MAJOR" -lt 15 ]; then
  echo "PostgreSQL $PG_MAJOR has no custom WAL resource managers: the lineage travels in the state file only (doc/guarantees.md); nothing to check"
  exit 0
fi
start_work locality-switchovers
IDS=${SWITCHOVERS_IDS:-20000}
HOT=${SWITCHOVERS_HOT:-400000}
ROUNDS=${SWITCHOVERS_ROUNDS:-10}
. "$ROOT/test/integration/lib/sides.sh"

make_host ha "locality_uuid.node_id = 7101" "locality_uuid.machine_name = 'pair-a'"
make_host hb "locality_uuid.node_id = 7102" "locality_uuid.machine_name = 'pair-b'"
init_node a "wal_log_hints = on" "archive_mode = off"
on_host a ha
chown -R postgres "$WORK"
pgctl a start
q a -c "CREATE EXTENSION locality_uuid"
base_backup a b -R
on_host b hb
pgctl b start

# lead NODE ROUND: NODE's side for ROUND, and HOT more given-time Hot Guids.
# (Its first id makes a promotion's move, which counts the clock's second
# as full: the held clock goes a second on before the side.)
lead() {
  q "$1" -c "SELECT locality_uuid() IS NOT NULL" >/dev/null
  tick
  side "$1" "r$2"
  q "$1" -c "COPY (SELECT encode(set_byte(set_byte(uuid_send(hot_guid(7, $FIXED)), 6, 0), 8, 0), 'hex')
                   FROM generate_series(1, $HOT)) TO STDOUT" >"$WORK/ids/r$2.hot_more"
}
# switch FROM TO: FROM stopped (fast: its standby has all its WAL), TO
# promoted, FROM rewound to follow TO and started as its standby.
switch() {
  pgctl "$1" stop -m fast
  promote "$2"
  tick
  as_postgres "$BIN/pg_rewind" --target-pgdata="$WORK/$1" --source-server="$(conninfo "$2")" -R \
    >"$WORK/pg_rewind.out" 2>&1 || { cat "$WORK/pg_rewind.out"; exit 1; }
  # (pg_rewind copied the leader's postgresql.conf: FROM's port and host
  # file again, the last include winning.)
  set_port "$1"
  on_host "$1" "h$1"
  pgctl "$1" start
}

leader=a standby=b
start=$SECONDS
for round in $(seq 1 "$ROUNDS"); do
  lead "$leader" "$round"
  switch "$leader" "$standby"
  t=$leader; leader=$standby; standby=$t
done
lead "$leader" $((ROUNDS + 1))
echo "drove: $ROUNDS switchovers with pg_rewind, $((ROUNDS + 1)) leaderships; $((SECONDS - start)) s"

# Repeats among all leaderships, per kind (the extra Hot Guids with theirs).
counts="" total=0 made=0
for k in "${KINDS[@]}"; do
  files=("$WORK"/ids/r*."$k")
  [ "$k" = hot_at ] && files+=("$WORK"/ids/r*.hot_more)
  n=$(cat "${files[@]}" | LC_ALL=C sort -S 256M | uniq -d | wc -l)
  c=$(cat "${files[@]}" | wc -l)
  counts+="${counts:+, }$k $c ($n repeated)"
  total=$((total + n)); made=$((made + c))
done
check "$made ids over $((ROUNDS + 1)) leaderships, pid field masked: $counts" "[ $total = 0 ]"

# The moves: each promotion's LOG line, and after the first two, the
# lineage's rule for the Hot Guid draw.
moves=0 by_lineage=0 wrong=""
for node in a b; do
  while IFS= read -r pair; do
    moved=${pair%%|*} why=${pair#*|}
    moves=$((moves + 1))
    [[ $why == *"machine bytes "*" made ids in this history before: above where it left, at "* ]] || continue
    by_lineage=$((by_lineage + 1))
    to=$(sed -n 's/.*, Hot Guid from [0-9]* to \([0-9]*\),.*/\1/p' <<<"$moved")
    left=$(sed -n 's/.*machine bytes [0-9]* made ids in this history before: above where it left, at \([0-9]*\).*/\1/p' <<<"$why")
    gap=$(( (to - left) % 16777216 ))
    [ "$gap" -ge 1048576 ] && [ "$gap" -lt 2097152 ] || wrong+=" $node: $left -> $to (gap $gap)"
  done < <(awk '/LOG:  locality_uuid: counters moved: / { m = $0; getline d; print m "|" (d ~ /DETAIL:  By the lineage: / ? d : "") }' "$WORK/$node.log")
done
check "$moves moves logged, $by_lineage of them by the lineage to a member's own place, each Hot Guid draw 2^20 to 2^21 above it${wrong:+: wrong:$wrong}" \
  "[ $moves = $ROUNDS ] && [ $by_lineage = $((ROUNDS - 1)) ] && [ -z \"$wrong\" ]"

echo
[ "$failures" = 0 ] && echo "all switchover checks passed" || { echo "$failures switchover checks FAILED"; exit 1; }
