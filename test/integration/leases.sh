#!/usr/bin/env bash
# Leases (issue #43, doc/fleets.md "Leases"): with locality_uuid.registry
# set, every start of a server takes a node value and a Hot Guid machine
# name the registry never handed out. On one machine: a registry in a
# throw-away cluster, servers on one simulated host (the same identity
# file) with their clocks held at one instant, sides of ids of every kind
# (lib/sides.sh) compared with the pid field masked:
#
#   clone      a cold copy that keeps the host identity, the data directory
#              path and the port, run at the same clock instants as its
#              origin (which no local check can tell from a restart; also
#              what a revert in place is: the origin's snapshot put back);
#              first without leases, where it repeats every id (the control)
#   siblings   four copies of one stopped server and a copy of a copy, all
#              running at once
#   standby    a pg_basebackup -R standby, promoted while its primary is
#              stopped
#   PITR       a point-in-time restore, promoted beside its origin
#   unreachable  the registry down at a start: ids fail (55000) with the
#              registry's error, then are made once it answers, without a
#              restart, at once after a reload
#   round trips  one lease per start (the registry's connection log), none
#              per id
#   crash restart  a crash restart keeps the postmaster's lease: ids at
#              once with the registry down, no new lease
#   emergency  the registry down for hours: a real start waits; leases
#              off alone refused (the data directory has leased: no MAC's
#              value, no host name); a value claimed in advance for the
#              host and data directory makes ids; leases again once the
#              registry is back
#   gone back  the registry restored from a dump taken before 40 leases
#              elsewhere and a server's last two: the values it hands out again refused
#              (locality_uuid.lease), the next one above; fleet audit and
#              fleet scan name it; fleet registry --past repairs; an
#              unreadable record stops leases until put back
#   registry PITR  the registry recovered to a point in time before 42 of
#              its leases (more than a sequence logs ahead): fleet audit
#              names it, fleet registry --past repairs it before any start;
#              a new server started first, then the running two, lease
#              above them all
#   strings    a silent first host, a read-only first host (passed over),
#              a string libpq cannot parse (its secret kept out of errors)
#   sync rep   a lease whose synchronous replication was cancelled (the
#              registry's WARNING): not used, the next one is
#   sync rep claim  node claim's own synchronous_commit pin, the session's
#              default off
#   self-hosted  a registry in the leasing server's own cluster: refused
#              (not checked, and said, where the leaser may not read it)
#   spent      the node values' sequence at its end: fleet registry and
#              fleet audit exit 1, a start's lease fails saying why
# In every pair 0 repeats; every start of every server a distinct value.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
. "$ROOT/test/integration/lib/servers.sh"
. "$ROOT/test/integration/lib/ha_nodes.sh"
start_work locality-leases
# LEASES_KEEP=1 keeps the servers' directories and logs (stopped) for a look.
[ "${LEASES_KEEP:-0}" = 1 ] && trap 'stop_servers_under "$WORK"; echo "kept $WORK"' EXIT
IDS=${LEASES_IDS:-50000}
. "$ROOT/test/integration/lib/sides.sh"
CLI=${CLI:-locality-uuid}
error_of() { q "$1" -v VERBOSITY=verbose -c "$2" 2>&1 | sed -n 's/^ERROR: *//p' | head -n 1 || true; }
# error_once NODE TEXT: NODE's error for an id once it holds TEXT (the
# worker's attempt comes after the start; at most 20 s).
error_once() {
  local err=""
  for _ in $(seq 100); do
    err=$(error_of "$1" "SELECT locality_uuid()")
    [[ $err == *"$2"* ]] && break; sleep 0.2
  done
  echo "$err"
}
MOVED="locality_uuid: server-wide counters moved past fresh random points"

# --- the registry -----------------------------------------------------------------
PORT[reg]=$(init_server "$WORK/reg" "$WORK" <<CONF
log_connections = on
max_prepared_transactions = 2
CONF
)
sed -i "/^shared_preload_libraries/d" "$WORK/reg/postgresql.conf"
pgctl reg start
REG="host=$WORK port=${PORT[reg]} dbname=postgres"
# A registry as 1.3's CLI made it (layout 1), with a claimed and an
# adopted value; then updated to this layout by its owner with fleet
# registry (doc/fleets.md), and a login that may only lease.
echo "== a registry of 1.3 (layout 1), updated"
PGOPTIONS="-c search_path=pg_catalog,pg_temp" q reg -f "$ROOT/test/integration/lib/registry_layout1.sql" >/dev/null
q reg -c "SELECT node_id FROM locality_uuid_registry.claim(md5('old-host'), 'old-host', '/old/dir')" \
  -c "SELECT node_id FROM locality_uuid_registry.claim(md5('old-host-2'), 'old-host-2', '/old/dir', 4242, 'adopted-4242')" >/dev/null
q reg -c "CREATE ROLE other LOGIN" >/dev/null
rc=0; out=$("$CLI" fleet registry --registry "$REG user=other" --registry-owner postgres 2>&1) || rc=$?
check "another role than its owner is refused, exit $rc: $out" \
  '[ $rc = 1 ] && [[ $out == *"the registry has layout 1, this locality-uuid needs layout 3: run locality-uuid fleet registry once as role postgres to update it" ]]'
made=$("$CLI" fleet registry --registry "$REG user=postgres")
check "its owner's fleet registry updates it: $(tr '\n' ' ' <<<"$made")" \
  '[ "$made" = "registry layout 3, trusted
registry: 2 rows (0 leases), node values drawn 1 of 268435455, machine bytes used 2 of 16777216" ]'
rows=$(q reg -c "SELECT string_agg(node_id || ' ' || how, ', ' ORDER BY node_id) FROM locality_uuid_registry_private.nodes")
left=$(q reg -c "SELECT count(*) FROM pg_attribute WHERE attrelid = 'locality_uuid_registry_private.nodes'::regclass AND attname = 'adopted' AND NOT attisdropped")
left=$left/$(q reg -c "SELECT count(*) FILTER (WHERE pronamespace = 'locality_uuid_registry'::regnamespace) || '/'
                              || count(*) FILTER (WHERE pronamespace = 'locality_uuid_registry_private'::regnamespace)
                       FROM pg_proc WHERE proname = 'insert_node'")
moved=$(q reg -c "SELECT (SELECT count(*) FROM pg_class WHERE relnamespace = 'locality_uuid_registry'::regnamespace) || ' '
                         || (SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class
                             WHERE relnamespace = 'locality_uuid_registry_private'::regnamespace AND relkind IN ('r', 'S'))")
given=$(q reg -c "SELECT obj_description('locality_uuid_registry_private.node_values'::regclass, 'pg_class')")
again=$(q reg -c "SELECT node_id || ' ' || existing FROM locality_uuid_registry.claim(md5('old-host'), 'old-host', '/old/dir')")
check "... every row kept ($rows), the flag gone and one insert function left ($left), every relation private ($moved), an identity given ($given), a claim again the same ($again)" \
  '[ "$rows" = "1 claimed, 4242 adopted" ] && [ "$left" = 0/0/1 ] && [ "$again" = "1 true" ] &&
   [ "$moved" = "0 claims,node_values,nodes" ] && [[ $given =~ ^locality_uuid\ registry\ identity\ [0-9a-f-]{36}$ ]]'
# Functions older than this version's (as 1.4's lease() was, revision 1:
# no comment, and the claimers' lock a ROW EXCLUSIVE hold stalls): another
# role is warned, the owner's fleet registry replaces them alone, touching
# no table (revision 4; issue #50: 2 gave the registry's lock mode, 3 its
# identity, 4 a claim's mark that waits for no audit).
revision="SELECT coalesce(obj_description('locality_uuid_registry.lease(text, text, text, text, timestamptz)'::regprocedure, 'pg_proc'), 'none')
                 || ', ' || (SELECT count(*) FROM pg_proc WHERE pronamespace = 'locality_uuid_registry'::regnamespace
                             AND prosrc LIKE '%LOCK TABLE locality_uuid_registry_private.nodes IN SHARE UPDATE EXCLUSIVE MODE;%')"
# as_revision_1: lease() as 1.4 made it (no comment, 1.4's lock mode).
as_revision_1() {
  q reg -c "COMMENT ON FUNCTION locality_uuid_registry.lease(text, text, text, text, timestamptz) IS NULL" \
    -c "SELECT set_config('x.src', replace(prosrc, 'SHARE UPDATE EXCLUSIVE', 'SHARE ROW EXCLUSIVE'), false) FROM pg_proc
        WHERE oid = 'locality_uuid_registry.lease(text, text, text, text, timestamptz)'::regprocedure" \
    -c "DO \$\$ BEGIN EXECUTE format('CREATE OR REPLACE FUNCTION locality_uuid_registry.lease(host text, label text, dir text,
          system_identifier text, started_at timestamptz) RETURNS TABLE (node_id integer, machine_name text, machine_bytes text)
          LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS %L', current_setting('x.src')); END \$\$" >/dev/null
}
as_revision_1
old_revision=$(q reg -c "$revision")
rc=0; out=$("$CLI" fleet registry --registry "$REG user=other" --registry-owner postgres 2>&1 >/dev/null) || rc=$?
"$CLI" fleet registry --registry "$REG user=postgres" >/dev/null
# (other reads no row: its fleet registry then fails, after the warning.)
check "1.4's functions ($old_revision): another role is warned first (exit $rc), the owner's fleet registry updates them ($(q reg -c "$revision"))" \
  '[ "$old_revision" = "none, 2" ] &&
   [ "$(head -n 1 <<<"$out")" = "locality-uuid: warning: the registry'"'"'s functions are revision 1, this locality-uuid'"'"'s 4: a lock any role with USAGE on the schema can hold stalls every claim and lease; run locality-uuid fleet registry once as role postgres to update them" ] &&
   [ "$(q reg -c "$revision")" = "locality_uuid registry functions, revision 4, 3" ]'
# The servers' login, with doc/fleets.md's GRANT block as written there:
# it leases, and reads and writes no row itself.
q reg -c "$(sed -n '/<!-- grants-leaser -->/,/<!-- \/grants-leaser -->/p' "$ROOT/doc/fleets.md" | grep -v '^<!--\|^```')" >/dev/null
rc=0; out=$(q reg -U leaser -c "SELECT count(*) FROM locality_uuid_registry.nodes()" 2>&1) || rc=$?
rc2=0; out2=$(q reg -U leaser -c "SELECT count(*) FROM locality_uuid_registry_private.nodes" 2>&1) || rc2=$?
check "the leaser of doc/fleets.md's grants reads no row (exit $rc, $rc2): $out / $out2" \
  '[ $rc != 0 ] && grep -q "permission denied for function nodes" <<<"$out" &&
   [ $rc2 != 0 ] && grep -q "permission denied for schema locality_uuid_registry_private" <<<"$out2"'
leases_of() { q reg -c "SELECT count(*) FROM locality_uuid_registry_private.nodes WHERE how = 'leased' AND data_directory = '$1'"; }
lease_connections() { grep -c "connection authorized: user=leaser" "$WORK/reg.log" || true; }

# One simulated host for every server: the same identity file.
make_host h "locality_uuid.registry = '$REG user=leaser'" "locality_uuid.registry_owner = 'postgres'"
lnode() {  # lnode NODE [SETTINGS...]: a server on host h, archiving its WAL
  init_node "$@"
  on_host "$1" h
}
node_of() { q "$1" -c "SELECT locality_uuid_node(locality_uuid())"; }
# wait_lease NODE...: until each holds this start's lease (its worker
# starts once the server is consistent: a first query may come first).
wait_lease() {
  local n src
  for n in "$@"; do
    for _ in $(seq 300); do
      src=$(q "$n" -c "SELECT node_source FROM locality_uuid_binding()" 2>/dev/null) || src=""
      [[ $src == "lease from the registry at "* && $src != *"not held yet"* ]] && break
      sleep 0.2
    done
    [[ $src == "lease from the registry at "* && $src != *"not held yet"* ]] || { echo "FAIL: no lease on $n: $src"; exit 1; }
  done
}
# restore_point NODE NAME: a restore point NAME on NODE, its WAL segment
# switched and archived (in $WORK/archive/NODE, lnode's archive).
restore_point() {
  local segment
  q "$1" -c "SELECT pg_create_restore_point('$2')" >/dev/null
  segment=$(q "$1" -c "SELECT pg_walfile_name(pg_switch_wal())")
  poll 60 test -f "$WORK/archive/$1/$segment" || { echo "FAIL: $1's $segment was not archived"; exit 1; }
}
# recover_archived NODE SOURCE TARGET: NODE, a base backup of SOURCE,
# recovers from SOURCE's archive to its restore point TARGET and is
# promoted there (the caller checks that it is; at most a minute).
recover_archived() {
  cat >>"$WORK/$1/postgresql.conf" <<CONF
restore_command = 'cp $WORK/archive/$2/%f %p'
recovery_target_name = '$3'
recovery_target_action = 'promote'
CONF
  as_postgres touch "$WORK/$1/recovery.signal"
  pgctl "$1" start
  promoted() { [ "$(q "$1" -c "SELECT pg_is_in_recovery()")" = f ]; }
  poll 60 promoted "$1" || true
}
# drawn: the registry's node values drawn so far (its sequence's position).
drawn() { q reg -c "SELECT last_value FROM locality_uuid_registry_private.node_values"; }
# shown_if_failed TEXT: TEXT under the check just made, if it failed.
shown_if_failed() { [ "$failures" = "${failures_seen:-0}" ] || sed 's/^/    | /' <<<"$1"; failures_seen=$failures; }

# --- a clone that keeps the host, the path and the port; a revert in place --------
# clone_at_origin_instants NODE LABEL: NODE (made by the caller, on its
# host) makes 1,000 given-time ids and stops: the snapshot. Started again
# it makes the side LABEL_origin and stops (its directory kept as
# NODE.origin, its log as NODE.origin.log). Then the snapshot is put back
# where it ran: a clone of the stopped origin (a VM image, a volume
# restored into a pod of the same name) or a revert in place (a VM
# snapshot, a ZFS rollback), started at the origin's very instants, makes
# LABEL_clone and keeps running. Sets origin_node and clone_node.
clone_at_origin_instants() {
  local node=$1 label=$2 started_at
  pgctl "$node" start
  q "$node" -c "CREATE EXTENSION locality_uuid"
  lease_if_leasing "$node"
  q "$node" -c "SELECT count(locality_uuid_at($FIXED, true)) FROM generate_series(1, 1000)" >/dev/null
  pgctl "$node" stop -m fast
  cp -a "$WORK/$node" "$WORK/$node.snapshot"
  started_at=$CLOCK_MS
  pgctl "$node" start
  lease_if_leasing "$node"
  tick
  side "$node" "${label}_origin"
  origin_node=$(node_of "$node")
  pgctl "$node" stop -m fast
  mv "$WORK/$node" "$WORK/$node.origin"
  mv "$WORK/$node.log" "$WORK/$node.origin.log"
  cp -a "$WORK/$node.snapshot" "$WORK/$node"
  # (Its WAL segments have the names the origin's had: a WAL archive of
  # its own, as a restore into that place would need too.)
  mv "$WORK/archive/$node" "$WORK/archive/$node.origin" && mkdir "$WORK/archive/$node" && chown postgres "$WORK/archive/$node"
  CLOCK_MS=$started_at
  set_clock "$WORK/clock" "$CLOCK_MS"
  pgctl "$node" start
  lease_if_leasing "$node"
  tick
  side "$node" "${label}_clone"
  clone_node=$(node_of "$node")
}
lease_if_leasing() { if grep -q "^include '$WORK/h.conf'" "$WORK/$1/postgresql.conf"; then wait_lease "$1"; fi; }

# Without leases, on a host whose values come from its file: the clone
# starts as its origin restarting would and makes every id the origin made
# (doc/guarantees.md, "Not caught"). The control for the leased case.
echo "== without leases, a clone keeping host identity, data directory and port repeats every id"
make_host h0 "locality_uuid.node_id = 4000" "locality_uuid.machine_name = 'db-4000'"
init_node n "checkpoint_timeout = '1h'"
on_host n h0
clone_at_origin_instants n plain
counts=""; every=1
for k in "${KINDS[@]}"; do
  same=$(LC_ALL=C comm -12 "$WORK/ids/plain_origin.$k" "$WORK/ids/plain_clone.$k" | wc -l)
  counts+="${counts:+, }$k $same"
  [ "$same" = "$IDS" ] || every=0
done
check "... $IDS ids of each kind per side, masked repeats: $counts" '[ $every = 1 ]'
check "... and its start logged no WARNING and no move" '! grep -q "WARNING:  locality_uuid\|$MOVED" "$WORK/n.log"'
pgctl n stop -m fast
rm -rf "$WORK"/n "$WORK"/n.origin "$WORK"/n.snapshot "$WORK"/ids/plain_*

echo "== a clone keeping host identity, data directory and port, or a revert in place, at the same instants"
lnode o "checkpoint_timeout = '1h'"
clone_at_origin_instants o leased
repeats "clone at the origin's path and instants (node $origin_node, then $clone_node)" leased_origin leased_clone
check "... nothing local told it from a restart: not moved" '! log_has o "$MOVED.*another"'
pgctl o stop -m fast

# --- four siblings and a copy of a copy --------------------------------------------
echo; echo "== four siblings and a copy of a copy, at once"
sibs=(s1 s2 s3 s4 s11)
for s in s1 s2 s3 s4; do cp -a "$WORK/o.snapshot" "$WORK/$s"; set_port "$s"; done
pgctl s1 start
wait_lease s1
q s1 -c "SELECT count(locality_uuid()) FROM generate_series(1, 100)" >/dev/null
pgctl s1 stop -m fast
cp -a "$WORK/s1" "$WORK/s11"
set_port s11
for s in "${sibs[@]}"; do pgctl "$s" start; done
wait_lease "${sibs[@]}"
tick
for s in "${sibs[@]}"; do side "$s" "sib_$s"; done
pairs=0
for ((i = 0; i < ${#sibs[@]}; i++)); do
  for ((j = i + 1; j < ${#sibs[@]}; j++)); do
    repeats "siblings ${sibs[$i]} and ${sibs[$j]}" "sib_${sibs[$i]}" "sib_${sibs[$j]}"
    pairs=$((pairs + 1))
  done
done
for s in "${sibs[@]}"; do pgctl "$s" stop -m fast; done
echo "($pairs pairs compared)"

# --- a promoted standby -------------------------------------------------------------
echo; echo "== a promoted standby"
pgctl o start
wait_lease o
base_backup o st -R
echo "archive_mode = off" >>"$WORK/st/postgresql.conf"
pgctl st start
tick
side o standby_primary
primary_node=$(node_of o)
wait_replay o st
# Its lease, taken while it is a standby (the binding's node is the
# lease's once held).
st_source=""
for _ in $(seq 100); do
  st_source=$(q st -c "SELECT node_source FROM locality_uuid_binding()")
  [[ $st_source == *"not held yet"* ]] || break; sleep 0.2
done
st_node=$(q st -c "SELECT node FROM locality_uuid_binding()")
pgctl o stop -m immediate
promote st
q st -c "SELECT locality_uuid()" >/dev/null
tick
side st standby_promoted
repeats "promoted standby against its primary" standby_primary standby_promoted
check "... the standby held a lease of its own before its promotion (node $st_node, its primary's $primary_node), its ids carry it" \
  '[[ $st_source == "lease from the registry at "* ]] && [[ $st_source != *"not held yet"* ]] && [ "$st_node" != "$primary_node" ] && [ "$(node_of st)" = "$st_node" ]'
pgctl st stop -m fast

# --- a point-in-time restore beside its origin --------------------------------------
echo; echo "== a point-in-time restore, promoted beside its origin"
pgctl o start
wait_lease o
base_backup o pitr
echo "archive_mode = off" >>"$WORK/pitr/postgresql.conf"
restore_point o leases
recover_archived pitr o leases
check "restored to the restore point and promoted, its origin running" '[ "$(q pitr -c "SELECT pg_is_in_recovery()")" = f ]'
wait_lease pitr
# The restored server's first id moves its counters (which counts its
# current second's clock Hot Guids as full); then past the seconds the
# origin's restart reserved for clock Hot Guids (the held clock stood still
# across it).
q pitr -c "SELECT locality_uuid()" >/dev/null
tick; tick; tick
side o pitr_origin
side pitr pitr_restored
repeats "point-in-time restore against its origin, at once" pitr_origin pitr_restored
pgctl pitr stop -m fast

# --- every start a value of its own -------------------------------------------------
starts=$(q reg -c "SELECT count(*) FROM locality_uuid_registry_private.nodes WHERE how = 'leased'")
distinct=$(q reg -c "SELECT count(DISTINCT node_id) || ' ' || count(DISTINCT machine_bytes) FROM locality_uuid_registry_private.nodes WHERE how = 'leased'")
logged=$(cat "$WORK"/*.log | grep -c "LOG:  locality_uuid: leased node value" || true)
moved=$(cat "$WORK"/*.log | grep -c "LOG:  $MOVED" || true)
check "every start took a lease of its own: $starts leases, as many distinct node values and machine bytes ($distinct), $logged starts logged one" \
  '[ "$distinct" = "$starts $starts" ] && [ "$logged" = "$starts" ] && [ "$starts" -ge 10 ]'
check "... the copies' moves ($moved) logged as LOG, no WARNING with a copy's HINT" \
  '[ "$moved" -ge 5 ] && ! grep -q "WARNING:  locality_uuid: server-wide counters moved" "$WORK"/*.log'


# --- the registry down at a start ---------------------------------------------------
echo; echo "== the registry unreachable at a start"
pgctl reg stop -m fast
pgctl o restart -m fast
# (Before the worker's first attempt the error says it has not answered.)
for _ in $(seq 50); do
  out=$(error_of o "SELECT locality_uuid()")
  [[ $out == *"has not answered yet" ]] || break; sleep 0.2
done
# (libpq's own text names the registry's address and login: every role
# meets this error, so it is in the server log and locality_uuid_binding()
# alone.)
check "ids fail while this start holds no lease: $out" \
  '[ "$out" = "55000: locality_uuid: no lease of a node value yet from the registry at $WORK:${PORT[reg]}/postgres: could not connect to the registry: libpq'"'"'s message is in the server log and in locality_uuid_binding()" ]'
src=$(q o -c "SELECT node_source FROM locality_uuid_binding()")
check "... locality_uuid_binding() says so, with the attempts and the last error, libpq's text whole: $src" \
  '[[ $src == "lease from the registry at $WORK:${PORT[reg]}/postgres, not held yet ("[0-9]*" attempt"*" failed, the last: could not connect to the registry: "*"$WORK/.s.PGSQL.${PORT[reg]}"* ]]'
check "... and the server log: $(grep -m1 -o "could not lease a node value from the registry at .*" "$WORK/o.log" | cut -c1-160)" \
  'grep "WARNING:  locality_uuid: could not lease a node value from the registry at $WORK:${PORT[reg]}/postgres: could not connect to the registry: " "$WORK/o.log" | grep -qF "$WORK/.s.PGSQL.${PORT[reg]}"'
shown=""
for f in "locality_uuid_node_id()" "hot_guid_machine_name()" "hot_guid_machine_id()"; do
  shown+="$(error_of o "SELECT $f" | cut -c1-46); "
done
check "... as do the functions that say what new ids carry: $shown" \
  '[ "$shown" = "$(for _ in 1 2 3; do printf "%s; " "55000: locality_uuid: no lease of a node value"; done)" ]'
out=$(error_of o "SELECT hot_guid(1)")
check "... Hot Guids too, and reading ids works" \
  '[[ $out == "55000: locality_uuid: no lease"* ]] && [ "$(q o -c "SELECT locality_uuid_node('"'20be0ffc-314a-bd53-7a50-013a65ca76d2'"')")" = 223574608 ]'
last_failing=$SECONDS
# The worker's waits grow (1, 2, 4, 8, 16 s, each up to half as long
# again): after 5 failed attempts its next wait is 16 s or more. A reload
# once the registry is back makes it try at once.
attempts=0
for _ in $(seq 200); do
  attempts=$(q o -c "SELECT substring(node_source from '([0-9]+) attempts? failed') FROM locality_uuid_binding()")
  [ "${attempts:-0}" -ge 5 ] && break; sleep 0.2
done
# Meanwhile, every failing id is its client's error; the server log gets
# one per 10 s, server-wide, and says how many it left out (a pool retrying
# at 10 calls a second wrote 2,400 lines a minute). A burst more than 10 s
# after the failing ids above, from 20 sessions of 10 ids each: its first
# error logged, the other 199 not; an error of another kind in a session
# whose errors were hidden logged as ever; the next one, 10 s later, counts
# the 199, which its client is not told.
# (A burst that took 9 s or more, on a loaded machine, is made again: its
# errors may span two of the log's 10 s.)
no_lease_logged() { log_count o "ERROR:  locality_uuid: no lease of a node value yet"; }
burst_at=$last_failing
for _ in 1 2 3; do
  while [ $((SECONDS - burst_at)) -le 10 ]; do sleep 0.5; done
  logged_before=$(no_lease_logged)
  burst_started=$SECONDS
  burst=$(for session in $(seq 20); do
    { for _ in $(seq 10); do echo "SELECT locality_uuid();"; done; [ "$session" != 20 ] || echo "SELECT 1/0;"; } |
      q o -v ON_ERROR_STOP=0 2>&1
  done | grep -c "ERROR:  locality_uuid: no lease of a node value yet" || true)
  burst_at=$SECONDS
  logged=$(( $(no_lease_logged) - logged_before ))
  [ $((burst_at - burst_started)) -lt 9 ] && break
done
check "... 200 failing ids from 20 sessions: 200 errors to them ($burst), $logged of them in the server log; a division by zero after them logged" \
  '[ "$burst" = 200 ] && [ "$logged" = 1 ] && log_has o "ERROR:  division by zero"'
while [ $((SECONDS - burst_at)) -le 10 ]; do sleep 0.5; done
client=$(q o -v VERBOSITY=verbose -c "SELECT locality_uuid()" 2>&1 || true)
left=$(grep -Eo "[0-9]+ more like it \(from every session\) were left out of the server log since the last one written \(one every 10 s is\)\." "$WORK/o.log" |
  tail -n 1 | cut -d' ' -f1)
check "... the next one, 10 s after the burst, in the server log, saying how many were left out ($left), which its client is not told" \
  '[ "$left" = 199 ] && [ $(( $(no_lease_logged) - logged_before )) = 2 ] &&
   [[ $client == *"DETAIL:  Every start of this server"* ]] && [[ $client != *"more like it"* ]]'
pgctl reg start
reload_at=$(date +%s%N)
q o -c "SELECT pg_reload_conf()" >/dev/null
got=""
for _ in $(seq 200); do got=$(q o -c "SELECT locality_uuid_node(locality_uuid())" 2>/dev/null) && break; sleep 0.2; done
waited_ms=$(( ($(date +%s%N) - reload_at) / 1000000 ))
check "... and once the registry answers, a reload makes the worker try at once: ids ${waited_ms} ms after it, its next wait after $attempts failed attempts 16 s or more (node $got, a new lease, without a restart)" \
  '[ -n "$got" ] && [ "$got" != "$origin_node" ] && [ "${attempts:-0}" -ge 5 ] && [ "$waited_ms" -lt 12000 ] &&
   log_has o "WARNING:  locality_uuid: could not lease a node value from the registry" &&
   log_has o "LOG:  locality_uuid: the configuration was reloaded: the lease worker tries the registry at once"'

# --- round trips -------------------------------------------------------------------
echo; echo "== round trips"
before_conn=$(lease_connections); before=$(leases_of "$WORK/o")
q o -c "SELECT count(locality_uuid()) + count(hot_guid(3)) + count(locality_uuid_at($FIXED, true)) FROM generate_series(1, 100000)" >/dev/null
mid_conn=$(lease_connections)
pgctl o restart -m fast
for _ in $(seq 100); do q o -c "SELECT locality_uuid()" >/dev/null 2>&1 && break; sleep 0.3; done
after_conn=$(lease_connections); after=$(leases_of "$WORK/o")
check "300,000 ids: $((mid_conn - before_conn)) connections to the registry; a restart: $((after_conn - mid_conn)) connection, $((after - before)) lease" \
  '[ "$mid_conn" = "$before_conn" ] && [ $((after_conn - mid_conn)) = 1 ] && [ $((after - before)) = 1 ]'
check "locality_uuid_binding() shows the lease" \
  '[[ "$(q o -c "SELECT node_source FROM locality_uuid_binding()")" == "lease from the registry at $WORK:${PORT[reg]}/postgres, "* ]]'
check "... and the start said where its values come from" \
  'log_has o "LOG:  locality_uuid: node values and Hot Guid machine names come from leases \(locality_uuid\.registry\): this start takes one before its first server-wide id" &&
   log_has o "LOG:  locality_uuid: server-wide counters bound to this start.s lease \(locality_uuid\.registry\)" &&
   ! log_has o "where they come from changed"'

# A crash restart is not a start (issue #52): the postmaster is one process
# across it, so nothing can have copied what it holds; it keeps its lease,
# and ids go on while the registry is down. (A start takes a new one:
# "round trips" and "the registry unreachable" above.)
echo; echo "== a crash restart while the registry is down"
before=$(leases_of "$WORK/o"); node_before=$(node_of o)
pgctl reg stop -m fast
# after_crash PID: PID killed with SIGKILL; once the server has
# reinitialized, the node value of its first id.
after_crash() {
  local reinit got="" i
  reinit=$(log_count o "all server processes terminated; reinitializing")
  as_postgres kill -9 "$1"
  for i in $(seq 200); do
    [ "$(log_count o "all server processes terminated; reinitializing")" -gt "$reinit" ] &&
      got=$(q o -c "SELECT locality_uuid_node(locality_uuid())" 2>/dev/null) && break
    sleep 0.3
  done
  echo "$got"
}
first=$(after_crash "$(q o -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'")")
q o -c "SELECT pg_sleep(60)" >/dev/null 2>&1 &
sleeper=""
for _ in $(seq 100); do
  sleeper=$(q o -c "SELECT pid FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(60)'")
  [ -n "$sleeper" ] && break; sleep 0.1
done
second=$(after_crash "$sleeper")
wait || true
kept=$(log_count o "LOG:  locality_uuid: this postmaster keeps its lease across the crash restart \(node value $node_before, ")
pgctl reg start
check "2 crash restarts with the registry down (a checkpointer, then a backend killed): ids at once with this postmaster's lease (node $node_before, then $first and $second; $(( $(leases_of "$WORK/o") - before )) lease; said $kept times)" \
  '[ "$first" = "$node_before" ] && [ "$second" = "$node_before" ] && [ "$(leases_of "$WORK/o")" = "$before" ] && [ "$kept" = 2 ]'
# ... unless the data directory went back under the running postmaster
# (a volume swapped or rolled back, then a crash): the state file found
# lower than before the crash, the kept lease would go on over older
# marks; a new one is taken. (The file put back by hand here, after its
# marks rose: the clock's next seconds reserve Hot Guid seconds.)
cp -a "$WORK/o/locality_uuid.state" "$WORK/state.before"
for _ in $(seq 10); do
  cmp -s "$WORK/o/locality_uuid.state" "$WORK/state.before" || break
  tick; tick; tick
  q o -c "SELECT hot_guid(1)" >/dev/null
done
risen=no; cmp -s "$WORK/o/locality_uuid.state" "$WORK/state.before" || risen=yes
cp -a "$WORK/state.before" "$WORK/o/locality_uuid.state"
# (Its lease record gone back too, to before any lease; the registry down
# while the forgotten lease is recorded again, then back.)
rm -f "$WORK/o/locality_uuid.lease"
pgctl reg stop -m fast
reinit=$(log_count o "all server processes terminated; reinitializing")
as_postgres kill -9 "$(q o -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'")"
for _ in $(seq 100); do
  [ "$(log_count o "all server processes terminated; reinitializing")" -gt "$reinit" ] && log_has o "is recorded in" && break
  sleep 0.3
done
record=$({ tr '\n' ' ' <"$WORK/o/locality_uuid.lease"; } 2>/dev/null || true)
pgctl reg start
third=""
for _ in $(seq 200); do third=$(q o -c "SELECT locality_uuid_node(locality_uuid())" 2>/dev/null) && break; sleep 0.3; done
check "... the state file put back to before its marks rose ($risen), then a crash restart: a new lease (node $node_before, then $third), said why" \
  '[ "$risen" = yes ] && [ -n "$third" ] && [ "$third" -gt "$node_before" ] &&
   log_has o "LOG:  locality_uuid: this start takes a new lease after the crash restart: \"locality_uuid.state\" holds lower marks than before the crash: the data directory went back"'
check "... the lease record, gone back with it, holds the lease the crash restart left (node $node_before) before the next: $record" \
  'log_has o "LOG:  locality_uuid: the lease this postmaster leaves \(node value $node_before\) is recorded in \"locality_uuid.lease\": the next one goes above it" &&
   [[ $record == "locality_uuid lease 1 lease $node_before "[0-9]*" lu-"*" - $WORK:${PORT[reg]}/postgres end " ]]'
got=$third  # the value o's ids carry, for the fleet commands below

# A lease stands for the life of this start's shared memory: the worker
# stopped and started again (restart_time) takes no second one.
echo; echo "== the lease worker stopped while this start holds its lease"
worker() { q o -c "SELECT pid || ' ' || wait_event_type || ' ' || wait_event FROM pg_stat_activity WHERE backend_type = 'locality_uuid lease'"; }
seen=$(worker)
check "pg_stat_activity shows the worker, waiting as an extension: $seen" '[[ $seen =~ ^[0-9]+\ Extension\ Extension$ ]]'
before=$(leases_of "$WORK/o"); node_before=$(node_of o)
held_lines=$(log_count o "LOG:  locality_uuid: this start holds its lease already")
as_postgres kill -TERM "${seen%% *}"
again=""
for _ in $(seq 100); do
  again=$(worker)
  [ -n "$again" ] && [ "${again%% *}" != "${seen%% *}" ] &&
    [ "$(log_count o "LOG:  locality_uuid: this start holds its lease already")" -gt "$held_lines" ] && break
  sleep 0.2
done
check "... started again (pid ${seen%% *}, then ${again%% *}), said it holds one, took no second: node $node_before, then $(node_of o), $(( $(leases_of "$WORK/o") - before )) lease" \
  '[ -n "$again" ] && [ "${again%% *}" != "${seen%% *}" ] && [ "$(node_of o)" = "$node_before" ] && [ "$(leases_of "$WORK/o")" = "$before" ] &&
   [ "$(log_count o "LOG:  locality_uuid: this start holds its lease already")" -gt "$held_lines" ]'

# --- the registry down for hours ---------------------------------------------------
# The emergency start of doc/fleets.md ("When the registry is down for
# hours"): a value claimed in advance for this host and data directory,
# its node file kept aside; with the registry down, a real start waits;
# the file included and leases turned off, it makes ids with that value
# (never a MAC's); with the registry back and the file out again, a lease
# above every earlier one; the used value retired and the next one
# claimed.
echo; echo "== the registry down for hours: an emergency start on a value claimed in advance"
"$CLI" node claim --registry "$REG user=postgres" --host-identity-file "$WORK/h.id" --data-directory "$WORK/o" \
  --write "$WORK/o.emergency.conf" >/dev/null
spare=$(sed -n 's/^locality_uuid.node_id = //p' "$WORK/o.emergency.conf")
leased_before=$(node_of o)
pgctl reg stop -m fast
pgctl o restart -m fast
err=$(error_once o "could not connect")
check "a real start with the registry down: server-wide ids wait: $err" \
  '[[ $err == "55000: locality_uuid: no lease of a node value yet from the registry at "*": could not connect to the registry"* ]]'
# Leases turned off without that file: a data directory that has leased
# never takes a MAC's value or the host name (a registry leases such values
# to other servers; issue #52): both kinds refused, said at the start. The
# file included and reloaded: ids with the claimed value.
warned=$(log_count o "WARNING:  locality_uuid: this data directory has leased")
echo "locality_uuid.registry = ''" >>"$WORK/o/postgresql.conf"
pgctl o restart -m fast
leased="locality_uuid: this data directory has leased (node value $leased_before from the registry at $WORK:${PORT[reg]}/postgres, recorded in \"locality_uuid.lease\") and locality_uuid.registry is empty"
err=$(error_of o "SELECT locality_uuid()")
hot=$(error_of o "SELECT hot_guid(7)")
check "... leases off without the claimed file: Locality UUIDs refused ($err)" \
  '[[ $err == "55000: $leased: the node value comes from "* ]]'
check "... and Hot Guids ($hot), each said at the start" \
  '[ "$hot" = "55000: $leased: the Hot Guid machine name comes from the host name" ] &&
   [ "$(log_count o "WARNING:  locality_uuid: this data directory has leased")" = $((warned + 2)) ]'
out=$(q o -c "SELECT hot_guid(7)" 2>&1 || true)
check "... the refusal's DETAIL names what a registry may lease, its HINT the claimed file" \
  'grep -qxF "DETAIL:  Hot Guids made with the server-wide counters need locality_uuid.machine_name from a configuration file of this host outside the data directory, which no copy of the data directory carries, and never one a registry may lease to another server." <<<"$out" &&
   grep -qxF "HINT:  Include the node file claimed for this host in advance (doc/fleets.md, \"When the registry is down for hours\") and reload, or set locality_uuid.registry again and restart." <<<"$out"'
printf "include '%s'\n" "$WORK/o.emergency.conf" >>"$WORK/o/postgresql.conf"
pgctl o reload
got=""
for _ in $(seq 50); do got=$(node_of o 2>/dev/null) && break; sleep 0.2; done
src=$(q o -c "SELECT node_source FROM locality_uuid_binding()")
check "... the node file claimed in advance included, a reload: ids with its value (node $got, claimed $spare; $src)" \
  '[ -n "$spare" ] && [ "$got" = "$spare" ] && [[ $src == *"$WORK/o.emergency.conf"* ]] &&
   [ "$(q o -c "SELECT quote_literal(hot_guid_machine_name()) FROM (SELECT hot_guid(7)) g")" = "$(sed -n "s/^locality_uuid.machine_name = //p" "$WORK/o.emergency.conf")" ]'
pgctl reg start
sed -i '$d' "$WORK/o/postgresql.conf"; sed -i '$d' "$WORK/o/postgresql.conf"
pgctl o restart -m fast; wait_lease o
got=$(node_of o)
rc=0; audit=$("$CLI" fleet audit --registry "$REG user=postgres" --targets <(echo "host=$WORK port=${PORT[o]} dbname=postgres user=postgres") 2>&1) || rc=$?
check "... the registry back, the file out: a lease again (node $got, above $leased_before), the audit clean (exit $rc)" \
  '[ "$got" -gt "$leased_before" ] && [ "$got" -gt "$spare" ] && [ $rc = 0 ]'
shown_if_failed "$audit"
q reg -c "UPDATE locality_uuid_registry_private.nodes SET retired_at = now() WHERE node_id = $spare" >/dev/null
"$CLI" node claim --registry "$REG user=postgres" --host-identity-file "$WORK/h.id" --data-directory "$WORK/o" \
  --write "$WORK/o.emergency.conf" >/dev/null
next=$(sed -n 's/^locality_uuid.node_id = //p' "$WORK/o.emergency.conf")
check "... the used value retired, the next emergency's claimed: node $next" '[ -n "$next" ] && [ "$next" -gt "$got" ]'

# --- the registry gone back ---------------------------------------------------------
# A registry restored from a dump taken before 40 leases elsewhere and
# this server's last two hands out those values again: the data
# directory's lease record (locality_uuid.lease) holds the highest, and the
# worker refuses every value at or below it, at once (the refused
# attempts' own leases carry the registry past it: a gap of up to 256
# heals by itself). A record that cannot be read
# stops leases until it is put back or removed.
echo; echo "== the registry restored from a dump taken before 42 leases, this server's last two among them"
# The held clock to the real time now, from here on: fleet scan compares
# ids' times with a lease's start, which the server takes from the real
# clock (the shim holds only the clock ids read).
hold_clock_now() { CLOCK_MS=$(date +%s%3N); set_clock "$WORK/clock" "$CLOCK_MS"; }
as_postgres "$BIN/pg_dump" -h "$WORK" -p "${PORT[reg]}" -U postgres -d postgres -n locality_uuid_registry -n locality_uuid_registry_private -Fc \
  -f "$WORK/registry.dump"
dumped=$(drawn)
# 40 leases of servers elsewhere, then o's two starts: the dump lacks 42.
q reg -c "SELECT l.node_id FROM generate_series(1, 40) g,
            LATERAL locality_uuid_registry.lease(md5('elsewhere'), 'elsewhere', '/since-the-dump/' || g, '1', now()) l" >/dev/null
pgctl o restart -m fast; wait_lease o
pgctl o restart -m fast; wait_lease o
held=$(node_of o)
hold_clock_now
q o -c "CREATE TABLE before_restore (id uuid DEFAULT locality_uuid())" -c "INSERT INTO before_restore SELECT FROM generate_series(1, 100)" >/dev/null
record=$({ tr '\n' ' ' <"$WORK/o/locality_uuid.lease"; } 2>/dev/null || true)
identity=$(q reg -c "SELECT obj_description('locality_uuid_registry_private.node_values'::regclass, 'pg_class')")
check "the lease record holds this start's lease, with the registry's identity ($identity): $record" \
  '[[ $identity =~ ^locality_uuid\ registry\ identity\ [0-9a-f-]{36}$ ]] &&
   [[ $record == "locality_uuid lease 1 lease $held "[0-9]*" lu-"*" ${identity##* } $WORK:${PORT[reg]}/postgres "*"end " ]]'
q reg -c "DROP SCHEMA locality_uuid_registry, locality_uuid_registry_private CASCADE" 2>/dev/null
as_postgres "$BIN/pg_restore" -h "$WORK" -p "${PORT[reg]}" -U postgres -d postgres "$WORK/registry.dump"
restored=$(drawn)
echo "host=$WORK port=${PORT[o]} dbname=postgres user=postgres" >"$WORK/targets"
rc=0; audit=$("$CLI" fleet audit --registry "$REG user=postgres" --targets "$WORK/targets" 2>&1) || rc=$?
check "fleet audit names the registry that went back, and the repair (exit $rc)" \
  '[ $rc = 1 ] && grep -q "node value $held was leased by this server (lease from the registry at $WORK:${PORT[reg]}/postgres, [^)]*), but the registry has no row for it: the registry went back, and hands out again values servers hold (unless this server leases from another registry: then audit it against that one)\$" <<<"$audit" &&
   grep -q "fix: as the registry.s owner: locality-uuid fleet registry --registry \"\$REGISTRY\" --past N, N above every value the fleet ever leased: at least $held (the highest of the audited servers)" <<<"$audit"'
shown_if_failed "$audit"
refusals=$(log_count o "could not lease a node value from the registry at .*: refusing node value")
warned=$(log_count o "WARNING:  locality_uuid: could not lease .*refusing node value")
sleep 1  # (the restart a second after before_restore's ids, in real time)
pgctl o restart -m fast; wait_lease o
healed=$(node_of o)
refused=$(grep -Eo "could not lease a node value from the registry at .*: refusing node value [0-9]+: this data directory leased node value [0-9]+ from this registry on [^,]*, and a registry's values only grow: the registry went back \(restored, recovered to a point in time, or failed over without its last leases\); as its owner, move it past every value the fleet holds: locality-uuid fleet registry --past N, N at least [0-9]+ \(doc/fleets.md\)" "$WORK/o.log" |
  tail -n +$((refusals + 1)) | sed -E 's/.*refusing node value ([0-9]+): this data directory leased node value ([0-9]+) .*N at least ([0-9]+) .*$/\1<=\2=\3/' | paste -sd' ' || true)
expected=$(seq $((dumped + 1)) "$held" | sed "s/\$/<=$held=$held/" | paste -sd' ')
check "the registry back at node value $restored (dumped at $dumped; this server held $held): the $((held - dumped)) values refused at once, then node $healed, above it" \
  '[ "$restored" = "$dumped" ] && [ "$held" = $((dumped + 42)) ] && [ "$refused" = "$expected" ] && [ "$healed" = $((held + 1)) ]'
[ "$refused" = "$expected" ] || echo "    | refused: $refused"
warned=$(( $(log_count o "WARNING:  locality_uuid: could not lease .*refusing node value") - warned ))
check "... the first refusal a WARNING, the others LOG lines ($warned WARNING)" '[ "$warned" = 1 ]'
check "... the record holds the new lease" 'grep -q "^lease $healed .* $WORK:${PORT[reg]}/postgres\$" "$WORK/o/locality_uuid.lease"'
rc=0; scan=$("$CLI" fleet scan --dsn "host=$WORK port=${PORT[o]} dbname=postgres user=postgres" --table before_restore \
  --column id --registry "$REG user=postgres" 2>&1) || rc=$?
check "fleet scan of the 100 ids made with node $held before the restore: the refused lease that took the value again named, the ids flagged as older (exit $rc)" \
  '[ $rc = 1 ] && grep -Eq "^ +$held +100 .* lease: .* $WORK/o, started [0-9-]+T[0-9:]+Z, system identifier [0-9]+; ids from before that start: an earlier holder.s \(the registry went back\? perhaps this data directory.s own, before\), or given an earlier time\$" <<<"$scan"'
shown_if_failed "$scan"
# The repair: the registry moved past every value the fleet holds, by its
# owner (never back; a role that may not set its sequence is refused).
past=$("$CLI" fleet registry --registry "$REG user=postgres" --past $((healed + 10)) 2>&1) || true
again=$("$CLI" fleet registry --registry "$REG user=postgres" --past $((healed + 5)) 2>&1) || true
past=${past%%$'\n'*}; again=${again%%$'\n'*}
rc=0; other=$("$CLI" fleet registry --registry "$REG user=leaser" --registry-owner postgres --past 99999 2>&1) || rc=$?
check "fleet registry --past $((healed + 10)): $past; then --past $((healed + 5)): $again; as the leaser: exit $rc, ${other%%$'\n'*}" \
  '[ "$past" = "node values moved past $((healed + 10)) (drawn up to $healed before): the next lease or claim takes a higher one" ] &&
   [ "$again" = "node values already past $((healed + 5)) (drawn up to $((healed + 10))): unchanged" ] && [ $rc = 1 ] &&
   [ "$(drawn)" = $((healed + 10)) ]'
# The same dump restored at another address (another database), and the
# server pointed there: the same registry by its identity, gone back.
q reg -c "CREATE DATABASE regcopy" >/dev/null
as_postgres "$BIN/pg_restore" -h "$WORK" -p "${PORT[reg]}" -U postgres -d regcopy "$WORK/registry.dump"
echo "locality_uuid.registry = 'host=$WORK port=${PORT[reg]} dbname=regcopy user=leaser'" >>"$WORK/o/postgresql.conf"
pgctl o restart -m fast; wait_lease o
elsewhere=$(node_of o)
refused=$(grep -Eo "registry at [^ ]*/regcopy: refusing node value [0-9]+: this data directory leased node value [0-9]+ from this registry \(by its identity, at another address\)" "$WORK/o.log" |
  sed -E 's/.*refusing node value ([0-9]+): this data directory leased node value ([0-9]+) .*/\1<=\2/' | paste -sd' ' || true)
check "the dump restored at another address, the server pointed there: refused by the registry's identity ($refused), then node $elsewhere" \
  '[ "$refused" = "$(seq $((dumped + 1)) "$healed" | sed "s/\$/<=$healed/" | paste -sd" ")" ] && [ "$elsewhere" = $((healed + 1)) ]'
sed -i '$d' "$WORK/o/postgresql.conf"
pgctl o restart -m fast; wait_lease o
back=$(node_of o)
check "... and back at the first address: node $back, past the repair's $((healed + 10))" '[ "$back" = $((healed + 11)) ]'
# An identity comment edited into something that is not one: said in
# the log, and the registry known by its address alone meanwhile.
q reg -c "COMMENT ON SEQUENCE locality_uuid_registry_private.node_values IS 'locality_uuid registry identity cut-short'" >/dev/null
pgctl o restart -m fast; wait_lease o
back=$(node_of o)
check "a malformed identity comment: logged, and a lease by the address (node $back)" \
  'log_has o "LOG:  locality_uuid: the registry.s identity is malformed: \"locality_uuid registry identity cut-short\"" && [ -n "$back" ]'
q reg -c "COMMENT ON SEQUENCE locality_uuid_registry_private.node_values IS '$identity'" >/dev/null
echo "== a lease record that cannot be read"
echo "locality_uuid lease 1" >"$WORK/o/locality_uuid.lease"
pgctl o restart -m fast
err=$(error_once o "cannot be read")
check "ids refused while the record cannot be read: $err" \
  '[ "$err" = "55000: locality_uuid: no lease of a node value yet from the registry at $WORK:${PORT[reg]}/postgres: the record of this data directory'"'"'s last lease (\"locality_uuid.lease\") cannot be read: it is not a lease record; without it a registry that went back cannot be told: put it back, or remove it if the registry is known not to have gone back" ]'
# Put back as another registry's record (a higher value from another
# address): that one is not this registry's, and is kept beside it.
printf 'locality_uuid lease 1\nlease 268435455 1767225600 lu-other - other.example:5432/registry\nend\n' >"$WORK/o/locality_uuid.lease"
q o -c "SELECT pg_reload_conf()" >/dev/null
wait_lease o
got=$(node_of o)
record=$(tr '\n' ' ' <"$WORK/o/locality_uuid.lease")
check "... put back as another registry's, and a reload: a lease at once (node $got, the next after $back), recorded first, the other kept: $record" \
  '[ "$got" = $((back + 1)) ] &&
   [[ $record == "locality_uuid lease 1 lease $got "[0-9]*" lu-"*" $WORK:${PORT[reg]}/postgres lease 268435455 1767225600 lu-other - other.example:5432/registry end " ]]'

# A registry that went back further than 256 values (the record here says
# so: a lease 300 above what the registry hands out next). A pass at once
# would spend all 300 values, so the worker refuses one at a time with its
# backoff (1 s, doubled, up to half again at random) for its owner's repair,
# which the next attempt after a reload takes at once.
echo "== a registry gone back by more than 256 values"
far=$((got + 300))
sed -i "s/^lease $got /lease $far /" "$WORK/o/locality_uuid.lease"
pgctl o restart -m fast
refused_far() { [ "$(log_count o "refusing node value [0-9]+: this data directory leased node value $far ")" -ge 1 ]; }
poll 60 refused_far || true
drawn_before=$(drawn)
sleep 8
drawn_after=$(drawn)
err=$(error_of o "SELECT locality_uuid()")
check "no pass at once: in the 8 s after the first refusal the worker spent $((drawn_after - drawn_before)) more value(s), not the 300 (a pass at once spent about 100), and ids wait: ${err:0:100}" \
  'refused_far && [ $((drawn_after - drawn_before)) -le 6 ] && [[ $err == 55000:* ]]'
"$CLI" fleet registry --registry "$REG user=postgres" --past "$far" >/dev/null
q o -c "SELECT pg_reload_conf()" >/dev/null
wait_lease o
healed=$(node_of o)
check "... and after fleet registry --past $far and a reload: node $healed" '[ "$healed" = $((far + 1)) ]'

# --- the registry recovered to a point in time --------------------------------------
# The registry's WAL archived, a base backup and a restore point; then more
# leases than the 32 values a sequence logs ahead of its use (a second
# server's start, 40 starts of servers elsewhere, and o's); the registry
# lost (stopped at once) and recovered to the restore point at its own
# address. It would hand out those values again, to a new server first of
# all (which has no record to refuse them by): repaired before any start,
# a new server, o and the second server lease above every value handed out
# before the loss, and no two of them make a common id of any kind at the
# same instants.
echo; echo "== the registry recovered to a point in time before 42 of its leases, then a new server"
mkdir -p "$WORK/archive/reg"
chown postgres "$WORK/archive/reg"
cat >>"$WORK/reg/postgresql.conf" <<CONF
archive_mode = on
archive_command = 'test ! -f $WORK/archive/reg/%f && cp %p $WORK/archive/reg/%f'
CONF
pgctl reg restart -m fast
base_backup reg regpitr
restore_point reg before_leases
at_restore_point=$(drawn)
lnode rp
pgctl rp start
q rp -c "CREATE EXTENSION locality_uuid" >/dev/null
wait_lease rp
q reg -c "SELECT l.node_id FROM generate_series(1, 40) g,
            LATERAL locality_uuid_registry.lease(md5('elsewhere'), 'elsewhere', '/elsewhere/' || g, '1', now()) l" >/dev/null
pgctl o restart -m fast; wait_lease o
o_held=$(node_of o); rp_held=$(node_of rp)
tick  # (o's restart counted its current second's clock Hot Guids as full)
pitr_clock=$CLOCK_MS
saved_ids=$IDS; IDS=5000
side o pitr_o_before
side rp pitr_rp_before
pgctl reg stop -m immediate
mv "$WORK/reg" "$WORK/reg.lost"
mv "$WORK/regpitr" "$WORK/reg"
echo "port = ${PORT[reg]}" >>"$WORK/reg/postgresql.conf"
recover_archived reg reg before_leases
recovered=$(drawn)
check "the registry recovered to the restore point at its address (values drawn: $at_restore_point there, $recovered now; up to $o_held before the loss), with its identity" \
  '[ "$(q reg -c "SELECT pg_is_in_recovery()")" = f ] && [ "$recovered" -lt "$o_held" ] &&
   [ "$(q reg -c "SELECT obj_description('"'"'locality_uuid_registry_private.node_values'"'"'::regclass, '"'"'pg_class'"'"')")" = "$identity" ]'
# The repair before any start: the audit of the running servers names the
# registry that went back and the value to move past, the owner moves it,
# and a new server started first leases above every value held before the
# loss (without the repair it would lease one of those: issue #52).
echo "host=$WORK port=${PORT[o]} dbname=postgres user=postgres" >"$WORK/targets"
echo "host=$WORK port=${PORT[rp]} dbname=postgres user=postgres" >>"$WORK/targets"
rc=0; audit=$("$CLI" fleet audit --registry "$REG user=postgres" --targets "$WORK/targets" 2>&1) || rc=$?
fix=$(sed -En 's/.*--past N, N above every value the fleet ever leased: at least ([0-9]+) \(the highest of the audited servers\).*/\1/p' <<<"$audit" | head -n 1)
check "fleet audit of o and the second server names the registry that went back (exit $rc), the fix at least $fix" \
  '[ $rc = 1 ] && [ "$fix" = "$o_held" ] &&
   grep -q "node value $o_held was leased by this server .*the registry went back" <<<"$audit" &&
   grep -q "node value $rp_held was leased by this server .*the registry went back" <<<"$audit"'
shown_if_failed "$audit"
past=$("$CLI" fleet registry --registry "$REG user=postgres" --past "$fix" 2>&1 | head -n 1) || true
check "fleet registry --past $fix: $past" \
  '[ "$past" = "node values moved past $fix (drawn up to $recovered before): the next lease or claim takes a higher one" ]'
refusals=$(log_count o "refusing node value")
lnode rn
pgctl rn start
q rn -c "CREATE EXTENSION locality_uuid" >/dev/null
wait_lease rn
rn_node=$(node_of rn)
pgctl o restart -m fast; wait_lease o
o_after=$(node_of o)
passed=$(( $(log_count o "refusing node value") - refusals ))
pgctl rp restart -m fast; wait_lease rp
rp_after=$(node_of rp)
check "a new server started first: node $rn_node; then o node $o_after, the second server node $rp_after: each above $o_held, the highest before the loss, none refused ($passed)" \
  '[ "$rn_node" = $((o_held + 1)) ] && [ "$o_after" -gt "$rn_node" ] && [ "$rp_after" -gt "$o_after" ] && [ "$passed" = 0 ]'
# The new server at the instants of the others' ids before the loss; o and
# the second server a second later (their restarts counted the second they
# started in as full).
set_clock "$WORK/clock" "$pitr_clock"
side rn pitr_rn_after
tick
side o pitr_o_after
side rp pitr_rp_after
repeats "after the registry's recovery, the new server against o before it, at its instants" pitr_o_before pitr_rn_after
repeats "... the new server against the second server before it, at its instants" pitr_rp_before pitr_rn_after
repeats "... o against its own ids before it" pitr_o_before pitr_o_after
repeats "... the second server against o before it" pitr_o_before pitr_rp_after
IDS=$saved_ids
pgctl rp stop -m fast
pgctl rn stop -m fast
got=$o_after

# --- what the fleet commands show ---------------------------------------------------
echo; echo "== fleet audit and fleet scan"
hold_clock_now  # (ids after the start that leased their value, in real time)
q o -c "CREATE TABLE t (id uuid DEFAULT locality_uuid())" -c "INSERT INTO t SELECT FROM generate_series(1, 1000)" >/dev/null
echo "host=$WORK port=${PORT[o]} dbname=postgres user=postgres" >"$WORK/targets"
failures_seen=$failures
rc=0; audit=$("$CLI" fleet audit --registry "$REG user=postgres" --targets "$WORK/targets" 2>&1) || rc=$?
budget=$(q reg -c "SELECT count(*) || ' rows (' || count(*) FILTER (WHERE how = 'leased') || ' leases), node values drawn ' || (SELECT last_value FROM locality_uuid_registry_private.node_values) || ' of 268435455, machine bytes used ' || count(*) || ' of 16777216' FROM locality_uuid_registry_private.nodes")
check "fleet audit: no problem (exit $rc), the server's values from its lease, and the registry's budget: $budget" \
  '[ $rc = 0 ] && grep -Eq " $got  [0-9a-f]{6}  primary  lease from the registry at $WORK:${PORT[reg]}/postgres, [^;]+; lease from the registry at " <<<"$audit" && grep -qx "registry: $budget" <<<"$audit"'
shown_if_failed "$audit"
scan=$("$CLI" fleet scan --dsn "host=$WORK port=${PORT[o]} dbname=postgres user=postgres" --table t --column id \
  --registry "$REG user=postgres" 2>&1) || true
sysid=$(as_postgres "$BIN/pg_controldata" -D "$WORK/o" | sed -n 's/^Database system identifier: *//p')
check "fleet scan: the table's 1,000 ids and the start that leased their value" \
  'grep -Eq "^ +$got +1000 .* lease: .* $WORK/o, started [0-9-]+T[0-9:]+Z, system identifier $sysid\$" <<<"$scan"'
shown_if_failed "$scan"
# The budget as monitoring reads it (--json): what is left of each space.
json=$("$CLI" fleet audit --registry "$REG user=postgres" --targets "$WORK/targets" --json) || true
left=$(python3 -c 'import json,sys; b=json.loads(sys.argv[1])["budget"]; print(b["node_values_left"], b["machine_bytes_left"], b["rows"], b["leases"])' "$json" 2>&1) || true
want=$(q reg -c "SELECT (268435455 - (SELECT last_value FROM locality_uuid_registry_private.node_values)) || ' ' || (16777216 - count(*)) || ' ' || count(*) || ' ' || count(*) FILTER (WHERE how = 'leased') FROM locality_uuid_registry_private.nodes")
check "fleet audit --json: budget node_values_left, machine_bytes_left, rows, leases = $left" '[ "$left" = "$want" ]'
# A value leased to a cluster that no longer runs there: a new cluster in
# the same data directory on the same host, given that value by hand
# without leases (a rebuild that copied the old settings).
pgctl o stop -m fast
mv "$WORK/o" "$WORK/o.leasing"
init_node o "locality_uuid.host_identity_file = '$WORK/h.id'" "locality_uuid.node_id = $got"
PORT[o]=$(sed -n 's/^port = //p' "$WORK/o/postgresql.conf" | tail -n 1)
pgctl o start
q o -c "CREATE EXTENSION locality_uuid" >/dev/null
rc=0; json=$("$CLI" fleet audit --registry "$REG user=postgres" --targets <(echo "host=$WORK port=${PORT[o]} dbname=postgres user=postgres") --json) || rc=$?
kinds=$(python3 -c 'import json,sys; print(" ".join(sorted(p["kind"] for p in json.loads(sys.argv[1])["problems"])))' "$json" 2>&1) || true
check "a new cluster given a value leased to another cluster there: lease_elsewhere (exit $rc: $kinds)" \
  '[ $rc = 1 ] && [[ " $kinds " == *" lease_elsewhere "* ]]'
pgctl o stop -m fast
rm -rf "$WORK/o" && mv "$WORK/o.leasing" "$WORK/o"
PORT[o]=$(sed -n 's/^port = //p' "$WORK/o/postgresql.conf" | tail -n 1)
pgctl o start
wait_lease o

# --- a registry with two hosts, the first silent ------------------------------------
# A host that accepts connections and never answers (a registry frozen, a
# network that drops replies) first in the list, the registry second:
# each host has a deadline of its own (connect_timeout), so the second is
# reached.
echo; echo "== a registry string with two hosts, the first silent"
mkdir -p "$WORK/silent" && chown postgres "$WORK/silent"
silent_port=$(free_port)
python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(16)
held = []
while True:
    c, _ = s.accept(); held.append(c)   # accepted, never answered
' "$WORK/silent/.s.PGSQL.$silent_port" &
silent_pid=$!
for _ in $(seq 50); do [ -S "$WORK/silent/.s.PGSQL.$silent_port" ] && break; sleep 0.1; done
chmod 777 "$WORK/silent/.s.PGSQL.$silent_port"
echo "locality_uuid.registry = 'host=$WORK/silent,$WORK port=$silent_port,${PORT[reg]} dbname=postgres user=leaser connect_timeout=2'" \
  >>"$WORK/o/postgresql.conf"
before=$(leases_of "$WORK/o")
pgctl o restart -m fast
got=""
for _ in $(seq 120); do got=$(q o -c "SELECT locality_uuid_node(locality_uuid())" 2>/dev/null) && break; sleep 0.25; done
check "leased from the second host (node $got, $(( $(leases_of "$WORK/o") - before )) lease)" \
  '[ -n "$got" ] && [ $(( $(leases_of "$WORK/o") - before )) = 1 ]'
kill "$silent_pid" 2>/dev/null || true
sed -i '$d' "$WORK/o/postgresql.conf"

# A read-only server first in the list (a registry standby after the
# registry's failover, here a server with default_transaction_read_only):
# a lease is a write, so libpq passes it over (target_session_attrs =
# read-write unless the string says otherwise).
echo; echo "== a registry string whose first host is read-only"
PORT[ro]=$(init_server "$WORK/ro" "$WORK" </dev/null)
sed -i "/^shared_preload_libraries/d" "$WORK/ro/postgresql.conf"
pgctl ro start
# (The servers' login exists there too: the connection succeeds, and only
# the session's read-only state tells it from the registry.)
q ro -c "CREATE ROLE leaser LOGIN" -c "ALTER SYSTEM SET default_transaction_read_only = on" -c "SELECT pg_reload_conf()" >/dev/null
echo "locality_uuid.registry = 'host=$WORK,$WORK port=${PORT[ro]},${PORT[reg]} dbname=postgres user=leaser'" >>"$WORK/o/postgresql.conf"
before=$(leases_of "$WORK/o")
pgctl o restart -m fast
got=""
for _ in $(seq 120); do got=$(q o -c "SELECT locality_uuid_node(locality_uuid())" 2>/dev/null) && break; sleep 0.25; done
check "leased from the second host, the read-only one passed over (node $got, $(( $(leases_of "$WORK/o") - before )) lease)" \
  '[ -n "$got" ] && [ $(( $(leases_of "$WORK/o") - before )) = 1 ]'
pgctl ro stop -m fast
sed -i '$d' "$WORK/o/postgresql.conf"

# A string libpq cannot parse: its reason may quote a password, so the
# error every role sees does not carry it; the server log does.
echo; echo "== a registry string that cannot be parsed"
q o -c "CREATE ROLE app LOGIN" >/dev/null
echo "locality_uuid.registry = 'postgresql://leaser:pa%zzsecret@$WORK/postgres'" >>"$WORK/o/postgresql.conf"
pgctl o restart -m fast
out=""
for _ in $(seq 50); do
  out=$(q o -U app -v VERBOSITY=verbose -c "SELECT locality_uuid()" 2>&1 | sed -n 's/^ERROR: *//p' | head -n 1 || true)
  [[ $out == *"cannot be parsed"* ]] && break; sleep 0.2
done
check "an ordinary role's error says it cannot be parsed, without the string's secret: $out" \
  '[[ $out == *"locality_uuid.registry cannot be parsed: libpq'"'"'s reason is in the server log"* ]] && [[ $out != *zzsecret* ]]'
check "... the server log has libpq's reason, once" '[ "$(log_count o "locality_uuid: locality_uuid.registry cannot be parsed: .*zzsecret")" = 1 ]'
# The setting itself is the superusers' (and pg_read_all_settings'): it
# may hold a password.
rc=0; out=$(q o -U app -v VERBOSITY=verbose -c "SHOW locality_uuid.registry" 2>&1) || rc=$?
listed=$(q o -U app -c "SELECT count(*) FROM pg_settings WHERE name LIKE 'locality_uuid.registry%'")
check "... and an ordinary role can neither SHOW it (exit $rc, 42501) nor see it in pg_settings ($listed rows)" \
  '[ $rc != 0 ] && grep -q "ERROR:  42501" <<<"$out" && [ "$listed" = 0 ]'
sed -i '$d' "$WORK/o/postgresql.conf"
# ALTER SYSTEM refuses such a string (a restart would leave the server
# without ids), and takes one libpq can parse.
rc=0; out=$(q o -v VERBOSITY=verbose -c "ALTER SYSTEM SET locality_uuid.registry = 'postgresql://leaser:pa%zzsecret@$WORK/postgres'" 2>&1) || rc=$?
ok_rc=0; q o -c "ALTER SYSTEM SET locality_uuid.registry = 'host=$WORK port=${PORT[reg]} dbname=postgres user=leaser'" -c "ALTER SYSTEM RESET locality_uuid.registry" >/dev/null 2>&1 || ok_rc=$?
check "ALTER SYSTEM refuses a string libpq cannot parse (exit $rc; one it can parse: exit $ok_rc), neither the string nor libpq's reason shown: $(grep -E "^(ERROR|DETAIL)" <<<"$out" | paste -sd' ')" \
  '[ $rc != 0 ] && [ $ok_rc = 0 ] && grep -qx "ERROR:  22023: invalid value for parameter \"locality_uuid.registry\"" <<<"$out" &&
   grep -qx "DETAIL:  libpq cannot parse it as a connection string (its reason is not shown: the string may hold a password)." <<<"$out" &&
   ! grep -q zzsecret <<<"$out" &&
   ! grep -q "^locality_uuid.registry" "$WORK/o/postgresql.auto.conf"'

# A lease committed on the registry but not replicated: the registry waits
# for a synchronous standby that never comes, the wait is cancelled, and
# PostgreSQL answers with a WARNING and the row. A failover could lose that
# row and hand the value out again: the worker must not use it.
# warned_lease_refused: o's id error once the worker refused a lease the
# registry warned about (in $out; at most 10 s).
warned_lease_refused() {
  for _ in $(seq 50); do
    out=$(error_of o "SELECT locality_uuid()")
    [[ $out == *"warned while it leased"* ]] && break; sleep 0.2
  done
}
echo; echo "== a lease whose synchronous replication was cancelled"
q reg -c "ALTER SYSTEM SET synchronous_standby_names = 'ghost'" -c "SELECT pg_reload_conf()" >/dev/null
# A claim (node claim pins synchronous_commit on for its commit, and a
# WARNING fails it): nothing written, exit 1. Its session's own default is
# off here (PGOPTIONS, as a role's or a pooler's setting would be): only
# the pin makes its commit wait for the standby. First, while no lease
# waits: a lease waiting for the standby holds the lock claims take, and a
# claim behind it would end by its statement timeout instead.
( rc=0; PGOPTIONS="-c synchronous_commit=off" "$CLI" node claim --registry "$REG user=postgres" --host-id sync-host --data-directory /sync \
    --write "$WORK/sync.conf" >"$WORK/sync_claim.out" 2>&1 || rc=$?; echo $rc >"$WORK/sync_claim.rc" ) &
claimer=$!
waiting=""
for _ in $(seq 100); do
  waiting=$(q reg -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'locality-uuid' AND wait_event = 'SyncRep'")
  [ -n "$waiting" ] && break; sleep 0.2
done
q reg -c "SELECT pg_cancel_backend(${waiting:-0})" >/dev/null
wait $claimer || true
check "a claim the registry warned about is not used (backend $waiting cancelled, exit $(cat "$WORK/sync_claim.rc")): $(cat "$WORK/sync_claim.out")" \
  '[ -n "$waiting" ] && [ "$(cat "$WORK/sync_claim.rc")" = 1 ] && [ ! -e "$WORK/sync.conf" ] &&
   grep -q "the registry warned while it committed, so nothing it returned is used: canceling wait for synchronous replication" "$WORK/sync_claim.out"'
# A lease the same way: not used, the next one is.
before=$(leases_of "$WORK/o")
pgctl o restart -m fast
waiting=""
for _ in $(seq 100); do
  waiting=$(q reg -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'locality_uuid lease' AND wait_event = 'SyncRep'")
  [ -n "$waiting" ] && break; sleep 0.2
done
q reg -c "SELECT pg_cancel_backend(${waiting:-0})" >/dev/null
wasted=""
for _ in $(seq 50); do
  wasted=$(q reg -c "SELECT node_id FROM locality_uuid_registry_private.nodes WHERE how = 'leased' AND data_directory = '$WORK/o' ORDER BY node_id DESC LIMIT 1 OFFSET 0" )
  out=$(error_of o "SELECT locality_uuid()")
  [[ $out == *"warned while it leased"* ]] && break; sleep 0.2
done
check "the lease the registry warned about is not used (backend $waiting cancelled): $out" \
  '[ -n "$waiting" ] && [[ $out == *"the registry warned while it leased, so the lease is not used: canceling wait for synchronous replication"* ]]'
q reg -c "ALTER SYSTEM RESET synchronous_standby_names" -c "SELECT pg_reload_conf()" >/dev/null
got=""
for _ in $(seq 200); do got=$(q o -c "SELECT locality_uuid_node(locality_uuid())" 2>/dev/null) && break; sleep 0.2; done
check "... the next attempt's lease is (node $got, not the wasted $wasted; $(( $(leases_of "$WORK/o") - before )) leases for this start)" \
  '[ -n "$got" ] && [ "$got" != "$wasted" ] && [ $(( $(leases_of "$WORK/o") - before )) = 2 ]'

echo; echo "== a lease behind a transaction pooler that resets sessions"
# Behind a transaction pooler that resets every server connection after
# each transaction (PgBouncer, pool_mode = transaction, DISCARD ALL), with
# the leaser's own default synchronous_commit = off: the worker's session
# pins are gone by its lease statement, which pins the setting again for
# its own transaction, so the lease still waits for the synchronous
# standby (review item 9; before, it committed at once, unreplicated).
if [ "${LOCALITY_CHROOT:-0}" = 1 ] && ! [ -x /usr/sbin/pgbouncer ]; then
  echo "(the pooler case runs on this machine's major: scripts/test.sh installs PgBouncer there)"
else
  [ -x /usr/sbin/pgbouncer ] || ensure_packages_without_services pgbouncer >/dev/null ||
    { echo "FAIL: could not install pgbouncer"; exit 1; }
  mkdir -p "$WORK/pgb"
  pgb_port=$(free_port)
  cat >"$WORK/pgb/pgbouncer.ini" <<INI
[databases]
postgres = host=$WORK port=${PORT[reg]} dbname=postgres
[pgbouncer]
listen_addr =
unix_socket_dir = $WORK/pgb
listen_port = $pgb_port
auth_type = trust
auth_file = $WORK/pgb/users.txt
pool_mode = transaction
server_reset_query = DISCARD ALL
server_reset_query_always = 1
logfile = $WORK/pgb/pgbouncer.log
pidfile = $WORK/pgb/pgbouncer.pid
INI
  printf '"leaser" ""\n"postgres" ""\n' >"$WORK/pgb/users.txt"
  chown -R postgres "$WORK/pgb"
  as_postgres /usr/sbin/pgbouncer -d "$WORK/pgb/pgbouncer.ini"
  for _ in $(seq 50); do [ -S "$WORK/pgb/.s.PGSQL.$pgb_port" ] && break; sleep 0.1; done
  q reg -c "ALTER ROLE leaser SET synchronous_commit = off" \
    -c "ALTER SYSTEM SET synchronous_standby_names = 'ghost'" -c "SELECT pg_reload_conf()" >/dev/null
  pooled=$(as_postgres "$BIN/psql" -XAt -h "$WORK/pgb" -p "$pgb_port" -U leaser -d postgres \
    -c "SELECT pg_catalog.set_config('synchronous_commit', 'on', false)" -c "SHOW synchronous_commit" 2>&1 | tail -n 1) || true
  echo "locality_uuid.registry = 'host=$WORK/pgb port=$pgb_port dbname=postgres user=leaser'" >>"$WORK/o/postgresql.conf"
  pgctl o restart -m fast
  waiting=""
  for _ in $(seq 100); do
    waiting=$(q reg -c "SELECT pid FROM pg_stat_activity WHERE usename = 'leaser' AND wait_event = 'SyncRep'")
    [ -n "$waiting" ] && break; sleep 0.2
  done
  q reg -c "SELECT pg_cancel_backend(${waiting:-0})" >/dev/null
  warned_lease_refused
  check "behind a pooler that resets sessions (a session's setting there, one transaction later: $pooled), the lease still waits for the synchronous standby (backend $waiting) and, cancelled, is not used: $out" \
    '[ "$pooled" = off ] && [ -n "$waiting" ] && [[ $out == *"the registry warned while it leased, so the lease is not used: canceling wait for synchronous replication"* ]]'
  q reg -c "ALTER SYSTEM RESET synchronous_standby_names" -c "SELECT pg_reload_conf()" >/dev/null
  got=""
  for _ in $(seq 200); do got=$(q o -c "SELECT locality_uuid_node(locality_uuid())" 2>/dev/null) && break; sleep 0.2; done
  check "... and with no synchronous standby asked for, the next attempt through the pooler leases (node $got)" '[ -n "$got" ]'
  sed -i '$d' "$WORK/o/postgresql.conf"
  q reg -c "ALTER ROLE leaser RESET synchronous_commit" >/dev/null
  kill "$(cat "$WORK/pgb/pgbouncer.pid")" 2>/dev/null || true
  pgctl o restart -m fast; wait_lease o
fi

# --- a registry the servers must not trust ------------------------------------------
echo; echo "== a registry another role may write"
# refused_at_restart: o restarted; its id error once the worker refused
# the registry (in $out). leased_again: o's node value once it holds a
# lease again (in $got; empty if none came).
refused_at_restart() {
  pgctl o restart -m fast
  out=$(error_once o refusing)
}
leased_again() {
  got=""
  for _ in $(seq 200); do got=$(q o -c "SELECT locality_uuid_node(locality_uuid())" 2>/dev/null) && break; sleep 0.3; done
}
q reg -c "GRANT INSERT ON locality_uuid_registry_private.nodes TO leaser" >/dev/null
refused_at_restart
check "refused, ids fail with why: $out" \
  '[[ $out == "55000: locality_uuid: no lease of a node value yet from the registry at "*": refusing the registry: it is not its owner'"'"'s alone: "*leaser* ]]'
# (Audited against a registry of its own, trusted: this one is refused now.)
q reg -c "CREATE DATABASE audit_reg" >/dev/null
"$CLI" fleet registry --registry "host=$WORK port=${PORT[reg]} dbname=audit_reg user=postgres" >/dev/null
failures_seen=$failures
rc=0; audit=$("$CLI" fleet audit --registry "host=$WORK port=${PORT[reg]} dbname=audit_reg user=postgres" --targets "$WORK/targets" 2>&1) || rc=$?
check "... fleet audit names the server waiting for its lease, and nothing else about it (exit $rc)" \
  '[ $rc = 1 ] && grep -q "^  $WORK:${PORT[o]}/postgres: no lease yet: lease from the registry at .*, not held yet (.*refusing the registry" <<<"$audit" &&
   [ "$(grep -c "^    fix:" <<<"$audit")" = 1 ]'
shown_if_failed "$audit"
q reg -c "REVOKE INSERT ON locality_uuid_registry_private.nodes FROM leaser" >/dev/null
leased_again
check "... and taken once it is its owner's alone again, without a restart (node $got)" '[ -n "$got" ]'
# A member of a predefined role that writes (14+) or locks (17+) every
# table, with no grant on the registry's objects (issue #50): refused at
# the next start, naming the role and the REVOKE; taken once revoked.
wide=""
[ "$PG_MAJOR" -ge 14 ] && wide=pg_write_all_data
[ "$PG_MAJOR" -ge 17 ] && wide="$wide pg_maintain"
for role in $wide; do
  q reg -c "CREATE ROLE etl_$role" -c "GRANT $role TO etl_$role" >/dev/null
  refused_at_restart
  check "a member of $role: refused at the next start: $out" \
    '[[ $out == *"refusing the registry: it is not its owner'"'"'s alone: role etl_$role is a member of $role, which may "*": REVOKE $role FROM etl_$role"* ]]'
  # The CLI runs the same check (fleet.sh drives it on this machine's
  # major only; pg_maintain needs 17+).
  rc=0; cli=$("$CLI" node claim --registry "$REG user=postgres" --host-id "wide-$role" --data-directory /wide --write "$WORK/wide.conf" 2>&1) || rc=$?
  check "... and node claim refuses it (exit $rc), nothing written" \
    '[ $rc = 1 ] && [ ! -e "$WORK/wide.conf" ] && grep -qF "role etl_$role is a member of $role, which may " <<<"$cli" && grep -qF "REVOKE $role FROM etl_$role" <<<"$cli"'
  shown_if_failed "$cli"
  q reg -c "REVOKE $role FROM etl_$role" >/dev/null
  leased_again
  check "... and taken once revoked, without a restart (node $got)" '[ -n "$got" ]'
done
# Another role's USAGE on the private schema (it could name the tables and
# lock them at parse time): refused at the next start; taken once revoked.
q reg -c "GRANT USAGE ON SCHEMA locality_uuid_registry_private TO leaser" >/dev/null
refused_at_restart
check "USAGE on the private schema: refused at the next start: $out" \
  '[[ $out == *"refusing the registry: it is not its owner'"'"'s alone: role leaser has USAGE on schema locality_uuid_registry_private"* ]]'
q reg -c "REVOKE USAGE ON SCHEMA locality_uuid_registry_private FROM leaser" >/dev/null
leased_again
check "... and taken once revoked, without a restart (node $got)" '[ -n "$got" ]'
# The leaser (USAGE on locality_uuid_registry, which holds functions only)
# cannot name the tables (layout 3, issue #50): every parse-time hold and
# strong request is refused at the name, a PREPARE TRANSACTION's too, and
# nothing is held. (1.4: it held ROW EXCLUSIVE on nodes from parse time,
# past its disconnect, and a CREATE TRIGGER queued behind that stalled
# every lease and claim: the control below.)
cat >"$WORK/holds.sql" <<'SQL'
BEGIN; PREPARE d AS DELETE FROM locality_uuid_registry.nodes; ROLLBACK;
BEGIN; PREPARE c AS SELECT FROM locality_uuid_registry.claims FOR UPDATE; ROLLBACK;
BEGIN; PREPARE pd AS DELETE FROM locality_uuid_registry_private.nodes; ROLLBACK;
BEGIN; PREPARE pc AS SELECT FROM locality_uuid_registry_private.claims FOR UPDATE; ROLLBACK;
CREATE TRIGGER queued BEFORE INSERT ON locality_uuid_registry_private.nodes FOR EACH ROW EXECUTE FUNCTION pg_catalog.suppress_redundant_updates_trigger();
SQL
out=$(q reg -U leaser -v ON_ERROR_STOP=0 -v VERBOSITY=verbose -f "$WORK/holds.sql" 2>&1 || true)
absent=$(grep -c '^psql:.*ERROR:  42P01: relation "locality_uuid_registry\.\(nodes\|claims\)" does not exist$' <<<"$out" || true)
denied=$(grep -c '^psql:.*ERROR:  42501: permission denied for schema locality_uuid_registry_private$' <<<"$out" || true)
rc=0; prepared=$(q reg -U leaser -c "BEGIN" -c "PREPARE d AS DELETE FROM locality_uuid_registry_private.nodes" -c "PREPARE TRANSACTION 'leaser_holds'" 2>&1) || rc=$?
[ $rc != 0 ] || q reg -c "ROLLBACK PREPARED 'leaser_holds'" >/dev/null  # (the check below fails; the control needs the name)
held=$(q reg -c "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation LEFT JOIN pg_stat_activity a ON a.pid = l.pid
                 WHERE c.relnamespace IN ('locality_uuid_registry'::regnamespace, 'locality_uuid_registry_private'::regnamespace)
                   AND (a.usename = 'leaser' OR l.pid IS NULL)")
check "the leaser's holds are refused at the name ($absent 42P01, $denied 42501 of 5; a prepared one: exit $rc), $held locks held" \
  '[ "$absent" = 2 ] && [ "$denied" = 3 ] && [ $rc != 0 ] && grep -q "permission denied for schema locality_uuid_registry_private" <<<"$prepared" &&
   [ "$held" = 0 ] && [ "$(q reg -c "SELECT count(*) FROM pg_prepared_xacts")" = 0 ]'
shown_if_failed "$out"
leases_before=$(q reg -c "SELECT count(*) FROM locality_uuid_registry_private.nodes WHERE how = 'leased'")
pgctl o restart -m fast
leased_again
rc=0; claimed=$("$CLI" node claim --registry "$REG user=postgres" --host-id held-host --data-directory /held --write "$WORK/held.conf" 2>&1) || rc=$?
leases_after=$(q reg -c "SELECT count(*) FROM locality_uuid_registry_private.nodes WHERE how = 'leased'")
check "... a start leases (node $got, leases $leases_before -> $leases_after), a claim is made (exit $rc)" \
  '[ -n "$got" ] && [ "$leases_after" = $((leases_before + 1)) ] && [ $rc = 0 ]'
shown_if_failed "$claimed"
# The control: with USAGE on the private schema granted, the leaser's
# prepared hold is taken, its CREATE TRIGGER queues behind it (the lock
# comes before the privilege check), and a lease waits behind that.
# (The trust check refuses such a registry, so the owner calls lease().)
q reg -c "GRANT USAGE ON SCHEMA locality_uuid_registry_private TO leaser" >/dev/null
q reg -U leaser -c "BEGIN" -c "PREPARE d AS DELETE FROM locality_uuid_registry_private.nodes" -c "PREPARE TRANSACTION 'leaser_holds'" >/dev/null
q reg -U leaser -c "SET lock_timeout = 0" \
  -c "CREATE TRIGGER queued BEFORE INSERT ON locality_uuid_registry_private.nodes FOR EACH ROW EXECUTE FUNCTION pg_catalog.suppress_redundant_updates_trigger()" >/dev/null 2>&1 &
holder=$!
waits="SELECT count(*) >= 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE a.usename = 'leaser' AND NOT l.granted"
for _ in $(seq 100); do [ "$(q reg -c "$waits")" = t ] && break; sleep 0.1; done
queued=$(q reg -c "$waits")
rc=0; out=$(q reg -v VERBOSITY=verbose -c "SET statement_timeout = '2s'" \
  -c "SELECT node_id FROM locality_uuid_registry.lease(md5('control'), 'control', '/control', '1', now())" 2>&1) || rc=$?
check "the control: a CREATE TRIGGER queued behind the prepared hold ($queued) stalls a lease (exit $rc)" \
  '[ "$queued" = t ] && [ $rc != 0 ] && grep -q "ERROR:  57014: canceling statement due to statement timeout" <<<"$out"'
q reg -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE usename = 'leaser' AND state <> 'idle'" \
  -c "ROLLBACK PREPARED 'leaser_holds'" -c "REVOKE USAGE ON SCHEMA locality_uuid_registry_private FROM leaser" >/dev/null
wait $holder || true

# --- a registry of layout 2 (1.4), leased from, then updated -----------------------
echo; echo "== a registry of layout 2, updated to layout 3"
# Made as 1.4's CLI made it (lib/registry_layout2.sql: its functions of
# revision 1), with the identity a later revision gives (kept through the
# move), the grants doc/fleets.md gave then, and two more that must go
# (SELECT on claims, a column grant); a server of this version leases
# from it.
q reg -c "CREATE DATABASE l2" -c "CREATE ROLE prov2 LOGIN" -c "CREATE ROLE aud2 LOGIN" >/dev/null
l2q() { q reg -d l2 "$@"; }
L2="host=$WORK port=${PORT[reg]} dbname=l2"
PGOPTIONS="-c search_path=pg_catalog,pg_temp" l2q -f "$ROOT/test/integration/lib/registry_layout2.sql" >/dev/null
l2q -c "DO \$\$ BEGIN EXECUTE format('COMMENT ON SEQUENCE locality_uuid_registry.node_values IS %L',
                                      'locality_uuid registry identity ' || gen_random_uuid()); END \$\$" >/dev/null
l2q -c "GRANT USAGE ON SCHEMA locality_uuid_registry TO leaser, prov2, aud2" \
  -c "GRANT EXECUTE ON FUNCTION locality_uuid_registry.lease(text, text, text, text, timestamptz) TO leaser" \
  -c "GRANT SELECT ON locality_uuid_registry.nodes TO prov2" \
  -c "GRANT EXECUTE ON FUNCTION locality_uuid_registry.claim(text, text, text, integer, text),
                                locality_uuid_registry.claim_block(text, text, text[], text[]) TO prov2" \
  -c "GRANT SELECT ON locality_uuid_registry.nodes, locality_uuid_registry.node_values TO aud2" \
  -c "GRANT EXECUTE ON FUNCTION locality_uuid_registry.seen(integer[], text[], text[]) TO aud2" \
  -c "GRANT SELECT ON locality_uuid_registry.claims TO aud2" -c "GRANT SELECT (node_id) ON locality_uuid_registry.nodes TO leaser" \
  -c "SELECT node_id FROM locality_uuid_registry.claim(md5('l2-host'), 'l2-host', '/l2')" \
  -c "ALTER DEFAULT PRIVILEGES GRANT EXECUTE ON FUNCTIONS TO other" >/dev/null
echo "locality_uuid.registry = '$L2 user=leaser'" >>"$WORK/o/postgresql.conf"
pgctl o restart -m fast; wait_lease o
l2_node=$(node_of o)
l2_id=$(l2q -c "SELECT obj_description('locality_uuid_registry.node_values'::regclass, 'pg_class')")
# state SCHEMA: the rows, the sequence and the counters
state() {
  l2q -c "SELECT (SELECT string_agg(node_id || ' ' || how, ', ' ORDER BY node_id) FROM $1.nodes) || '; '
                 || (SELECT last_value FROM $1.node_values) || '; ' || (SELECT claims || ' ' || leases FROM $1.claims)"
}
before=$(state locality_uuid_registry)
check "a server of this version leases from a layout-2 registry (node $l2_node; $before)" \
  '[ "$l2_node" = 2 ] && [ "$before" = "1 claimed, 2 leased; 2; 1 1" ]'
layout="SELECT obj_description('locality_uuid_registry'::regnamespace, 'pg_namespace') || ', private schema: '
               || (to_regnamespace('locality_uuid_registry_private') IS NOT NULL)"
rc=0; out=$("$CLI" fleet registry --registry "$L2 user=other" --registry-owner postgres 2>&1) || rc=$?
check "another role than its owner is refused (exit $rc): $out" \
  '[ $rc = 1 ] && [[ $out == *"the registry has layout 2, this locality-uuid needs layout 3: run locality-uuid fleet registry once as role postgres to update it" ]]'
# A prepared hold (1.4 let the leaser take one): the owner's update is
# refused at once, naming it, and changes nothing.
l2q -U leaser -c "BEGIN" -c "PREPARE d AS DELETE FROM locality_uuid_registry.nodes" -c "PREPARE TRANSACTION 'l2_holds'" >/dev/null
SECONDS=0; rc=0; out=$("$CLI" fleet registry --registry "$L2 user=postgres" 2>&1) || rc=$?
took=$SECONDS
check "a prepared transaction's hold: the update refused (exit $rc, ${took} s), nothing changed ($(l2q -c "$layout")): $out" \
  '[ $rc = 1 ] &&
   [[ $out == *"could not update the registry: 55006: the registry cannot move to its private schema: prepared transactions hold locks on it. prepared transaction '"'"'l2_holds'"'"'. "* ]] &&
   [ "$(l2q -c "$layout")" = "locality_uuid registry, layout 2, private schema: false" ]'
l2q -c "ROLLBACK PREPARED 'l2_holds'" >/dev/null
# A session's hold left open: each move waits 100 ms at a time, about 3 s
# in all, then the update is refused naming the process, and rolled back.
l2q -U leaser -c "BEGIN" -c "PREPARE d AS DELETE FROM locality_uuid_registry.nodes" -c "SELECT pg_sleep(600)" >/dev/null 2>&1 &
holder=$!
hold="SELECT string_agg(l.pid::text, ' ') FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE a.usename = 'leaser' AND l.relation = 'locality_uuid_registry.nodes'::regclass AND l.granted"
for _ in $(seq 100); do pid=$(l2q -c "$hold"); [ -n "$pid" ] && break; sleep 0.1; done
SECONDS=0; rc=0; out=$("$CLI" fleet registry --registry "$L2 user=postgres" 2>&1) || rc=$?
took=$SECONDS
check "a session's hold (process $pid): the update refused after ${took} s (exit $rc), nothing changed ($(l2q -c "$layout")): $out" \
  '[ $rc = 1 ] && [ "$took" -le 60 ] &&
   [[ $out == *"55006: the registry cannot move to its private schema: other transactions hold locks on it. process $pid of role leaser (active since "*") held nodes for 3 s. "* ]] &&
   [ "$(l2q -c "$layout")" = "locality_uuid registry, layout 2, private schema: false" ] && [ "$(state locality_uuid_registry)" = "$before" ]'
l2q -c "SELECT pg_cancel_backend($pid)" >/dev/null
wait $holder || true
# The owner's update: every row, value and counter kept, the identity too;
# no relation left where the roles have USAGE; SELECT on nodes became
# EXECUTE on nodes(), on node_values EXECUTE on budget(); no other role
# keeps any privilege on what moved.
# (With the CLI's setting for a registry being made given beforehand: an
# update keeps its delegations whatever it says.)
made=$(PGOPTIONS="-c locality_uuid_registry.making=on" "$CLI" fleet registry --registry "$L2 user=postgres" 2>&1) || true
after=$(state locality_uuid_registry_private)
where=$(l2q -c "SELECT (SELECT count(*) FROM pg_class WHERE relnamespace = 'locality_uuid_registry'::regnamespace) || '; '
                       || (SELECT string_agg(proname, ',' ORDER BY proname) FROM pg_proc WHERE pronamespace = 'locality_uuid_registry'::regnamespace) || '; '
                       || (SELECT string_agg(proname, ',' ORDER BY proname) FROM pg_proc WHERE pronamespace = 'locality_uuid_registry_private'::regnamespace)")
check "the owner's update: $(tr '\n' ' ' <<<"$made"); rows kept ($after), identity kept, moved ($where)" \
  '[ "$made" = "registry layout 3, trusted
registry: 2 rows (1 lease), node values drawn 2 of 268435455, machine bytes used 2 of 16777216" ] &&
   [ "$after" = "$before" ] && [ "$(l2q -c "$layout")" = "locality_uuid registry, layout 3, private schema: true" ] &&
   [ "$(l2q -c "SELECT obj_description('"'"'locality_uuid_registry_private.node_values'"'"'::regclass, '"'"'pg_class'"'"')")" = "$l2_id" ] &&
   [ "$where" = "0; budget,claim,claim_block,holders,lease,nodes,seen; insert_node,machine_bytes,next_node" ]'
# (other: the owner's default privileges give it EXECUTE on new functions)
readers="SELECT string_agg(r || ':' || f, ' ' ORDER BY r, f) FROM unnest('{prov2,aud2,leaser,other}'::text[]) r,
                unnest('{nodes(),budget(),\"holders(integer[],text[],bytea[])\"}'::text[]) f
         WHERE has_function_privilege(r, 'locality_uuid_registry.' || f, 'EXECUTE')"
converted=$(l2q -c "$readers")
kept=$(l2q -c "SELECT (SELECT count(*) FROM pg_class c, aclexplode(c.relacl) a
                       WHERE c.relnamespace = 'locality_uuid_registry_private'::regnamespace AND a.grantee <> c.relowner) || ' '
                   || (SELECT count(*) FROM pg_class c JOIN pg_attribute t ON t.attrelid = c.oid, aclexplode(t.attacl) a
                       WHERE c.relnamespace = 'locality_uuid_registry_private'::regnamespace) || ' '
                   || (SELECT count(*) FROM pg_namespace n, aclexplode(n.nspacl) a
                       WHERE n.nspname = 'locality_uuid_registry_private' AND a.grantee <> n.nspowner) || ' '
                   || (SELECT count(*) FROM pg_proc p, aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
                       WHERE p.pronamespace = 'locality_uuid_registry_private'::regnamespace AND a.grantee <> p.proowner)")
check "... the readers' grants converted ($converted), no other role's privilege left in the private schema ($kept)" \
  '[ "$converted" = "aud2:budget() aud2:holders(integer[],text[],bytea[]) aud2:nodes() prov2:holders(integer[],text[],bytea[]) prov2:nodes()" ] &&
   [ "$kept" = "0 0 0 0" ]'
# The roles with their converted grants: the provisioner claims (and
# checks its claim through nodes()), the auditor reads the budget, the
# leaser names no table; a server restarted leases from layout 3, with the
# registry's identity read from the private schema.
rc=0; out=$("$CLI" node claim --registry "$L2 user=prov2" --registry-owner postgres --host-id l2-prov --data-directory /l2p --write "$WORK/l2p.conf" 2>&1) || rc=$?
arc=0; aout=$("$CLI" fleet registry --registry "$L2 user=aud2" --registry-owner postgres 2>&1) || arc=$?
lrc=0; lout=$(l2q -U leaser -c "SELECT FROM locality_uuid_registry_private.nodes" 2>&1) || lrc=$?
check "... the provisioner claims (exit $rc), the auditor reads the budget (exit $arc), the leaser names no table (exit $lrc)" \
  '[ $rc = 0 ] && grep -q "^node 3, machine name lu-3 " <<<"$out" && [ $arc = 0 ] &&
   [ "$(tail -n 1 <<<"$aout")" = "registry: 3 rows (1 lease), node values drawn 3 of 268435455, machine bytes used 3 of 16777216" ] &&
   [ $lrc != 0 ] && grep -q "permission denied for schema locality_uuid_registry_private" <<<"$lout"'
shown_if_failed "$out $aout"
pgctl o restart -m fast; wait_lease o
record=$({ tr '\n' ' ' <"$WORK/o/locality_uuid.lease"; } 2>/dev/null || true)
check "... a server restarted leases from layout 3 (node $(node_of o)), its record naming the registry's identity: $record" \
  '[ "$(node_of o)" = 4 ] && [[ $record == *" lease 4 "[0-9]*" lu-4 ${l2_id##* } $WORK:${PORT[reg]}/l2 "* ]]'
again=$("$CLI" fleet registry --registry "$L2 user=postgres")
check "... and the update again changes nothing: $(tr '\n' ' ' <<<"$again")" \
  '[ "$(head -n 1 <<<"$again")" = "registry layout 3, trusted" ] && [ "$(state locality_uuid_registry_private)" = "1 claimed, 2 leased, 3 claimed, 4 leased; 4; 2 2" ] &&
   [ "$(l2q -c "$readers")" = "$converted" ]'
# Dumped without its comments and restored: no layout, no identity. The
# owner's fleet registry does not make it again over its tables (which
# would hand its values out anew) but says how to give the layout back.
q reg -c "CREATE DATABASE l4" >/dev/null
as_postgres "$BIN/pg_dump" -h "$WORK" -p "${PORT[reg]}" -U postgres -d l2 --no-comments \
  -n locality_uuid_registry -n locality_uuid_registry_private | q reg -d l4 >/dev/null
rc=0; out=$("$CLI" fleet registry --registry "host=$WORK port=${PORT[reg]} dbname=l4 user=postgres" 2>&1) || rc=$?
l4q() { q reg -d l4 "$@"; }
check "restored without comments: the owner's fleet registry refuses, saying how (exit $rc): $out" \
  '[ $rc = 1 ] && [[ $out == *"schema locality_uuid_registry has no layout comment, and locality_uuid_registry_private holds relations: a registry restored without its comments (pg_dump --no-comments)? As role postgres, give its layout back (COMMENT ON SCHEMA locality_uuid_registry IS '"'"'locality_uuid registry, layout 3'"'"') and run this again"* ]] &&
   [ "$(l4q -c "SELECT max(node_id) FROM locality_uuid_registry_private.nodes")" = 4 ]'
l4q -c "COMMENT ON SCHEMA locality_uuid_registry IS 'locality_uuid registry, layout 3'" >/dev/null
again=$("$CLI" fleet registry --registry "host=$WORK port=${PORT[reg]} dbname=l4 user=postgres" 2>&1) || true
check "... and with it given back, trusted as it was: $(tr '\n' ' ' <<<"$again")" \
  '[ "$again" = "registry layout 3, trusted
registry: 4 rows (2 leases), node values drawn 4 of 268435455, machine bytes used 4 of 16777216" ]'
sed -i '$d' "$WORK/o/postgresql.conf"
pgctl o stop -m fast
# Leases going on during the update: the move takes its locks in the
# order a lease does (nodes, then node_values, then claims), so it goes
# through, and no lease ends in a deadlock (a lease that waited for the
# move fails once the tables are gone from under the function it called,
# which a server retries; in the other order the move held node_values
# while a lease holding nodes waited for it).
q reg -c "CREATE DATABASE l3" >/dev/null
PGOPTIONS="-c search_path=pg_catalog,pg_temp" q reg -d l3 -f "$ROOT/test/integration/lib/registry_layout2.sql" >/dev/null
busy() {  # busy TAG: 150 leases, one after another
  for i in $(seq 150); do
    q reg -d l3 -v VERBOSITY=verbose -c "SELECT node_id FROM locality_uuid_registry.lease(md5('busy'), 'busy', '/busy/$1/$i', '1', now())" 2>&1 || true
  done
}
busy a >"$WORK/busy-a.out" & busy_a=$!
busy b >"$WORK/busy-b.out" & busy_b=$!
sleep 0.5
rc=0; out=$("$CLI" fleet registry --registry "host=$WORK port=${PORT[reg]} dbname=l3 user=postgres" 2>&1) || rc=$?
wait $busy_a $busy_b
deadlocks=$(cat "$WORK/busy-a.out" "$WORK/busy-b.out" | grep -c "40P01" || true)
made=$(q reg -d l3 -c "SELECT count(*) FROM locality_uuid_registry_private.nodes" 2>/dev/null || echo none)
check "leases during the update: it goes through (exit $rc), $made of 300 leases made, $deadlocks deadlocks: $out" \
  '[ $rc = 0 ] && [ "$deadlocks" = 0 ] && [ "$made" -ge 250 ]'

# --- a registry whose node values are spent (issue #52) ---------------------------
echo; echo "== a registry whose node values are spent"
at=$(drawn)
q reg -c "SELECT setval('locality_uuid_registry_private.node_values', 268435455)" >/dev/null
rc=0; out=$("$CLI" fleet registry --registry "$REG user=postgres" 2>&1 >/dev/null) || rc=$?
check "fleet registry exits $rc: $out" \
  '[ $rc = 1 ] && [[ $out == "locality-uuid: the registry has no node value left: all 268435455 are drawn, and every claim and lease now fails; nothing gives values back"* ]]'
pgctl o start
out=$(error_once o "no node value left")
check "a start then waits, saying why: $out" \
  '[[ $out == *": the registry has no node value left: all 268435455 are drawn, and nothing gives values back (doc/fleets.md, \"The budget\")" ]]'
rc=0; json=$("$CLI" fleet audit --registry "$REG user=postgres" --targets "$WORK/targets" --json) || rc=$?
kinds=$(python3 -c 'import json,sys; print(" ".join(sorted(p["kind"] for p in json.loads(sys.argv[1])["problems"])))' "$json" 2>&1) || true
check "fleet audit exits $rc: $kinds" '[ $rc = 1 ] && [ "$kinds" = "lease_not_held registry_exhausted" ]'
q reg -c "SELECT setval('locality_uuid_registry_private.node_values', $at)" >/dev/null  # (nothing was drawn meanwhile)
q o -c "SELECT pg_reload_conf()" >/dev/null
leased_again
check "... and leases once values are left (here: the sequence put back where it stood), after a reload (node $got)" '[ -n "$got" ]'
pgctl o stop -m fast

# --- a registry in the server's own cluster (issue #52) ---------------------------
# Every snapshot, clone, restore or standby of a server carries the
# registry it holds, and one restored or reverted with it leases again
# what its lost timeline leased: the worker compares system identifiers
# and refuses it.
echo; echo "== a registry in the server's own cluster"
init_node self
pgctl self start
"$CLI" fleet registry --registry "host=$WORK port=${PORT[self]} dbname=postgres user=postgres" >/dev/null
q self -c "$(sed -n '/<!-- grants-leaser -->/,/<!-- \/grants-leaser -->/p' "$ROOT/doc/fleets.md" | grep -v '^<!--\|^```')" >/dev/null
cat >>"$WORK/self/postgresql.conf" <<CONF
locality_uuid.registry = 'host=$WORK port=${PORT[self]} dbname=postgres user=leaser'
locality_uuid.registry_owner = 'postgres'
CONF
# (With EXECUTE on pg_control_system() revoked from the leaser, the
# identifier cannot be read: the lease is taken, as documented, and the
# server log says the check was not made.)
q self -c "REVOKE EXECUTE ON FUNCTION pg_catalog.pg_control_system() FROM PUBLIC"
pgctl self restart -m fast
q self -c "CREATE EXTENSION locality_uuid"
got=""
for _ in $(seq 100); do got=$(q self -c "SELECT locality_uuid_node(locality_uuid())" 2>/dev/null) && break; sleep 0.2; done
check "pg_control_system() not executable by the leaser: the identifier unread, the lease taken (node $got), said in the log" \
  '[ -n "$got" ] && [ "$(log_count self "LOG:  locality_uuid: the registry.s system identifier cannot be read \(the leaser may not execute pg_control_system\(\)\), so a registry in this server.s own cluster cannot be refused")" -ge 1 ]'
q self -c "GRANT EXECUTE ON FUNCTION pg_catalog.pg_control_system() TO PUBLIC"
pgctl self restart -m fast
out=$(error_once self refusing)
self_leases=$(q self -c "SELECT count(*) FROM locality_uuid_registry_private.nodes WHERE how = 'leased'")
check "executable (as by default): a registry in the server's own cluster is refused, no lease taken at that start ($self_leases in all): $out" \
  '[[ $out == *": refusing the registry: it is in this server'"'"'s own cluster: its system identifier is this server'"'"'s (or its primary'"'"'s); "* ]] &&
   [ "$self_leases" = 1 ]'
pgctl self stop -m fast

# --- leases without preloading ----------------------------------------------------
echo; echo "== locality_uuid.registry on a server that does not preload the library"
echo "locality_uuid.registry = 'host=$WORK port=${PORT[reg]} dbname=postgres user=leaser'" >>"$WORK/reg/postgresql.conf"
q reg -c "SELECT pg_reload_conf()" -c "CREATE EXTENSION locality_uuid" >/dev/null
out=$(error_of reg "SELECT locality_uuid()")
check "every server-wide id refused, none made with another value: $out" \
  '[ "$out" = "55000: locality_uuid.registry is set, but the library is not preloaded" ]'
# What an ordinary role sees of the string there (issue #50): PostgreSQL
# shows a setting no loaded library has defined to anyone, so before its
# session loads the library the string is visible (doc/fleets.md: keep the
# password in a passfile); from the library's load on, in that session,
# the setting is the superusers' (42501), as on a server that preloads.
q reg -c "CREATE ROLE plain LOGIN" >/dev/null
before=$(q reg -U plain -c "SHOW locality_uuid.registry" 2>&1)
rc=0; after=$(q reg -U plain -v VERBOSITY=verbose -c "SELECT locality_uuid_node('20be0ffc-314a-bd53-7a50-013a65ca76d2')" -c "SHOW locality_uuid.registry" 2>&1) || rc=$?
check "not preloaded, an ordinary role sees the string until its session loads the library ('$before'), then not (exit $rc)" \
  '[ "$before" = "host=$WORK port=${PORT[reg]} dbname=postgres user=leaser" ] && [ $rc != 0 ] && grep -q "ERROR:  42501" <<<"$after" && [[ $after != *leaser* ]]'

echo
[ "$failures" = 0 ] && echo "all lease checks passed" || { echo "$failures lease checks FAILED"; exit 1; }
