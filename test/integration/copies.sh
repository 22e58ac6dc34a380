#!/usr/bin/env bash
# Copies of a server never repeat their origin's ids (doc/guarantees.md,
# "Copies"). On one machine: clusters in temporary directories, their
# CLOCK_REALTIME held at one instant (clock_shim.c), so ids made on both
# sides carry the same times; each simulated host is a configuration file
# of its own outside the data directories (its identity file, and in some
# cases its node value), which the clusters include.
#
# A side is 200,000 ids of each kind made on one server: variable and
# sequential ids for the clock and for a given time, and Hot Guids for the
# clock and for a given second. Ids are compared with the pid field masked
# (zeroed), per kind, so uniqueness cannot rest on pids.
#
#   cp -a       a stopped cluster (node value in its postgresql.conf)
#               copied with cp -a and started beside its origin on the same
#               host: the copy's counters move (logged, old and new
#               binding), the origin's do not; 0 repeats.
#   PITR        a base backup recovered to a restore point and promoted
#               while its origin runs on: 0 repeats.
#   failover    a pg_basebackup -R standby, promoted while its primary is
#               stopped, with the node value in PGDATA and with a per-host
#               file: ids at once, 0 repeats against the old primary.
#   pg_upgrade  a cluster upgraded with its state file carried over and a
#               standby made by copying the new cluster as PostgreSQL
#               documents; the new primary makes ids at once, the standby
#               is promoted and makes ids at once (review G3): 0 repeats
#               against the old cluster and the new primary.
#   doubt       a base backup taken while the primary's file was in doubt:
#               the standby replays records of its primary, which clear the
#               doubt (G3), and makes ids at once when promoted.
#   require     locality_uuid.require_node_id refuses a node value from a
#               MAC (or none), a machine name from the host name, values in
#               PGDATA (postgresql.conf, ALTER SYSTEM), and accepts a
#               per-host file; the start WARNINGs.
#   reload      a new node value by reload is logged with the old and new
#               binding at the next id, and kept in locality_uuid.binding.
#   late clone  a clone of a directory whose move never finished (binding
#               "moving"), its host identity file unreadable at its start:
#               it moves on once the file is read; its origin, on the same
#               disk at the same instants, completes the recorded move:
#               0 repeats (issue #51, finding 3).
#   crash in first recovery  a crash-snapshot copy whose start wrote its
#               move, its recovery (with the origin's release) replayed
#               again at the next start: 0 repeats (issue #51, finding 2);
#               and killed at each write of that first start, its move's
#               and its recovery's, then started again: 0 repeats.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
. "$ROOT/test/integration/lib/servers.sh"
. "$ROOT/test/integration/lib/ha_nodes.sh"
start_work locality-copies
# COPIES_KEEP=1 keeps the servers' directories and logs (stopped) for a look.
[ "${COPIES_KEEP:-0}" = 1 ] && trap 'stop_servers_under "$WORK"; echo "kept $WORK"' EXIT
IDS=${COPIES_IDS:-200000}
. "$ROOT/test/integration/lib/sides.sh"
MOVED="locality_uuid: server-wide counters moved past fresh random points"
# error_of NODE SQL: "SQLSTATE: message" of the ERROR SQL raises on NODE.
error_of() { q "$1" -v VERBOSITY=verbose -c "$2" 2>&1 | sed -n 's/^ERROR: *//p' | head -n 1 || true; }

# record_unfinished_move NODE: NODE (stopped) as a crash between recording
# a move and writing the state file leaves it: its binding "moving", with a
# target past its file's marks (sets v, e and h, the marks it moved from).
record_unfinished_move() {
  local rs target
  read -r v e h < <(awk '$1 == "variable" { v = $2 } $1 == "explicit" { e = $2 } $1 == "hot" { h = $2 } END { print v, e, h }' \
    "$WORK/$1/locality_uuid.state")
  rs=$(awk '$1 == "run_start" { print $2 }' "$WORK/$1/locality_uuid.binding")
  target="target $((v + 1073741824)) $((e + 536870912)) $((h + 4194304)) $rs"
  awk -v t="$target" '$1 == "target" || $1 == "target_run" { next } $1 == "state" { print "state moving"; print t; next } { print }' \
    "$WORK/$1/locality_uuid.binding" >"$WORK/binding.moving"
  cp "$WORK/binding.moving" "$WORK/$1/locality_uuid.binding"
}

# --- cp -a of a stopped cluster, beside its origin ---------------------------------
echo "== cp -a of a stopped cluster started beside its origin"
make_host h1
init_node o "locality_uuid.node_id = 7" "locality_uuid.machine_name = 'copies'"
on_host o h1
pgctl o start
q o -c "CREATE EXTENSION locality_uuid"
q o -c "SELECT count(locality_uuid()) FROM generate_series(1, 1000)" >/dev/null
check "a start with the node value in PGDATA's postgresql.conf WARNs" \
  'log_has o "WARNING:  locality_uuid: node value 7 comes from a file in the data directory \(data directory file $WORK/o/postgresql.conf\)"'
check "... and says what a copy does" 'log_has o "DETAIL:  Every copy of this data directory"'
check "... and so does the machine name" 'log_has o "WARNING:  locality_uuid: the Hot Guid machine name comes from a file in the data directory"'
check "a new cluster's counters are bound at its first start" 'log_has o "LOG:  locality_uuid: server-wide counters bound here"'
check "the binding file names host, data directory, node and machine with their sources" \
  'grep -q "^data_directory $WORK/o$" "$WORK/o/locality_uuid.binding" &&
   grep -q "^node 7 data directory file $WORK/o/postgresql.conf$" "$WORK/o/locality_uuid.binding" &&
   grep -Eq "^host [0-9a-f]{32} file $WORK/h1.id$" "$WORK/o/locality_uuid.binding"'
pgctl o stop -m fast
cp -a "$WORK/o" "$WORK/c"
set_port c
# (Not into the origin's archive: a copy's WAL has the origin's segment names.)
echo "archive_mode = off" >>"$WORK/c/postgresql.conf"
: >"$WORK/o.log"
pgctl o start
pgctl c start
check "the origin's restart moves nothing" '! log_has o "$MOVED"'
check "the copy's start moves its counters: it started in another data directory" \
  'log_has c "WARNING:  $MOVED: the counters were bound elsewhere; this server started in another data directory"'
check "... logging the binding before and now" \
  'log_has c "DETAIL:  Bound before: host [0-9a-f]{16} \(file $WORK/h1.id\), data directory $WORK/o, .* Bound now: host [0-9a-f]{16} \(file $WORK/h1.id\), data directory $WORK/c, "'
check "... and where each counter stood and goes on from" \
  'log_has c "LOG:  locality_uuid: counters moved: variable from [0-9]+ to [0-9]+, given-time from"'
check "the copy's binding file is its own" 'grep -q "^data_directory $WORK/c$" "$WORK/c/locality_uuid.binding"'
tick
side o cp_origin
side c cp_copy
repeats "cp -a copy beside its origin" cp_origin cp_copy
start_o=$(q o -c "SELECT run_start FROM locality_uuid_binding()")
start_c=$(q c -c "SELECT run_start FROM locality_uuid_binding()")
distance=$(( (start_c - start_o + 16777216) % 16777216 ))
check "the copy starts window runs 2^22 to 3 * 2^22 places (mod 2^24) past the origin's ($start_o, $start_c: $distance)" \
  '[ "$distance" -ge 4194304 ] && [ "$distance" -lt 12582912 ] && [ "$start_c" -lt 16777216 ]'
pgctl c stop -m fast
pgctl c start
check "the copy's restart moves nothing more" '[ "$(log_count c "$MOVED")" = 1 ]'

# --- point-in-time recovery beside its origin --------------------------------------
# The origin makes ids, sets a restore point and stops; a base backup taken
# before recovers to that point, with every refill of the origin replayed,
# and is promoted; the origin starts again. Both then continue from the
# same marks (the origin's file, the replayed WAL) but for the move.
echo; echo "== a point-in-time restore started beside its origin"
pgctl c stop -m fast
base_backup o p
q o -c "SELECT count(locality_uuid_at($FIXED, true)) + count(locality_uuid(true)) + count(hot_guid(7, $FIXED))
        FROM generate_series(1, 5000)" >/dev/null
q o -c "SELECT pg_create_restore_point('copies')" >/dev/null
segment=$(q o -c "SELECT pg_walfile_name(pg_switch_wal())")
for _ in $(seq 300); do [ -f "$WORK/archive/o/$segment" ] && break; sleep 0.2; done
pgctl o stop -m fast
cat >>"$WORK/p/postgresql.conf" <<CONF
restore_command = 'cp $WORK/archive/o/%f %p'
recovery_target_name = 'copies'
recovery_target_action = 'promote'
archive_mode = off
CONF
as_postgres touch "$WORK/p/recovery.signal"
pgctl p start
for _ in $(seq 300); do [ "$(q p -c "SELECT pg_is_in_recovery()")" = f ] && break; sleep 0.2; done
pgctl o start
check "recovered to the restore point and promoted, beside its origin" \
  '[ "$(q p -c "SELECT pg_is_in_recovery()")" = f ] && [ "$(q o -c "SELECT pg_is_in_recovery()")" = f ]'
q p -c "SELECT locality_uuid() IS NOT NULL" >/dev/null  # its first id: the move
tick
side o pitr_origin
side p pitr_copy
repeats "PITR restore beside its origin" pitr_origin pitr_copy
check "the restore's first id moved its counters: recovery replayed another server's WAL" \
  'log_has p "LOG:  $MOVED: recovery replayed another server.s WAL"'
pgctl p stop -m fast

# --- a point-in-time restore in place, restarted before its first id -------------------
# The origin's own directory restored from a base backup to a restore point,
# after which the origin had made more ids (the old timeline's), promoted,
# and restarted before any id: its binding file says the move is still due,
# so the restart moves (before, shared memory alone knew, and a restart lost
# it: the same host, directory and system identifier look like no copy).
echo; echo "== a point-in-time restore in place, restarted before its first id"
base_backup o ob
q o -c "SELECT pg_create_restore_point('inplace')" >/dev/null
# A restart starts the origin's counters at its marks, where the restore
# point leaves them too: the old timeline's ids and the restored server's
# then start from one place, but for the move.
pgctl o restart -m fast
tick
side o inplace_old_timeline
segment=$(q o -c "SELECT pg_walfile_name(pg_switch_wal())")
for _ in $(seq 300); do [ -f "$WORK/archive/o/$segment" ] && break; sleep 0.2; done
pgctl o stop -m fast
mv "$WORK/o" "$WORK/o.old"
mv "$WORK/ob" "$WORK/o"
sed -i '/^port = /d' "$WORK/o/postgresql.conf"
echo "port = ${PORT[o]}" >>"$WORK/o/postgresql.conf"
cat >>"$WORK/o/postgresql.conf" <<CONF
restore_command = 'cp $WORK/archive/o/%f %p'
recovery_target_name = 'inplace'
recovery_target_action = 'promote'
CONF
as_postgres touch "$WORK/o/recovery.signal"
: >"$WORK/o.log"
pgctl o start
for _ in $(seq 300); do [ "$(q o -c "SELECT pg_is_in_recovery()")" = f ] && break; sleep 0.2; done
check "restored in place to the restore point and promoted; its binding says a move is due" \
  '[ "$(q o -c "SELECT pg_is_in_recovery()")" = f ] && grep -q "^state due$" "$WORK/o/locality_uuid.binding"'
pgctl o restart -m fast
check "restarted before its first id: the start moves the counters" \
  'log_has o "LOG:  $MOVED: recovery replayed another server.s WAL before this start" && ! log_has o "WARNING:  $MOVED"'
tick
side o inplace_restored
repeats "in-place restore against its old timeline's ids after the restore point" inplace_old_timeline inplace_restored
sed -i '/^restore_command\|^recovery_target/d' "$WORK/o/postgresql.conf"

# --- a copy whose binding file cannot be written ------------------------------------
# The move is recorded before it is applied: while the record cannot be
# written, server-wide ids wait (the file's error), also across restarts,
# and once it can, the move is made once, from the copy's marks.
echo; echo "== a copy whose binding file cannot be written"
pgctl o stop -m fast
rm -rf "$WORK/c"
cp -a "$WORK/o" "$WORK/c"
set_port c
echo "archive_mode = off" >>"$WORK/c/postgresql.conf"
from=$(awk '$1 == "variable" { print $2 }' "$WORK/c/locality_uuid.state")
as_postgres mkdir "$WORK/c/locality_uuid.binding.tmp"
: >"$WORK/c.log"
pgctl o start
pgctl c start
err=$(error_of c "SELECT locality_uuid_at($FIXED, true)")
check "the copy's ids wait while its move cannot be recorded: $err" \
  '[[ $err == "58030: could not reserve ids in \"locality_uuid.binding\": Is a directory" || $err == "21000:"* || $err == *"locality_uuid.binding"*"Is a directory" ]]'
pgctl c restart -m fast
err=$(error_of c "SELECT locality_uuid_at($FIXED, true)")
check "... also after a restart: $err" '[[ $err == *"locality_uuid.binding"* ]]'
as_postgres rmdir "$WORK/c/locality_uuid.binding.tmp"
first=$(q c -c "SELECT locality_uuid_at($FIXED, true) IS NOT NULL" 2>&1 || true)
moves=$(grep -c "LOG:  locality_uuid: counters moved: variable from" "$WORK/c.log" || true)
moved_from=$(sed -n 's/.*counters moved: variable from \([0-9]*\) to.*/\1/p' "$WORK/c.log" | head -n 1)
check "... and once it can be, ids at once ($first), moved once ($moves move), from the copy's marks ($moved_from = $from)" \
  '[ "$first" = t ] && [ "$moves" = 1 ] && [ "$moved_from" = "$from" ]'
tick
side o blocked_origin
side c blocked_copy
repeats "a copy whose move waited for its record, beside its origin" blocked_origin blocked_copy
pgctl c stop -m fast

# --- a copy of a directory whose move never finished, without a state file ---------
# The origin stopped between recording a move (binding "moving", with its
# target) and writing the state file: its next start completes that same
# target. A copy of the directory without the state file (deleted to start
# afresh) stands on the same target and must move on from it.
echo; echo "== a copy of a directory whose move never finished, without a state file"
pgctl o stop -m fast
# Given-time and Hot Guid marks put low (as a new cluster's may be), so
# that the copy's fresh random counters (below 2^32) stand above the target
# and only starting at the target itself passes the check below.
sed -i 's/^explicit .*/explicit 0/; s/^hot .*/hot 0/' "$WORK/o/locality_uuid.state"
record_unfinished_move o
rm -rf "$WORK/c"
cp -a "$WORK/o" "$WORK/c"
rm "$WORK/c/locality_uuid.state"
set_port c
echo "archive_mode = off" >>"$WORK/c/postgresql.conf"
: >"$WORK/o.log"
: >"$WORK/c.log"
pgctl o start
pgctl c start
check "the origin completes the recorded move" 'log_has o "$MOVED: completing the move recorded before the last stop"'
check "the copy without a state file moves on from it" \
  'log_has c "WARNING:  $MOVED: a move recorded elsewhere was never completed here"'
moved_from=$(sed -n 's/.*counters moved: variable from \([0-9]*\) to [0-9]*, given-time from \([0-9]*\) to [0-9]*, Hot Guid from \([0-9]*\) to.*/\1 \2 \3/p' \
  "$WORK/c.log" | tail -n 1)
check "... from exactly the recorded target, not from fresh counters ($moved_from)" \
  '[ "$moved_from" = "$((v + 1073741824)) $((e + 536870912)) $((h + 4194304))" ]'
tick
side o unfinished_origin
side c unfinished_copy
repeats "a copy of a directory whose move never finished, without a state file, beside its origin" \
  unfinished_origin unfinished_copy
pgctl c stop -m fast

# --- a standby promoted while its primary is stopped -------------------------------
# failover PRIMARY STANDBY LABEL: STANDBY, a pg_basebackup -R of PRIMARY,
# replays a side of PRIMARY's; PRIMARY stops at once; STANDBY is promoted
# and makes its side at once.
FAILOVER_KINDS=()  # every kind (the pairs below are one move apart)
failover() {
  local primary=$1 standby=$2 label=$3 first
  pgctl "$standby" start
  tick
  side "$primary" "${label}_primary"
  wait_replay "$primary" "$standby"
  pgctl "$primary" stop -m immediate
  promote "$standby"
  first=$(q "$standby" -c "SELECT locality_uuid_at($FIXED, true) IS NOT NULL" 2>&1 || true)
  check "$label: the promoted standby makes ids at once, with no human step ($first)" '[ "$first" = t ]'
  tick
  side "$standby" "${label}_standby"
  repeats "$label: promoted standby against the old primary" "${label}_primary" "${label}_standby" "${FAILOVER_KINDS[@]}"
  check "$label: its counters moved after recovery, logged with the binding before and now" \
    'log_has "$standby" "LOG:  $MOVED: recovery replayed another server.s WAL" && log_has "$standby" "DETAIL:  Bound before: .* Bound now: "'
}
echo; echo "== failover, the node value in PGDATA"
base_backup o s1 -R
echo "archive_mode = off" >>"$WORK/s1/postgresql.conf"
failover o s1 pgdata
echo; echo "== failover, the node value in a per-host file"
make_host h2 "locality_uuid.node_id = 21" "locality_uuid.machine_name = 'copies-h2'"
make_host h3 "locality_uuid.node_id = 31" "locality_uuid.machine_name = 'copies-h3'"
init_node r
on_host r h2
pgctl r start
q r -c "CREATE EXTENSION locality_uuid"
check "a node value from a per-host file is logged, not warned about" \
  'log_has r "LOG:  locality_uuid: node value 21, from locality_uuid.node_id \(file $WORK/h2.conf\)" && ! log_has r "WARNING:  locality_uuid: node value"'
base_backup r s2 -R
on_host s2 h3  # its own host: host h3's file, included last
echo "archive_mode = off" >>"$WORK/s2/postgresql.conf"
failover r s2 per_host
check "the promoted standby writes host h3's node value (31)" \
  '[ "$(q s2 -c "SELECT locality_uuid_node(locality_uuid())")" = 31 ]'
pgctl s1 stop -m fast
pgctl s2 stop -m fast

# --- pg_upgrade, with a standby copied as PostgreSQL documents ----------------------
echo; echo "== pg_upgrade with a standby"
init_node u "locality_uuid.node_id = 41" "locality_uuid.machine_name = 'copies-u'"
pgctl u start
q u -c "CREATE EXTENSION locality_uuid"
tick
side u up_old
pgctl u stop -m fast
as_postgres "$BIN/initdb" --no-sync -D "$WORK/u2" -U postgres --auth=trust >/dev/null
cat "$WORK/u/postgresql.conf" >"$WORK/u2/postgresql.conf"
upgrade u u2
# README: the state file goes with the upgrade.
cp "$WORK/u/locality_uuid.state" "$WORK/u/locality_uuid.binding" "$WORK/u2/"
chown postgres "$WORK/u2/locality_uuid.state" "$WORK/u2/locality_uuid.binding"
# The standby: the new cluster copied before its first start (what
# PostgreSQL's rsync step gives a standby), then following it.
cp -a "$WORK/u2" "$WORK/u3"
set_port u2
set_port u3
as_postgres touch "$WORK/u3/standby.signal"
echo "primary_conninfo = '$(conninfo u2)'" >>"$WORK/u3/postgresql.conf"
echo "archive_mode = off" >>"$WORK/u3/postgresql.conf"
pgctl u2 start
first=$(q u2 -c "SELECT locality_uuid_at($FIXED, true) IS NOT NULL" 2>&1 || true)
# Before PostgreSQL 15 no WAL record carries u2's marks to u3: the
# promoted u3 moves from the old cluster's file, as u2 did at its start,
# so the two are siblings (two moves from one mark), which only the
# counters with the widest moves keep apart (variable ids 2^30 to 3 * 2^30
# of 2^32, given-time sequential 2^29 to 3 * 2^29 of 2^31): Hot Guids
# (2^24) and the clock's runs (2^22 to 3 * 2^22 apart) of siblings can
# meet, as doc/guarantees.md says (one run in 13 saw 191,398 Hot Guids).
# From 15 on u3 replays u2's reservations and moves from u2's own marks.
FAILOVER_KINDS=()
[ "$PG_MAJOR" -ge 15 ] || FAILOVER_KINDS=(variable_clock variable_at sequential_at)
check "the upgraded cluster makes ids at once, no accept needed ($first)" '[ "$first" = t ]'
check "... its counters moved: the state file was the old cluster's" \
  'log_has u2 "WARNING:  $MOVED: \"locality_uuid.state\" was written by another cluster \(system identifier [0-9]+\)"'
failover u2 u3 upgraded
# Two moves (the upgrade's, the promotion's) stand between the old cluster
# and the promoted standby: up to 6 * 2^22 draws, more than the 2^24 in
# which Hot Guids for one given second differ (doc/guarantees.md), so
# those are compared with each neighbour only (about one run in six saw
# some thousands otherwise).
repeats "pg_upgrade: the promoted standby against the old cluster" up_old upgraded_standby \
  variable_clock variable_at sequential_clock sequential_at hot_clock
repeats "pg_upgrade: the new primary against the old cluster" up_old upgraded_primary
pgctl u3 stop -m fast

if [ "$PG_MAJOR" -ge 15 ]; then
  # --- a base backup of a primary whose file was in doubt (G3) ------------------------
  echo; echo "== a standby made while its primary's file was in doubt"
  init_node d "locality_uuid.node_id = 51" "locality_uuid.machine_name = 'copies-d'"
  pgctl d start
  q d -c "CREATE EXTENSION locality_uuid"
  q d -c "SELECT count(locality_uuid()) FROM generate_series(1, 100)" >/dev/null
  pgctl d stop -m fast
  chmod 000 "$WORK/d/locality_uuid.state"
  pgctl d start
  chmod 600 "$WORK/d/locality_uuid.state"
  out=$(error_of d "SELECT locality_uuid()")
  check "the file put back is in doubt ($out)" '[[ $out == "55000: \"locality_uuid.state\" changed after the start could not read it" ]]'
  base_backup d t -R
  echo "archive_mode = off" >>"$WORK/t/postgresql.conf"
  check "the base backup carries the doubt mark" '[ -f "$WORK/t/locality_uuid.state.doubt" ]'
  q d -c "SELECT locality_uuid_accept_state_file()" >/dev/null
  q d -c "SELECT locality_uuid()" >/dev/null  # its first id moves the counters (and closes this second)
  failover d t doubt
  check "replaying the primary's record cleared the standby's doubt" \
    'log_has t "LOG:  locality_uuid: \"locality_uuid.state\" rewritten from a replayed reservation" && [ ! -f "$WORK/t/locality_uuid.state.doubt" ]'
  pgctl t stop -m fast
else
  echo "PostgreSQL $PG_MAJOR logs no reservations: a standby's doubt is cleared by an accept only"
fi

# --- locality_uuid.require_node_id ---------------------------------------------------
echo; echo "== require_node_id"
# require NODE LOCALITY-REASON HOT-REASON: what NODE refuses (55000, and
# its start WARNed) for Locality UUIDs and for Hot Guids: each kind only
# for the value it carries (review first-day-1.3, finding 1); an empty
# reason: that kind is made.
require() {
  local node=$1 kind why out
  for kind in locality hot; do
    if [ "$kind" = locality ]; then why=$2; out=$(error_of "$node" "SELECT locality_uuid()")
    else why=$3; out=$(error_of "$node" "SELECT hot_guid(1)"); fi
    if [ -n "$why" ]; then
      check "require_node_id refuses $kind ids: $why ($out)" '[[ $out == "55000: locality_uuid.require_node_id is on: $why" ]]'
      check "... and its start said so" 'log_has "$node" "WARNING:  locality_uuid.require_node_id is on: $why"'
    else
      check "require_node_id makes $kind ids (${out:-no error})" '[ -z "$out" ]'
    fi
  done
  check "... while reading ids works" '[ "$(q "$node" -c "SELECT locality_uuid_pid('"'f5166777-7a7f-bd53-7a50-013e4e2afc26'"')")" = 31359 ]'
}
make_host h4 "locality_uuid.node_id = 61"
make_host h5 "locality_uuid.node_id = 71" "locality_uuid.machine_name = 'copies-h5'"
init_node x "locality_uuid.require_node_id = on"
pgctl x start
q x -c "CREATE EXTENSION locality_uuid"
mac_or_none=$(q x -c "SELECT locality_uuid_node_source()")
require x "the node value comes from $mac_or_none" "the Hot Guid machine name comes from the host name"
# Each refusal's DETAIL and HINT: the setting that kind of id needs.
for kind in "Locality UUIDs|locality_uuid.node_id|locality_uuid()" "Hot Guids|locality_uuid.machine_name|hot_guid(1)"; do
  IFS='|' read -r ids setting call <<<"$kind"
  out=$(q x -c "SELECT $call" 2>&1 || true)
  check "... its $ids refusal says what they need and where to put it" \
    'grep -qxF "DETAIL:  $ids made with the server-wide counters need $setting from a configuration file of this host outside the data directory, which no copy of the data directory carries." <<<"$out" &&
     grep -qxF "HINT:  Put $setting in such a file (README, \"Node identity\") and reload." <<<"$out"'
done
# The Quick start's node file before 1.3's: a node value alone. Locality
# UUIDs are made; Hot Guids wait for a machine name.
on_host x h4
pgctl x restart
tick
require x "" "the Hot Guid machine name comes from the host name"
echo "locality_uuid.node_id = 62" >>"$WORK/x/postgresql.conf"
echo "locality_uuid.machine_name = 'in-pgdata'" >>"$WORK/x/postgresql.conf"
pgctl x restart
require x "locality_uuid.node_id comes from data directory file $WORK/x/postgresql.conf" \
  "locality_uuid.machine_name comes from data directory file $WORK/x/postgresql.conf"
sed -i '/^locality_uuid.node_id = 62$/d; /^locality_uuid.machine_name = .in-pgdata.$/d' "$WORK/x/postgresql.conf"
on_host x h5
q x -c "ALTER SYSTEM SET locality_uuid.machine_name = 'by-alter-system'"
pgctl x restart
tick
require x "" "locality_uuid.machine_name comes from data directory file $WORK/x/postgresql.auto.conf"
q x -c "ALTER SYSTEM RESET locality_uuid.machine_name"
: >"$WORK/x.log"
pgctl x restart
tick
id=$(q x -c "SELECT locality_uuid_node(locality_uuid())" 2>&1 || true)
machine=$(q x -c "SELECT hot_guid_machine(hot_guid(1)) = hot_guid_machine_id()" 2>&1 || true)
check "require_node_id accepts values from a per-host file (node $id; Hot Guids with its machine name: $machine)" \
  '[ "$id" = 71 ] && [ "$machine" = t ] && [ "$(q x -c "SELECT hot_guid_machine_name()")" = copies-h5 ]'
check "... and its start warns about nothing" '! log_has x "require_node_id is on" && ! log_has x "WARNING"'

# --- a reload that changes the node value ---------------------------------------------
echo; echo "== a new node value by reload"
sed -i 's/^locality_uuid.node_id = 71$/locality_uuid.node_id = 72/' "$WORK/h5.conf"
q x -c "SELECT pg_reload_conf()" >/dev/null
sleep 1
id=$(q x -c "SELECT locality_uuid_node(locality_uuid())")
check "ids carry the reloaded node value ($id)" '[ "$id" = 72 ]'
check "the change is logged with the binding before and now" \
  'log_has x "LOG:  locality_uuid: the node value, the machine name or where they come from changed" &&
   log_has x "DETAIL:  Bound before: .*node 71 \(file $WORK/h5.conf\).* Bound now: .*node 72 \(file $WORK/h5.conf\)"'
check "... and recorded in locality_uuid.binding" 'grep -q "^node 72 file $WORK/h5.conf$" "$WORK/x/locality_uuid.binding"'
check "... without moving the counters" '! log_has x "$MOVED"'

# --- what a start logs, and what moves it (issues #43, #44) ----------------------------
echo; echo "== what a start logs"
# A new cluster with its values in a file of its host: no WARNING, and
# what its first start did said as LOG lines (review first-day-1.3, 3).
make_host h6 "locality_uuid.node_id = 81" "locality_uuid.machine_name = 'copies-h6'"
init_node n
on_host n h6
pgctl n start
warned=$(grep -h "WARNING" "$WORK/n.log" || true)
check "a new cluster's first start, values in a host file: no WARNING (${warned:-none}), 'a new cluster' said as LOG" \
  '[ -z "$warned" ] && log_has n "LOG:  locality_uuid: server-wide counters start fresh: a new cluster" &&
   log_has n "LOG:  locality_uuid: server-wide counters bound here"'
q n -c "CREATE EXTENSION locality_uuid"
q n -c "SELECT count(locality_uuid_at($FIXED, true)) FROM generate_series(1, 1000)" >/dev/null
# Its data directory reached through a symbolic link: the same place, no
# move (the binding compares the resolved path: review F5).
pgctl n stop -m fast
ln -s "$WORK/n" "$WORK/nlink"
PORT[nlink]=${PORT[n]}
pgctl nlink start
tick
q nlink -c "SELECT locality_uuid()" >/dev/null
check "started through a symbolic link to its data directory: not moved" '! log_has nlink "$MOVED"'
pgctl nlink stop -m fast
# Its host identity read from a file set through the settings (node claim
# --host-identity-file, then a restart): moved once, said as LOG.
make_host h7 "locality_uuid.node_id = 81" "locality_uuid.machine_name = 'copies-h7'"
on_host n h7
: >"$WORK/n.log"
pgctl n start
check "a host identity now from locality_uuid.host_identity_file: moved once, as LOG, no WARNING" \
  'log_has n "LOG:  $MOVED: the host identity now comes from file $WORK/h7.id \(it came from file $WORK/h6.id\)" &&
   ! log_has n "WARNING"'
# That file unreadable at a start: ids wait with the file's error, the
# counters do not move (review F5: they did at every such start), and
# ids come back without a restart once it can be read.
chmod 000 "$WORK/h7.id"
for round in 1 2 3; do
  : >"$WORK/n.log"
  pgctl n restart -m fast
  out=$(error_of n "SELECT locality_uuid()")
  [ "$round" = 1 ] && first_out=$out
  moves=$(log_count n "$MOVED")
  [ "$moves" = 0 ] || break
done
check "the host identity file unreadable at 3 starts: no move ($moves), ids refused: $first_out" \
  '[ "$moves" = 0 ] && [[ $first_out == "55000: could not read the host identity file \"$WORK/h7.id\": Permission denied" ]] &&
   log_has n "WARNING:  locality_uuid: could not read the host identity file \"$WORK/h7.id\": server-wide ids wait"'
chmod 644 "$WORK/h7.id"
tick
got=$(q n -c "SELECT locality_uuid_node(locality_uuid())" 2>&1 || true)
check "... readable again: ids at once, without a restart ($got), still not moved" \
  '[ "$got" = 81 ] && [ "$(log_count n "$MOVED")" = 0 ] && log_has n "LOG:  locality_uuid: host identity file read: counters stay bound here"'
# Unreadable at the start, and another host's identity once it is read:
# that is a move, made before the first id.
chmod 000 "$WORK/h7.id"
: >"$WORK/n.log"
pgctl n restart -m fast
echo "another-host-$RANDOM" >"$WORK/h7.id"
chmod 644 "$WORK/h7.id"
tick
got=$(q n -c "SELECT locality_uuid_node(locality_uuid())" 2>&1 || true)
check "... and when the file, read at last, names another host: moved before the first id ($got)" \
  '[ "$got" = 81 ] && log_has n "$MOVED: the counters were bound elsewhere; this server started on another host \(read once its host identity file could be\)"'
pgctl n stop -m fast

# --- a clone of a directory whose move never finished, its identity file late -------
# n stopped between recording a move (binding "moving", with its target)
# and writing the state file (issue #51, finding 3). A clone of its disk
# starts on another host: the same data directory, system identifier and
# identity file path, the file mounted only after the start (unreadable
# there, then naming the clone's host). The origin starts later from the
# same disk, on its own host, and completes the recorded target: the clone
# must move on from it. Both run from the one directory in turn, at the
# same clock instants.
echo; echo "== a clone of a directory whose move never finished, its host identity file unreadable at its start"
record_unfinished_move n
cp -a "$WORK/n" "$WORK/n.disk"
origin_host=$(cat "$WORK/h7.id")
disk_ms=$CLOCK_MS
chmod 000 "$WORK/h7.id"
: >"$WORK/n.log"
pgctl n start
out=$(error_of n "SELECT locality_uuid()")
echo "clone-host-$RANDOM$RANDOM" >"$WORK/h7.id"
chmod 644 "$WORK/h7.id"
q n -c "SELECT locality_uuid()" >/dev/null  # the move (it closes this second for clock Hot Guids)
tick
side n moving_clone
check "the clone: ids wait for its identity file ($out), then move on from the recorded target" \
  '[[ $out == "55000: could not read the host identity file"* ]] &&
   log_has n "LOG:  $MOVED: a move recorded before this start was never completed here \(read once its host identity file could be\)"'
pgctl n stop -m fast
rm -rf "$WORK/n"
mv "$WORK/n.disk" "$WORK/n"
echo "$origin_host" >"$WORK/h7.id"
CLOCK_MS=$disk_ms
set_clock "$WORK/clock" "$CLOCK_MS"
: >"$WORK/n.log"
pgctl n start
check "the origin, started from the same disk on its host, completes the recorded move" \
  'log_has n "$MOVED: completing the move recorded before the last stop"'
tick
side n moving_origin
repeats "a clone of a directory whose move never finished, its identity file late, against its origin" \
  moving_origin moving_clone
pgctl n stop -m fast

# --- a crash snapshot whose WAL holds a release (review copies-beyond-one-move, F1) ---
echo; echo "== a crash snapshot that replays its origin's release"
# The origin holds the current window's run, a forward clock glitch
# poisons a slot, the release of it goes to WAL; the origin stops with no
# checkpoint after that (a crash snapshot), and a copy of it starts in
# another directory beside it: it moves at its start, then its crash
# recovery replays the release, which must not put its runs back on the
# origin's places.
init_node f "checkpoint_timeout = '1h'" "locality_uuid.node_id = 91" "locality_uuid.machine_name = 'copies-f'"
pgctl f start
q f -c "CREATE EXTENSION locality_uuid"
tick
q f -c "SELECT count(locality_uuid(true)) FROM generate_series(1, 1000)" >/dev/null
q f -c "CHECKPOINT"
set_clock "$WORK/clock" $((CLOCK_MS + 70 * 600000))
q f -c "SELECT locality_uuid(true)" >/dev/null
set_clock "$WORK/clock" "$CLOCK_MS"
released=$(q f -c "SELECT count(*) FROM locality_uuid_release_future_windows()")
pgctl f stop -m immediate
cp -a "$WORK/f" "$WORK/g"
set_port g
cp -a "$WORK/g" "$WORK/g.snapshot"
pgctl f start
first_start_ms=$CLOCK_MS
pgctl g start
# What the copy's files hold once it has started (its move; pg_ctl -w
# returns after its recovery), for below.
mkdir "$WORK/g.snapshot.files"
cp -a "$WORK/g/locality_uuid.binding" "$WORK/g/locality_uuid.state" "$WORK/g.snapshot.files/"
tick
side f f_release
side g g_release
repeats "a copy of a crash snapshot whose WAL holds a release ($released released), beside its origin" f_release g_release
check "... the copy moved at its start, then replayed the release" \
  'log_has g "$MOVED: the counters were bound elsewhere; this server started in another data directory" &&
   log_has g "redo done"'
# A crash during that first recovery (issue #51, finding 2): the start had
# written its move (binding bound here, the state file with the moved
# marks), and the next start replays the same WAL again, the origin's
# release in it, with no move of its own to floor it. The copy's directory
# as such a crash leaves it: the snapshot, with the binding and state file
# its first start wrote, as they stand after that recovery; started at the
# same instants as the copy above.
pgctl g stop -m immediate
rm -rf "$WORK/g"
cp -a "$WORK/g.snapshot" "$WORK/g.snapshot.again"
mv "$WORK/g.snapshot" "$WORK/g"
cp -a "$WORK/g.snapshot.files/locality_uuid.binding" "$WORK/g.snapshot.files/locality_uuid.state" "$WORK/g/"
: >"$WORK/g.log"
CLOCK_MS=$first_start_ms
set_clock "$WORK/clock" "$CLOCK_MS"
pgctl g start
check "the copy restarted after a crash during its first recovery: no move, the WAL with the release replayed again" \
  '! log_has g "$MOVED" && log_has g "redo starts" && log_has g "redo done"'
tick
side g g_recovered_again
repeats "... the copy's recovery replayed again after that crash, beside its origin at the same instants" \
  f_release g_recovered_again
# A crash at each step of that first start (issue #51, finding 2): the
# start writes its move (the postmaster: the binding "moving", the state
# file with the moved marks, the binding "bound"), then its recovery
# replays the glitch's refill and the release (the startup process's state
# file writes; PostgreSQL 15+: before, the library logs no record).
# fault_shim mode A, B, ... kills whichever process makes the start's
# first, second, ... of those writes, before it writes (its pid in
# fault.killed). Each time the copy is started again from where the crash
# left it, at the same instants as above, beside its origin: what the
# restart must do (a fresh move, the recorded move completed, or no move
# and the recovery replayed), then 0 repeats. The steps end at the first
# start that is not killed: all its writes (fault.writes) were crash
# points before it.
pgctl g stop -m fast
build_shim fault_shim "$WORK"
if [ "$PG_MAJOR" -ge 15 ]; then
  expected="A postmaster, B postmaster, C postmaster, D startup process, E startup process"
else
  expected="A postmaster, B postmaster, C postmaster"
fi
# After a kill at a step: what the restart logs.
declare -A RESTART=(
  [A]="$MOVED: the counters were bound elsewhere; this server started in another data directory"
  [B]="$MOVED: completing the move recorded before the last stop"
  [C]="$MOVED: completing the move recorded before the last stop"
)
killed_at="" unkilled="" writes=0
for step in A B C D E F G H I; do
  rm -rf "$WORK/g"
  cp -a "$WORK/g.snapshot.again" "$WORK/g"
  : >"$WORK/g.log"
  rm -f "$WORK/fault.count" "$WORK/fault.writes" "$WORK/fault.killed"
  CLOCK_MS=$first_start_ms
  set_clock "$WORK/clock" "$CLOCK_MS"
  echo "$step" >"$WORK/fault"
  chown postgres "$WORK/fault"
  as_postgres env LD_PRELOAD="$WORK/fault_shim.so $WORK/clock_shim.so" FAULT_SHIM_FILE="$WORK/fault" \
    CLOCK_SHIM_FILE="$WORK/clock" timeout 120 "$BIN/pg_ctl" -D "$WORK/g" -l "$WORK/g.log" -w start >/dev/null 2>&1 || true
  pid=$(head -n 1 "$WORK/fault.killed" 2>/dev/null || true)
  who=unknown
  if [ -z "$pid" ]; then
    who=""
  elif log_has g "startup process \(PID $pid\) was terminated by signal 9"; then
    who="startup process"
  elif [ "$(head -n 1 "$WORK/g/postmaster.pid" 2>/dev/null || true)" = "$pid" ]; then
    who=postmaster
  fi
  # (a start not killed, or a postmaster its killed child left, is
  # stopped as a crash would)
  if [ -f "$WORK/g/postmaster.pid" ]; then as_postgres "$BIN/pg_ctl" -D "$WORK/g" -m immediate stop >/dev/null 2>&1 || true; fi
  if [ -z "$who" ]; then
    unkilled=$step
    writes=$({ wc -c <"$WORK/fault.writes"; } 2>/dev/null || echo 0)
    break
  fi
  killed_at+="${killed_at:+, }$step $who"
  : >"$WORK/g.log"
  pgctl g start
  if [ -n "${RESTART[$step]:-}" ]; then
    check "... the copy's first start killed at its write $step ($who): the restart says ${RESTART[$step]#"$MOVED: "}" \
      'log_has g "${RESTART[$step]}"'
  else
    check "... the copy's first start killed at its write $step ($who): the restart moves nothing, replays its recovery" \
      '! log_has g "$MOVED" && log_has g "redo done"'
  fi
  tick
  side g "g_killed_$step"
  repeats "... then beside its origin at the same instants" f_release "g_killed_$step"
  pgctl g stop -m fast
done
steps=$(( $(tr -cd , <<<"$expected" | wc -c) + 1 ))
check "the copy's first start killed at each of its writes in turn ($killed_at), then not killed at step ${unkilled:-none}: $writes writes, all of them crash points" \
  '[ "$killed_at" = "$expected" ] && [ -n "$unkilled" ] && [ "$writes" = "$steps" ]'
rm -rf "$WORK/g.snapshot.again"
pgctl g start
pgctl f stop -m fast
pgctl g stop -m fast

echo
[ "$failures" = 0 ] && echo "all copy checks passed" || { echo "$failures copy checks FAILED"; exit 1; }
