#!/usr/bin/env bash
# Node values for a fleet (doc/fleets.md), on one machine: a registry in a
# throw-away cluster, clusters on simulated hosts (each a directory with its
# identity file and node file, which the cluster includes).
#
#   claims     a claim whose first machine name's MD5 bytes another row has
#              (an imported machine) takes the next name; a claimer killed
#              after its INSERT, before its COMMIT, leaves no row; then 8
#              claimers x 100 claims at once: 800 rows, no node value or
#              machine bytes twice; claims again on a host and data
#              directory return the same values, and write the same file.
#   block      a block of 3 for a StatefulSet, and doc/fleets.md's init
#              container script rendered for 3 pods: 3 distinct consecutive
#              node values, each pod with its own identity.
#   audit      20 clusters with claimed values: exit 0; then one pair sharing
#              a node value, one pair sharing machine bytes, one pair of
#              clones (cp -a beside its origin, its node file copied to the
#              clone's host), and a server with its values in PGDATA: exit 1,
#              listing exactly those servers; 0 once fixed by the claims.
#   scan       the node values of a table's ids, with their time ranges.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
. "$ROOT/test/integration/lib/servers.sh"
CLI=${CLI:-locality-uuid}
WORK=$(mktemp -d /tmp/locality-fleet.XXXXXX)
chmod 755 "$WORK"
chown postgres "$WORK"
trap 'keep_logs_if_failed $? "$WORK"; stop_servers_under "$WORK"; rm -rf "$WORK"' EXIT
failures=0
check() { if eval "$2"; then echo "ok:   $1"; else echo "FAIL: $1"; failures=$((failures + 1)); fi; }
declare -A PORT
q() {  # q NODE PSQL-ARGS...
  local node=$1; shift
  psql -X -q -At -v ON_ERROR_STOP=1 -h "$WORK" -p "${PORT[$node]}" -U postgres -d postgres "$@"
}
dsn() { echo "host=$WORK port=${PORT[$1]} user=postgres dbname=postgres"; }
pgctl() {  # pgctl NODE ARGS...
  local node=$1; shift
  as_postgres timeout 120 "$BIN/pg_ctl" -D "$WORK/$node" -l "$WORK/$node.log" -w "$@" >/dev/null ||
    { tail -n 20 "$WORK/$node.log" >&2; return 1; }
}
small() { printf "shared_buffers = '8MB'\nmax_connections = 10\nfsync = off\n"; }

# --- the registry ----------------------------------------------------------------------
PORT[reg]=$(small | init_server "$WORK/reg" "$WORK")
sed -i "/^shared_preload_libraries/d" "$WORK/reg/postgresql.conf"
echo "max_connections = 30" >>"$WORK/reg/postgresql.conf"
pgctl reg start
REG=$(dsn reg)
rq() { q reg "$@"; }

echo "== claims"
# The first claim creates the registry. An imported machine (a row added
# by hand) already has the MD5 bytes of the name node 1 would get, lu-1:
# its claim must take lu-1-1.
"$CLI" node claim --registry "$REG" --host-id first --data-directory /d --write "$WORK/first.conf" >/dev/null
bytes_lu2=$(python3 -c "import hashlib; print(hashlib.md5(b'lu-2').hexdigest()[:6])")
rq -c "INSERT INTO locality_uuid_registry_private.nodes (node_id, machine_name, machine_bytes, host_id, host_label, data_directory)
       VALUES (268435455, 'imported-machine', decode('$bytes_lu2', 'hex'), md5('imported'), 'imported', '/imported')"
out=$("$CLI" node claim --registry "$REG" --host-id collide --data-directory /d --write "$WORK/collide.conf")
check "a claim whose first name's machine bytes are taken takes the next name: $out" \
  'grep -q "^node 2, machine name lu-2-1 " <<<"$out" && grep -q "^locality_uuid.machine_name = .lu-2-1.$" "$WORK/collide.conf"'

# A claimer killed mid-transaction: a session holds the claims counter's
# row, so the claimer waits after its INSERT, before its COMMIT; it is
# killed there, then the row is let go.
mkfifo "$WORK/locker.in"
psql -X -q -h "$WORK" -p "${PORT[reg]}" -U postgres -d postgres <"$WORK/locker.in" >/dev/null 2>&1 &
locker=$!
exec 7>"$WORK/locker.in"
echo "BEGIN; SELECT * FROM locality_uuid_registry_private.claims FOR UPDATE;" >&7
sleep 1
"$CLI" node claim --registry "$REG" --host-id victim --data-directory /d --write "$WORK/victim.conf" >/dev/null 2>&1 &
victim=$!
waiting=no
for _ in $(seq 100); do
  if [ "$(rq -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'locality-uuid'
                   AND wait_event_type = 'Lock' AND query LIKE '%locality_uuid_registry.claim(%'")" = 1 ]; then
    waiting=yes; break
  fi
  sleep 0.1
done
kill -9 "$victim" 2>/dev/null || true
wait "$victim" 2>/dev/null || true
echo "COMMIT;" >&7
exec 7>&-
wait "$locker" || true
for _ in $(seq 100); do
  [ "$(rq -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'locality-uuid'")" = 0 ] && break
  sleep 0.1
done
check "a claimer killed after its INSERT, before its COMMIT (it was waiting: $waiting), leaves no row and no file" \
  '[ "$waiting" = yes ] && [ "$(rq -c "SELECT count(*) FROM locality_uuid_registry_private.nodes WHERE host_label = '"'victim'"'")" = 0 ] && [ ! -e "$WORK/victim.conf" ]'

# 8 claimers x 100 claims at once (250 each before: each claim is a CLI run
# and a backend, about 0.1 s of CPU on a VM where forks are dear; 100 keep
# all 8 claiming side by side for the whole burst).
CLAIMS=100
claimer() {
  local c=$1 i
  for i in $(seq $CLAIMS); do
    "$CLI" node claim --registry "$REG" --host-id "claimer-$c-$i" --data-directory "/srv/$c" \
      --write "$WORK/claims/$c-$i.conf" >/dev/null || echo "claimer $c claim $i failed" >&2
  done
}
mkdir "$WORK/claims"
start_s=$SECONDS
for c in 1 2 3 4 5 6 7 8; do claimer "$c" & done
wait
took=$((SECONDS - start_s))
read -r rows nodes bytes names < <(rq -F ' ' -c "SELECT count(*), count(DISTINCT node_id), count(DISTINCT machine_bytes), count(DISTINCT machine_name)
                                                 FROM locality_uuid_registry_private.nodes WHERE host_label LIKE 'claimer-%'")
read -r all_bytes all_rows < <(rq -F ' ' -c "SELECT count(DISTINCT machine_bytes), count(*) FROM locality_uuid_registry_private.nodes")
files=$(cat "$WORK"/claims/*.conf | grep -c "^locality_uuid.node_id = " || true)
file_nodes=$(cat "$WORK"/claims/*.conf | grep "^locality_uuid.node_id = " | sort -u | wc -l)
check "8 claimers x $CLAIMS claims at once in ${took}s: $rows rows, $nodes node values, $bytes machine bytes, $names names; $files files with $file_nodes values" \
  'all=$((8 * CLAIMS)); [ "$rows $nodes $bytes $names" = "$all $all $all $all" ] && [ "$files $file_nodes" = "$all $all" ]'
check "... and no machine bytes twice in the whole registry ($all_bytes of $all_rows rows)" '[ "$all_bytes" = "$all_rows" ]'
victim_value=$(rq -c "SELECT count(*) FROM generate_series(1, (SELECT max(node_id) FROM locality_uuid_registry_private.nodes
                                                                  WHERE node_id < 268435455)) v
                      WHERE v NOT IN (SELECT node_id FROM locality_uuid_registry_private.nodes)")
check "the killed claimer's value is never handed out ($victim_value value(s) skipped)" '[ "$victim_value" = 1 ]'
again=$("$CLI" node claim --registry "$REG" --host-id claimer-3-17 --data-directory /srv/3 --write "$WORK/again.conf" 2>&1 || true)
check "a claim again on one host and data directory returns its claim: $again" \
  'grep -q "the existing claim for claimer-3-17" <<<"$again" && diff -q "$WORK/claims/3-17.conf" "$WORK/again.conf" >/dev/null'
other=$("$CLI" node claim --registry "$REG" --host-id claimer-3-17 --data-directory /srv/other --write "$WORK/other.conf" 2>&1 || true)
check "... and another data directory of that host gets a claim of its own: $other" 'grep -q "a new claim" <<<"$other"'
spelled=$("$CLI" node claim --registry "$REG" --host-id claimer-3-17 --data-directory /srv/./3/ --write "$WORK/spelled.conf" 2>&1 || true)
check "... the data directory as the server names it (/srv/./3/ is /srv/3): $spelled" 'grep -q "the existing claim for claimer-3-17, data directory /srv/3$" <<<"$spelled"'
# One host and data directory claimed by 8 claimers at once (a provisioning
# retry racing itself): one claim, the same for all.
for c in 1 2 3 4 5 6 7 8; do
  "$CLI" node claim --registry "$REG" --host-id racing-host --data-directory /srv/race --write "$WORK/race-$c.conf" \
    >"$WORK/race-$c.out" 2>&1 &
done
wait
race_values=$(cat "$WORK"/race-*.conf 2>/dev/null | sed -n 's/^locality_uuid.node_id = //p' | sort -u | tr '\n' ' ')
race_rows=$(rq -c "SELECT count(*) FROM locality_uuid_registry_private.nodes WHERE host_label = 'racing-host'")
check "8 claimers of one host and data directory at once: one row ($race_rows), one value for all ($race_values)" \
  '[ "$race_rows" = 1 ] && [ "$(wc -w <<<"$race_values")" = 1 ] && [ "$(ls "$WORK"/race-*.conf | wc -l)" = 8 ]'

# Eight claimers of that host writing one node file at once: each writes
# a temporary file of its own, so every run succeeds and the file is whole.
writers=()
for c in 1 2 3 4 5 6 7 8; do
  "$CLI" node claim --registry "$REG" --host-id racing-host --data-directory /srv/race --write "$WORK/race.conf" \
    >/dev/null 2>"$WORK/race-one-$c.err" &
  writers+=($!)
done
failed=0
for job in "${writers[@]}"; do wait "$job" || failed=$((failed + 1)); done
check "8 claimers writing one node file at once: $failed failed, the file whole, no temporary file left" \
  '[ $failed = 0 ] && cmp -s "$WORK/race.conf" "$WORK/race-1.conf" && [ -z "$(ls "$WORK" | grep "^race.conf.tmp")" ]'

# A host identity file whose path has a quote and a backslash: the node
# file's value reads back as that path in PostgreSQL's own parser; a path
# with a control character is refused (it cannot go on a line).
odd="$WORK/host o'dd\\dir"
mkdir -p "$odd"
echo "odd-host-$RANDOM" >"$odd/id"
"$CLI" node claim --registry "$REG" --host-identity-file "$odd/id" --data-directory /srv/odd --write "$WORK/odd.conf" >/dev/null
echo "include '$WORK/odd.conf'" >>"$WORK/reg/postgresql.conf"
rq -c "SELECT pg_reload_conf()" >/dev/null
sleep 1
shown=$(rq -c "SHOW locality_uuid.host_identity_file")
sed -i "\|include '$WORK/odd.conf'|d" "$WORK/reg/postgresql.conf"
rq -c "SELECT pg_reload_conf()" >/dev/null
check "a path with a quote and a backslash reads back from the node file as written ($shown)" '[ "$shown" = "$odd/id" ]'
rc=0
"$CLI" node claim --registry "$REG" --host-identity-file "$WORK/line
break" --data-directory /srv/odd --write "$WORK/never.conf" >/dev/null 2>&1 || rc=$?
check "a host identity file path with a line break is refused (exit $rc), nothing written" '[ $rc = 2 ] && [ ! -e "$WORK/never.conf" ]'

# --- a block for a StatefulSet ------------------------------------------------------------
echo; echo "== a StatefulSet block"
mkdir "$WORK/block"
"$CLI" node claim --registry "$REG" --host-id statefulset:prod/orders-db --block 3 \
  --data-directory /var/lib/postgresql/data --write-dir "$WORK/block" >"$WORK/block.out"
# doc/fleets.md's init container script, rendered for three pods.
script=$(sed -n '/<!-- statefulset-snippet -->/,/<!-- \/statefulset-snippet -->/p' "$ROOT/doc/fleets.md" |
  sed -n '/- |$/,/volumeMounts:/p' | sed '1d;$d' | sed 's/^        //')
for i in 0 1 2; do
  mkdir -p "$WORK/pod-$i"
  rendered=${script//\/locality-uuid-block/$WORK\/block}
  rendered=${rendered//\/etc\/locality_uuid/$WORK\/pod-$i}
  POD_INDEX=$i sh -c "$rendered"
done
values=$(for i in 0 1 2; do sed -n 's/^locality_uuid.node_id = //p' "$WORK/pod-$i/node.conf"; done | tr '\n' ' ')
base=$(head -n 1 <<<"$values" | cut -d' ' -f1)
ids=$(for i in 0 1 2; do cat "$WORK/pod-$i/host-id"; done | tr '\n' ' ')
check "the snippet rendered for 3 pods: node values $values(consecutive, one block), identities $ids" \
  '[ -n "$script" ] && [ "$values" = "$base $((base + 1)) $((base + 2)) " ] &&
   [ "$ids" = "statefulset:prod/orders-db/0 statefulset:prod/orders-db/1 statefulset:prod/orders-db/2 " ]'
"$CLI" node claim --registry "$REG" --host-id statefulset:prod/orders-db --block 3 \
  --data-directory /var/lib/postgresql/data --write-dir "$WORK/block" >"$WORK/block-again.out" 2>&1 || true
check "... and the block claimed again is the same block" \
  '[ "$(sed "s/a new/the existing/" "$WORK/block.out")" = "$(cat "$WORK/block-again.out")" ]'
# Four blocks claimed at once: each of consecutive values, none shared.
for b in 1 2 3 4; do
  mkdir -p "$WORK/blocks-$b"
  "$CLI" node claim --registry "$REG" --host-id "statefulset:prod/set-$b" --block 5 --data-directory /data \
    --write-dir "$WORK/blocks-$b" >/dev/null 2>&1 &
done
wait
blocks_ok=yes
all_values=""
for b in 1 2 3 4; do
  v=$(for i in 0 1 2 3 4; do sed -n 's/^locality_uuid.node_id = //p' "$WORK/blocks-$b/ordinal-$i.conf" 2>/dev/null; done | tr '\n' ' ')
  first=${v%% *}
  [ "$v" = "$first $((first + 1)) $((first + 2)) $((first + 3)) $((first + 4)) " ] || blocks_ok="no ($v)"
  all_values+="$v"
done
check "4 blocks of 5 claimed at once: each consecutive, 20 distinct values ($blocks_ok)" \
  '[ "$blocks_ok" = yes ] && [ "$(tr " " "\n" <<<"$all_values" | grep -c .)" = 20 ] && [ "$(tr " " "\n" <<<"$all_values" | grep . | sort -u | wc -l)" = 20 ]''

# --- the audit over 20 clusters -------------------------------------------------------------
echo; echo "== fleet audit"
# host NAME: a simulated host (its identity file), and its claim for the
# data directory $WORK/NAME's cluster.
host_claim() {
  local h=$1 dir=$2
  mkdir -p "$WORK/hosts/$h"
  [ -f "$WORK/hosts/$h/id" ] || echo "host-$h-$RANDOM$RANDOM" >"$WORK/hosts/$h/id"
  "$CLI" node claim --registry "$REG" --host-identity-file "$WORK/hosts/$h/id" --data-directory "$dir" \
    --write "$WORK/hosts/$h/node.conf" >/dev/null
  chmod 644 "$WORK/hosts/$h/node.conf"
}
new_cluster() {  # new_cluster NAME HOST
  PORT[$1]=$(small | init_server "$WORK/$1" "$WORK")
  host_claim "$2" "$WORK/$1"
  echo "include '$WORK/hosts/$2/node.conf'" >>"$WORK/$1/postgresql.conf"
  pgctl "$1" start
  q "$1" -c "CREATE EXTENSION locality_uuid"
}
names=()
for n in $(seq -w 1 20); do
  new_cluster "c$n" "h$n"
  names+=("c$n")
done
targets() { for n in "$@"; do dsn "$n"; done >"$WORK/targets"; }
targets "${names[@]}"
audit() { "$CLI" fleet audit --registry "$REG" --targets "$WORK/targets" "$@"; }
rc=0; audit >"$WORK/audit0.out" || rc=$?
check "20 clusters with claimed values in per-host files: the audit exits $rc, no problems" \
  '[ "$rc" = 0 ] && grep -q "^no problems: 20 servers" "$WORK/audit0.out"'

# One pair sharing a node value (c02 given c01's), one pair sharing machine
# bytes (c04 given c03's machine name), one pair of clones (c05 copied with
# cp -a to c21 on host h21, with h05's node file), and c22 whose values are
# in its data directory (postgresql.conf) and from the host name.
node_of() { sed -n 's/^locality_uuid.node_id = //p' "$WORK/hosts/$1/node.conf"; }
machine_of() { sed -n "s/^locality_uuid.machine_name = '\(.*\)'$/\1/p" "$WORK/hosts/$1/node.conf"; }
sed -i "s/^locality_uuid.node_id = .*/locality_uuid.node_id = $(node_of h01)/" "$WORK/hosts/h02/node.conf"
sed -i "s/^locality_uuid.machine_name = .*/locality_uuid.machine_name = '$(machine_of h03)'/" "$WORK/hosts/h04/node.conf"
q c02 -c "SELECT pg_reload_conf()" >/dev/null
q c04 -c "SELECT pg_reload_conf()" >/dev/null
pgctl c05 stop -m fast
cp -a "$WORK/c05" "$WORK/c21"
mkdir -p "$WORK/hosts/h21"
echo "host-h21-$RANDOM" >"$WORK/hosts/h21/id"
sed "s|$WORK/hosts/h05/id|$WORK/hosts/h21/id|" "$WORK/hosts/h05/node.conf" >"$WORK/hosts/h21/node.conf"
sed -i "s|include '$WORK/hosts/h05/node.conf'|include '$WORK/hosts/h21/node.conf'|" "$WORK/c21/postgresql.conf"
PORT[c21]=$(free_port)
echo "port = ${PORT[c21]}" >>"$WORK/c21/postgresql.conf"
pgctl c05 start
pgctl c21 start
PORT[c22]=$(small | init_server "$WORK/c22" "$WORK")
echo "locality_uuid.node_id = 999999" >>"$WORK/c22/postgresql.conf"
pgctl c22 start
q c22 -c "CREATE EXTENSION locality_uuid"
sleep 1  # the reloads
targets "${names[@]}" c21 c22
rc=0; audit >"$WORK/audit1.out" || rc=$?
rc_json=0; audit --json >"$WORK/audit1.json" || rc_json=$?
cat "$WORK/audit1.out"
# The servers each problem names, by cluster.
named=$(python3 - "$WORK/audit1.json" <<'PY'
import json, sys
ports = {}
report = json.load(open(sys.argv[1]))
print(" ".join(sorted({s for p in report["problems"] for s in p["servers"]})))
print(" ".join(sorted(p["kind"] for p in report["problems"])))
PY
)
where() { for n in "$@"; do echo "$WORK:${PORT[$n]}/postgres"; done | sort | tr '\n' ' ' | sed 's/ $//'; }
expected_servers=$(where c01 c02 c03 c04 c05 c21 c22)
read -r -d '' expected_kinds <<EOF || true
machine_not_claimed machine_not_claimed machine_shared machine_shared machine_source machine_unregistered node_elsewhere node_elsewhere node_shared node_shared node_source node_unregistered
EOF
check "the audit exits $rc ($rc_json with --json), naming exactly the pairs and c22" \
  '[ "$rc" = 1 ] && [ "$rc_json" = 1 ] && [ "$(head -n 1 <<<"$named")" = "$expected_servers" ]'
check "... as the problems they are: $(tail -n 1 <<<"$named")" '[ "$(tail -n 1 <<<"$named")" = "$expected_kinds" ]'
check "... the shared node value and bytes by pair" \
  'grep -q "node value $(node_of h01) is live on 2 servers: " "$WORK/audit1.out" &&
   grep -q "Hot Guid machine bytes .* are live on 2 servers: " "$WORK/audit1.out" &&
   grep -q "node value $(node_of h05) is live on 2 servers: " "$WORK/audit1.out"'

# A server that cannot be reached is a problem of its own.
echo "host=$WORK port=$(free_port) user=postgres dbname=postgres" >>"$WORK/targets"
rc=0; audit >"$WORK/audit-unreachable.out" || rc=$?
check "... and a server that cannot be reached is listed too (exit $rc)" \
  '[ "$rc" = 1 ] && grep -q ": could not connect: " "$WORK/audit-unreachable.out"'

# Fixed as doc/fleets.md says: each host claims (again) for its own data
# directory and reloads; c22 leaves the fleet.
host_claim h02 "$WORK/c02"
host_claim h04 "$WORK/c04"
host_claim h21 "$WORK/c21"
for n in c02 c04 c21; do q "$n" -c "SELECT pg_reload_conf()" >/dev/null; done
sleep 1
targets "${names[@]}" c21
rc=0; audit >"$WORK/audit2.out" || rc=$?
check "fixed by claims and reloads: the audit exits $rc, no problems ($(tail -n 1 "$WORK/audit2.out"))" \
  '[ "$rc" = 0 ] && grep -q "^no problems: 21 servers" "$WORK/audit2.out"'

# A second cluster on host h01, given h01's node file: the audit names
# the same host (the digests match), both sides' label and digest, and
# which one keeps the value (review first-day-1.3, finding 4).
PORT[c23]=$(small | init_server "$WORK/c23" "$WORK")
echo "include '$WORK/hosts/h01/node.conf'" >>"$WORK/c23/postgresql.conf"
pgctl c23 start
q c23 -c "CREATE EXTENSION locality_uuid"
targets c01 c23
rc=0; audit >"$WORK/audit-same-host.out" || rc=$?
digest=$(python3 -c "import hashlib,sys; print(hashlib.md5(open(sys.argv[1],'rb').read().split(b'\n')[0]).hexdigest()[:16])" "$WORK/hosts/h01/id")
check "a second cluster given its host's node file: '... on the same host', both digests, the keeper named (exit $rc)" \
  '[ $rc = 1 ] && grep -q "$WORK:${PORT[c23]}/postgres: node value $(node_of h01) is claimed for host-h01-[0-9]* (digest $digest), data directory $WORK/c01; this server is on the same host, data directory $WORK/c23: a copy of that data directory, or a second cluster given its node file" "$WORK/audit-same-host.out" &&
   grep -q "fix: $WORK:${PORT[c01]}/postgres keeps node value $(node_of h01) (the registry.s claim); $WORK:${PORT[c23]}/postgres needs a value of its own" "$WORK/audit-same-host.out" &&
   grep -q "^2 problems:$\|^[0-9]* problems:$" "$WORK/audit-same-host.out"'
pgctl c23 stop -m fast

# A clone of c01 that keeps its host identity and data directory path (a VM
# image started as a second machine): c24's files mounted at c01's path in
# a mount namespace of its own. Both match the claim; a claim on the
# clone's host would return the same value, so the fix says to give it a
# host identity of its own first (review of 1.3's docs).
if unshare -m true 2>/dev/null; then
  pgctl c01 stop -m fast
  cp -a "$WORK/c01" "$WORK/c24"
  PORT[c24]=$(free_port)
  echo "port = ${PORT[c24]}" >>"$WORK/c24/postgresql.conf"
  pgctl c01 start
  unshare -m sh -c 'mount --bind "$1" "$2" && exec runuser -u postgres -- "$3/pg_ctl" -D "$2" -l "$4" -w start' \
    sh "$WORK/c24" "$WORK/c01" "$BIN" "$WORK/c24.log" >/dev/null
  dirs=$(q c01 -c "SELECT data_directory FROM locality_uuid_binding()")/$(q c24 -c "SELECT data_directory FROM locality_uuid_binding()")
  targets c01 c24
  failures_before_clone=$failures
  rc=0; audit >"$WORK/audit-clone.out" || rc=$?
  check "a clone keeping host identity and path ($dirs): both match the claim, the fix asks for a host identity of its own first (exit $rc)" \
    '[ $rc = 1 ] && [ "$dirs" = "$WORK/c01/$WORK/c01" ] &&
     grep -q "fix: $WORK:${PORT[c01]}/postgres, $WORK:${PORT[c24]}/postgres all match the registry.s claim of node value $(node_of h01) (one host identity and data directory" "$WORK/audit-clone.out" &&
     grep -q "give each other one a host identity of its own (a new line in its locality_uuid.host_identity_file, or a new /etc/machine-id), then node claim on its host and restart it" "$WORK/audit-clone.out" &&
     ! grep -q "keeps node value" "$WORK/audit-clone.out"'
  [ "$failures" = "$failures_before_clone" ] || cat "$WORK/audit-clone.out"
  as_postgres "$BIN/pg_ctl" -D "$WORK/c24" -m fast -w stop >/dev/null
else
  echo "not run here: a clone at its origin's path needs a mount namespace (unshare -m)"
fi

# --- fleet scan ---------------------------------------------------------------------------
echo; echo "== fleet scan"
q c01 -c "CREATE TABLE orders AS SELECT locality_uuid_at('2026-01-01'::timestamptz + i * interval '1 minute') AS id
          FROM generate_series(1, 1000) i"
q c01 -c "INSERT INTO orders SELECT locality_uuid_at('2025-06-01'::timestamptz) FROM generate_series(1, 10)"
scan=$("$CLI" fleet scan --dsn "$(dsn c01)" --table orders --column id --registry "$REG")
check "fleet scan lists the table's node value with its ids, first and last time and claim: $(tail -n 1 <<<"$scan")" \
  'grep -Eq "^ +$(node_of h01) +1010 +2025-06-01T00:00:00.000Z +2026-01-01T16:40:00.000Z +host-h01-" <<<"$scan"'
# A partitioned table: each partition read (ONLY each, under one lock).
q c01 -c "CREATE TABLE porders (id uuid, k int) PARTITION BY RANGE (k)" \
  -c "CREATE TABLE porders_1 PARTITION OF porders FOR VALUES FROM (0) TO (500)" \
  -c "CREATE TABLE porders_2 PARTITION OF porders FOR VALUES FROM (500) TO (1000)" \
  -c "INSERT INTO porders SELECT locality_uuid(), g FROM generate_series(0, 999) g" >/dev/null
scan=$("$CLI" fleet scan --dsn "$(dsn c01)" --table porders --column id)
check "fleet scan of a partitioned table reads both partitions: $(tail -n 1 <<<"$scan" | tr -s ' ')" \
  'grep -Eq "^ +$(node_of h01) +1000 " <<<"$scan"'
# A materialized view (LOCK TABLE takes none: read under its own lock).
q c01 -c "CREATE MATERIALIZED VIEW orders_mv AS SELECT id FROM orders" >/dev/null
scan=$("$CLI" fleet scan --dsn "$(dsn c01)" --table orders_mv --column id)
check "fleet scan of a materialized view: $(tail -n 1 <<<"$scan" | tr -s ' ')" \
  'grep -Eq "^ +$(node_of h01) +1010 +2025-06-01T00:00:00.000Z +2026-01-01T16:40:00.000Z" <<<"$scan"'
# A value no claim holds: listed as such, exit 1. (The scan reads the
# bytes: no extension needed in the database it reads.)
unheld=$(psql -X -q -At -h "$WORK" -p "${PORT[reg]}" -U postgres -d postgres -c \
  "SELECT min(n) FROM generate_series(200000000, 200001000) n WHERE n NOT IN (SELECT node_id FROM locality_uuid_registry_private.nodes)")
h=$(printf %07x "$unheld")
q c01 -c "CREATE DATABASE bare" >/dev/null
psql -X -q -h "$WORK" -p "${PORT[c01]}" -U postgres -d bare -c "CREATE TABLE t AS SELECT '00000001-0000-b${h:0:3}-${h:3:4}-0190a0000000'::uuid AS id, 'x'::text AS label"
rc=0; scan=$("$CLI" fleet scan --dsn "host=$WORK port=${PORT[c01]} user=postgres dbname=bare" --table t --column id --registry "$REG" --sample 100) || rc=$?
check "fleet scan of a database without the extension: node $unheld, not in the registry, exit $rc" \
  '[ $rc = 1 ] && grep -Eq "^ +$unheld +1 +.* not in the registry$" <<<"$scan"'
# What it will not read: a view (its body runs as the scanner), a column
# that is not a uuid.
q c01 -c "CREATE VIEW orders_view AS SELECT id FROM orders" >/dev/null
rc=0; out=$("$CLI" fleet scan --dsn "$(dsn c01)" --table orders_view --column id 2>&1) || rc=$?
check "fleet scan refuses a view (exit $rc): $out" '[ $rc = 1 ] && grep -q "orders_view is or holds another kind of relation (pg_class.relkind .v.)" <<<"$out"'
rc=0; out=$("$CLI" fleet scan --dsn "host=$WORK port=${PORT[c01]} user=postgres dbname=bare" --table t --column label 2>&1) || rc=$?
check "... and a column that is not a uuid (exit $rc): $out" '[ $rc = 1 ] && [ "$out" = "locality-uuid: column label of t is not of type uuid" ]'
# What planning the read would run with the scanner's rights (issue #50):
# a table owner's IMMUTABLE function, which counts its calls, in an index
# expression, an index predicate (through an operator of its own), a CHECK
# constraint, a partition key (the parent's and a partition's own read)
# and an expression statistics object (14+). Each refused with the call
# named, and the trap never runs during any scan (its count read after the
# index builds, which call it); a table without such code is read as
# before.
q c01 -c "CREATE ROLE tenant LOGIN" -c "CREATE SCHEMA scantrap AUTHORIZATION tenant" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -h "$WORK" -p "${PORT[c01]}" -U tenant -d postgres <<'SQL'
CREATE SEQUENCE scantrap.ran;
CREATE FUNCTION scantrap.k() RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$BEGIN PERFORM nextval('scantrap.ran'); RETURN 0; END$$;
CREATE FUNCTION scantrap.eq(int, int) RETURNS bool IMMUTABLE LANGUAGE plpgsql AS $$BEGIN PERFORM nextval('scantrap.ran'); RETURN $1 = $2; END$$;
CREATE OPERATOR scantrap.=== (LEFTARG = int, RIGHTARG = int, FUNCTION = scantrap.eq);
CREATE TABLE scantrap.by_index (id uuid, n int);
CREATE INDEX ON scantrap.by_index ((n + scantrap.k()));
CREATE TABLE scantrap.by_predicate (id uuid, n int);
CREATE INDEX ON scantrap.by_predicate (n) WHERE n OPERATOR(scantrap.===) 1;
CREATE TABLE scantrap.by_check (id uuid, n int CONSTRAINT n_ok CHECK (n > scantrap.k()));
CREATE TABLE scantrap.by_key (id uuid, n int) PARTITION BY RANGE ((n + scantrap.k()));
CREATE TABLE scantrap.by_key_1 PARTITION OF scantrap.by_key FOR VALUES FROM (0) TO (10);
CREATE TABLE scantrap.plain (id uuid, n int);
CREATE INDEX ON scantrap.plain (n);
SQL
traps="by_index|index scantrap.by_index_expr_idx calls function scantrap.k()
by_predicate|index scantrap.by_predicate_n_idx calls operator scantrap.===(integer,integer)
by_check|constraint n_ok of scantrap.by_check calls function scantrap.k()
by_key|the partition key of scantrap.by_key calls function scantrap.k()
by_key_1|the partition key of scantrap.by_key calls function scantrap.k()"
if [ "$PG_MAJOR" -ge 14 ]; then
  psql -X -q -v ON_ERROR_STOP=1 -h "$WORK" -p "${PORT[c01]}" -U tenant -d postgres \
    -c "CREATE TABLE scantrap.by_statistics (id uuid, n int)" \
    -c "CREATE STATISTICS scantrap.st ON (n + scantrap.k()), n FROM scantrap.by_statistics"
  traps="$traps
by_statistics|statistics object st calls function scantrap.k()"
fi
# The scans run as a superuser, then as doc/fleets.md's auditor login (a
# pg_monitor member), to whom the tenant grants the reads.
q c01 -c "CREATE ROLE scanner LOGIN IN ROLE pg_monitor" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -h "$WORK" -p "${PORT[c01]}" -U tenant -d postgres \
  -c "GRANT USAGE ON SCHEMA scantrap TO scanner" -c "GRANT SELECT ON ALL TABLES IN SCHEMA scantrap TO scanner"
ran_before=$(q c01 -c "SELECT last_value FROM scantrap.ran")
for scanner in postgres scanner; do
  while IFS='|' read -r table said; do
    rc=0; out=$("$CLI" fleet scan --dsn "$(dsn c01) user=$scanner" --table "scantrap.$table" --column id 2>&1) || rc=$?
    check "fleet scan as $scanner refuses scantrap.$table, whose planning would run the tenant's code (exit $rc): $out" \
      '[ $rc = 1 ] && grep -qF "locality-uuid: fleet scan will not read scantrap.$table: planning the read would run code of its owner'"'"'s with the scanner'"'"'s rights: " <<<"$out" && grep -qF "$said" <<<"$out"'
  done <<<"$traps"
  rc=0; out=$("$CLI" fleet scan --dsn "$(dsn c01) user=$scanner" --table scantrap.plain --column id 2>&1) || rc=$?
  check "... as $scanner, a table without such code is read (exit $rc)" '[ $rc = 0 ] && [[ $out == *node*ids*first*last* ]]'
done
ran_after=$(q c01 -c "SELECT last_value FROM scantrap.ran")
check "... the trap never ran in those scans, a superuser's or a pg_monitor member's (count $ran_before, then $ran_after)" \
  '[ "$ran_before" = "$ran_after" ]'


# --- what other roles can do (issue #42) --------------------------------------------------
echo; echo "== roles: a provisioner, an auditor, a tenant"
# doc/fleets.md's roles on a registry database of their own: its owner
# (creates the registry), a provisioner that may only claim, an auditor
# that may only read (and mark last_seen), and mallory, who may create in
# public (PostgreSQL 14 and before give every role that).
rq -c "CREATE ROLE regowner LOGIN" -c "CREATE ROLE prov LOGIN" -c "CREATE ROLE aud LOGIN IN ROLE pg_monitor" \
   -c "CREATE ROLE mallory LOGIN" -c "CREATE DATABASE reg2 OWNER regowner" >/dev/null
r2q() { psql -X -q -At -v ON_ERROR_STOP=1 -h "$WORK" -p "${PORT[reg]}" -U "${1:-postgres}" -d reg2 "${@:2}"; }
r2q postgres -c "GRANT CREATE ON SCHEMA public TO mallory" -c "CREATE SCHEMA trap AUTHORIZATION mallory" >/dev/null
r2q mallory -c "CREATE SEQUENCE trap.ran" -c "GRANT USAGE ON SCHEMA trap TO PUBLIC" -c "GRANT USAGE ON SEQUENCE trap.ran TO PUBLIC"
R2="host=$WORK port=${PORT[reg]} dbname=reg2"
trap_ran() { r2q postgres -c "SELECT is_called FROM trap.ran"; }
# Review 1.3 finding 2: a public.nextval(text) and pg_advisory_xact_lock(int4)
# planted before the registry exists, that hand out node 1 again and
# take the registry.
r2q mallory <<'SQL'
CREATE FUNCTION public.nextval(text) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN PERFORM pg_catalog.nextval('trap.ran');
  EXECUTE 'GRANT ALL ON SCHEMA locality_uuid_registry, locality_uuid_registry_private TO mallory';
  DELETE FROM locality_uuid_registry_private.nodes WHERE node_id = 1; RETURN 1; END $$;
CREATE FUNCTION public.pg_advisory_xact_lock(int4) RETURNS void LANGUAGE plpgsql AS $$
BEGIN PERFORM pg_catalog.nextval('trap.ran'); END $$;
SQL
r2q postgres -c "ALTER ROLE regowner SET search_path = \"\$user\", public, pg_catalog" \
   -c "ALTER ROLE prov SET search_path = \"\$user\", public, pg_catalog" -c "ALTER ROLE aud SET search_path = \"\$user\", public, pg_catalog"
claim2() {  # claim2 ROLE HOST [OPTIONS...]
  local role=$1 host=$2; shift 2
  "$CLI" node claim --registry "$R2 user=$role" --host-id "$host" --data-directory /d --write "$WORK/r2-$host.conf" "$@"
}
a=$(claim2 regowner hostA | head -n 1); b=$(claim2 regowner hostB | head -n 1); c=$(claim2 regowner hostC | head -n 1)
check "claims under a path where public.nextval(text) and pg_advisory_xact_lock(int4) wait: $a / $b / $c" \
  '[[ "$a" == "node 1,"* ]] && [[ "$b" == "node 2,"* ]] && [[ "$c" == "node 3,"* ]] && [ "$(trap_ran)" = f ] &&
   [ "$(r2q postgres -c "SELECT count(*) FROM locality_uuid_registry_private.nodes")" = 3 ] &&
   [ "$(r2q postgres -c "SELECT has_schema_privilege('"'mallory'"', '"'locality_uuid_registry'"', '"'USAGE'"')")" = f ] &&
   [ "$(r2q postgres -c "SELECT has_schema_privilege('"'mallory'"', '"'locality_uuid_registry_private'"', '"'USAGE'"')")" = f ]'
# The provisioner: refused without --registry-owner (the registry is not
# its own), refused without the grants, then claims with them; it cannot
# write a row itself.
rc=0; out=$(claim2 prov hostP 2>&1) || rc=$?
check "a provisioner without --registry-owner is refused (exit $rc): $out" \
  '[ $rc = 1 ] && [ "$out" = "locality-uuid: the registry is owned by role regowner, not role prov: if role regowner is its owner, pass --registry-owner regowner" ]'
rc=0; out=$(claim2 prov hostP --registry-owner regowner 2>&1) || rc=$?
check "... and without the grants (exit $rc): $out" '[ $rc = 1 ] && grep -qE "42501: permission denied for schema locality_uuid_registry([^_]|$)" <<<"$out"'
# doc/fleets.md's GRANT blocks, as run there.
grants=$(sed -n '/<!-- grants-provisioner -->/,/<!-- \/grants-provisioner -->/p;/<!-- grants-auditor -->/,/<!-- \/grants-auditor -->/p' \
           "$ROOT/doc/fleets.md" | grep -v '^<!--\|^```' | sed 's/\bprovisioner\b/prov/g; s/\bauditor\b/aud/g')
r2q regowner -c "$grants" >/dev/null
out=$(claim2 prov hostP --registry-owner regowner | head -n 1)
check "... and with doc/fleets.md's grants it claims: $out" '[[ "$out" == "node 4, "*"a new claim for hostP"* ]]'
# (Nor names a table: layout 3 keeps them where no other role has USAGE.)
rc=0; out=$(r2q prov -c "INSERT INTO locality_uuid_registry_private.nodes VALUES (7, 'x', '\\x000000', md5('x'), 'x', '/x')" 2>&1) || rc=$?
rc2=0; out2=$(r2q prov -c "INSERT INTO locality_uuid_registry.nodes VALUES (7, 'x', '\\x000000', md5('x'), 'x', '/x')" 2>&1) || rc2=$?
check "... but writes no row itself, nor names the tables (exit $rc, $rc2), and reads them through holders()" \
  '[ $rc != 0 ] && grep -q "permission denied for schema locality_uuid_registry_private" <<<"$out" &&
   [ $rc2 != 0 ] && grep -q "relation \"locality_uuid_registry.nodes\" does not exist" <<<"$out2" &&
   [ "$(r2q prov -c "SELECT count(*) FROM locality_uuid_registry.holders('"'{1,2,3,4}'"', '"'{}'"', '"'{}'"')")" = 4 ]'
# Adopting a value a server already has (README's Quick start: 17), and
# its refusal when the registry has it.
out=$(claim2 prov hostQ --registry-owner regowner --node-id 17 --machine-name db17 | head -n 1)
check "--node-id adopts a value the registry never had: $out" '[[ "$out" == "node 17, machine name db17 (bytes "*"a new claim for hostQ"* ]]'
rc=0; out=$(claim2 prov hostR --registry-owner regowner --node-id 17 2>&1) || rc=$?
check "... and refuses one it has (exit $rc): $out" \
  '[ $rc = 1 ] && grep -qF "node value 17 is already in the registry. It is claimed for hostQ, data directory /d; a value is never handed out twice." <<<"$out"'
# Review finding 6: a registry another role created first (with a
# trigger that pins node 7) is refused before any claim.
r2q postgres -c "CREATE DATABASE reg3 OWNER regowner" -c "GRANT CREATE ON DATABASE reg3 TO mallory" >/dev/null 2>&1 || true
psql -X -q -v ON_ERROR_STOP=1 -h "$WORK" -p "${PORT[reg]}" -U mallory -d reg3 <<'SQL'
CREATE SCHEMA locality_uuid_registry;
CREATE SEQUENCE locality_uuid_registry.node_values AS integer MINVALUE 1 MAXVALUE 268435455 NO CYCLE;
CREATE TABLE locality_uuid_registry.nodes (node_id integer, machine_name text, machine_bytes bytea, host_id text,
  host_label text, data_directory text, adopted boolean DEFAULT false, claimed_at timestamptz DEFAULT now(),
  last_seen timestamptz, retired_at timestamptz);
CREATE FUNCTION locality_uuid_registry.pin() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN NEW.node_id := 7; NEW.machine_name := 'lu-7'; RETURN NEW; END $$;
CREATE TRIGGER pin BEFORE INSERT ON locality_uuid_registry.nodes FOR EACH ROW EXECUTE FUNCTION locality_uuid_registry.pin();
SQL
R3="host=$WORK port=${PORT[reg]} dbname=reg3"
rc=0; out=$("$CLI" node claim --registry "$R3 user=regowner" --host-id h1 --data-directory /pg --write "$WORK/r3.conf" 2>&1) || rc=$?
check "a registry mallory made first is refused (exit $rc): $out" \
  '[ $rc = 1 ] && [ ! -e "$WORK/r3.conf" ] && grep -q "the registry is owned by role mallory, not role regowner" <<<"$out"'
rc=0; out=$("$CLI" node claim --registry "$R3 user=regowner" --registry-owner mallory --host-id h1 --data-directory /pg --write "$WORK/r3.conf" 2>&1) || rc=$?
check "... and, trusting its owner, for what it lacks (exit $rc)" \
  '[ $rc = 1 ] && [ ! -e "$WORK/r3.conf" ] && grep -q "table nodes has trigger pin" <<<"$out" &&
   grep -q "table nodes has no unique constraint on (node_id)" <<<"$out" && grep -q "table claims is missing" <<<"$out"'
# Rows other roles may write, or that a trigger rewrites, in the owner's
# own registry.
r2q regowner -c "GRANT INSERT ON locality_uuid_registry_private.nodes TO mallory" >/dev/null
rc=0; out=$(claim2 regowner hostD 2>&1) || rc=$?
check "the owner's registry is refused while mallory may insert into it (exit $rc)" \
  '[ $rc = 1 ] && grep -q "role mallory has INSERT on table nodes" <<<"$out"'
r2q regowner -c "REVOKE INSERT ON locality_uuid_registry_private.nodes FROM mallory" >/dev/null
# Grants that decide node values as surely (review of 1.3's trust check):
# a column grant, nextval on the values' sequence, the internal functions,
# a delegation to PUBLIC. Each refused, then revoked.
while IFS='|' read -r grant said; do
  r2q regowner -c "GRANT $grant" >/dev/null
  rc=0; out=$(claim2 regowner hostD 2>&1) || rc=$?
  check "... and while GRANT $grant (exit $rc)" '[ $rc = 1 ] && grep -qF "$said" <<<"$out"'
  r2q regowner -c "REVOKE ${grant/ TO / FROM }" >/dev/null
done <<'GRANTS'
UPDATE (host_id, data_directory) ON locality_uuid_registry_private.nodes TO mallory|role mallory has UPDATE on column nodes.host_id
USAGE ON SEQUENCE locality_uuid_registry_private.node_values TO mallory|role mallory has USAGE on sequence node_values
EXECUTE ON FUNCTION locality_uuid_registry_private.insert_node(integer, text, text, text, text, text) TO mallory|role mallory has EXECUTE on function locality_uuid_registry_private.insert_node(
EXECUTE ON FUNCTION locality_uuid_registry.claim(text, text, text, integer, text) TO PUBLIC|role PUBLIC has EXECUTE on function locality_uuid_registry.claim(
USAGE ON SCHEMA locality_uuid_registry_private TO mallory|role mallory has USAGE on schema locality_uuid_registry_private
GRANTS
# A view in the roles' schema (the owner's own): they could name it, and
# lock the tables behind it from parse time. Refused, then dropped.
r2q regowner -c "CREATE VIEW locality_uuid_registry.live AS SELECT node_id FROM locality_uuid_registry_private.nodes" >/dev/null
rc=0; out=$(claim2 regowner hostD 2>&1) || rc=$?
check "... and while a view is in the roles' schema (exit $rc)" \
  '[ $rc = 1 ] && grep -qF "view live is in schema locality_uuid_registry, which other roles may use: move it to locality_uuid_registry_private" <<<"$out"'
r2q regowner -c "DROP VIEW locality_uuid_registry.live" >/dev/null
# The readers may be PUBLIC's, as SELECT on the tables could be.
readers="locality_uuid_registry.nodes(), locality_uuid_registry.budget(), locality_uuid_registry.holders(integer[], text[], bytea[])"
r2q regowner -c "GRANT EXECUTE ON FUNCTION $readers TO PUBLIC" >/dev/null
rc=0; out=$("$CLI" fleet registry --registry "$R2 user=regowner" 2>&1) || rc=$?
check "... while PUBLIC may call the readers (read-only, as SELECT was), trusted (exit $rc): $out" '[ $rc = 0 ]'
r2q regowner -c "REVOKE EXECUTE ON FUNCTION $readers FROM PUBLIC" >/dev/null
# The owner's default privileges (schemas, tables, sequences, functions to
# mallory): the registry made under them gives mallory nothing in its
# private schema, and is trusted.
r2q postgres -c "CREATE DATABASE reg6 OWNER regowner" >/dev/null
defaults="GRANT USAGE, CREATE ON SCHEMAS TO mallory; GRANT ALL ON TABLES TO mallory; GRANT ALL ON SEQUENCES TO mallory; GRANT EXECUTE ON FUNCTIONS TO mallory"
psql -X -q -h "$WORK" -p "${PORT[reg]}" -U regowner -d reg6 -c "ALTER DEFAULT PRIVILEGES ${defaults//; / ; ALTER DEFAULT PRIVILEGES }" >/dev/null
rc=0; out=$("$CLI" fleet registry --registry "host=$WORK port=${PORT[reg]} dbname=reg6 user=regowner" 2>&1) || rc=$?
given=$(psql -X -At -h "$WORK" -p "${PORT[reg]}" -U postgres -d reg6 -c "SELECT has_schema_privilege('mallory', 'locality_uuid_registry_private', 'USAGE')
  || ' ' || has_table_privilege('mallory', 'locality_uuid_registry_private.nodes', 'INSERT')
  || ' ' || has_sequence_privilege('mallory', 'locality_uuid_registry_private.node_values', 'USAGE')
  || ' ' || has_function_privilege('mallory', 'locality_uuid_registry_private.next_node()', 'EXECUTE')
  || ' ' || has_function_privilege('mallory', 'locality_uuid_registry.lease(text, text, text, text, timestamptz)', 'EXECUTE')
  || ' ' || has_function_privilege('mallory', 'locality_uuid_registry.nodes()', 'EXECUTE')
  || ' ' || has_schema_privilege('mallory', 'locality_uuid_registry', 'USAGE')" 2>/dev/null || echo none)
check "a registry made under the owner's default privileges to mallory: trusted (exit $rc), mallory given nothing ($given): $out" \
  '[ $rc = 0 ] && [ "$given" = "false false false false false false false" ]'
psql -X -q -h "$WORK" -p "${PORT[reg]}" -U regowner -d reg6 -c "ALTER DEFAULT PRIVILEGES REVOKE USAGE, CREATE ON SCHEMAS FROM mallory" -c "ALTER DEFAULT PRIVILEGES REVOKE ALL ON TABLES FROM mallory" \
  -c "ALTER DEFAULT PRIVILEGES REVOKE ALL ON SEQUENCES FROM mallory" -c "ALTER DEFAULT PRIVILEGES REVOKE EXECUTE ON FUNCTIONS FROM mallory" >/dev/null
# A private schema another role made first: the registry is not created.
r2q postgres -c "CREATE DATABASE reg5 OWNER regowner" -c "GRANT CREATE ON DATABASE reg5 TO mallory" >/dev/null
psql -X -q -h "$WORK" -p "${PORT[reg]}" -U mallory -d reg5 -c "CREATE SCHEMA locality_uuid_registry_private" >/dev/null
rc=0; out=$("$CLI" node claim --registry "host=$WORK port=${PORT[reg]} dbname=reg5 user=regowner" --host-id h1 --data-directory /pg --write "$WORK/r5.conf" 2>&1) || rc=$?
check "a private schema mallory made first: the registry is not made (exit $rc): $out" \
  '[ $rc = 1 ] && [ ! -e "$WORK/r5.conf" ] && grep -qF "could not create the registry: 42P06: schema \"locality_uuid_registry_private\" already exists" <<<"$out" &&
   [ "$(psql -X -At -h "$WORK" -p "${PORT[reg]}" -U postgres -d reg5 -c "SELECT to_regnamespace('"'"'locality_uuid_registry'"'"') IS NULL")" = t ]'
# Predefined roles that write or lock every table with no grant on it
# (issue #50): pg_write_all_data (14+) made a member directly, and through
# a group role (the REVOKE names the group); pg_maintain (17+). A major
# without the role has nothing to refuse.
if [ "$PG_MAJOR" -ge 14 ]; then
  r2q postgres -c "CREATE ROLE etl_group NOLOGIN" -c "GRANT etl_group TO mallory" >/dev/null
  for how in mallory etl_group; do
    r2q postgres -c "GRANT pg_write_all_data TO $how" >/dev/null
    rc=0; out=$(claim2 regowner hostD 2>&1) || rc=$?
    check "... and while $how is a member of pg_write_all_data (exit $rc)" \
      '[ $rc = 1 ] && grep -qF "role $how is a member of pg_write_all_data, which may write every table and sequence: REVOKE pg_write_all_data FROM $how" <<<"$out"'
    r2q postgres -c "REVOKE pg_write_all_data FROM $how" >/dev/null
  done
  if [ "$PG_MAJOR" -ge 17 ]; then
    r2q postgres -c "GRANT pg_maintain TO mallory" >/dev/null
    rc=0; out=$(claim2 regowner hostD 2>&1) || rc=$?
    check "... and while mallory is a member of pg_maintain (exit $rc)" \
      '[ $rc = 1 ] && grep -qF "role mallory is a member of pg_maintain, which may lock every table: REVOKE pg_maintain FROM mallory" <<<"$out"'
    r2q postgres -c "REVOKE pg_maintain FROM mallory" >/dev/null
  fi
  # pg_read_all_data may use every schema, the private one too: fleet
  # registry warns, naming the member (backups need the role), and the
  # registry stays trusted; the owner's members and superusers are not named.
  r2q postgres -c "CREATE ROLE backup_reader NOLOGIN" -c "CREATE ROLE owner_reader NOLOGIN IN ROLE regowner" \
    -c "GRANT pg_read_all_data TO backup_reader, owner_reader, postgres" >/dev/null
  rc=0; warned=$("$CLI" fleet registry --registry "$R2 user=regowner" 2>&1 >/dev/null) || rc=$?
  check "a member of pg_read_all_data: fleet registry warns, naming it alone (exit $rc): $warned" \
    '[ $rc = 0 ] && [ "$warned" = "locality-uuid: warning: backup_reader may read every table and use every schema (pg_read_all_data), the registry'"'"'s private one too: a lock such a role holds there, and a request queued behind it, can delay every lease and claim; give pg_read_all_data to backups only (doc/fleets.md, \"Who may do what\")" ]'
  r2q postgres -c "REVOKE pg_read_all_data FROM backup_reader, owner_reader, postgres" >/dev/null
  # The owner's own members and superusers act as the owner already.
  r2q postgres -c "CREATE ROLE owner_member NOLOGIN IN ROLE regowner" -c "GRANT pg_write_all_data TO owner_member, postgres" >/dev/null
fi
# The database's owner, not the registry's: ANALYZE needs no grant and no
# USAGE on the schema, and inside a transaction it holds the lock every
# lease and claim takes (shown first), so the registry is refused until the
# database is the registry owner's.
r2q postgres -c "ALTER DATABASE reg2 OWNER TO mallory" >/dev/null
exec 8> >(psql -X -q -h "$WORK" -p "${PORT[reg]}" -U mallory -d reg2 >/dev/null 2>&1)
echo "BEGIN; ANALYZE;" >&8
held=""
holds_nodes() {
  held=$(r2q postgres -c "SELECT l.mode FROM pg_locks l JOIN pg_stat_activity a USING (pid)
                          WHERE a.usename = 'mallory' AND l.granted AND l.relation = 'locality_uuid_registry_private.nodes'::regclass")
  [ -n "$held" ]
}
poll 30 holds_nodes || true
exec 8>&-
rc=0; out=$(claim2 regowner hostD 2>&1) || rc=$?
check "... and while reg2 is owned by mallory, whose BEGIN; ANALYZE; held $held on nodes (exit $rc)" \
  '[ "$held" = ShareUpdateExclusiveLock ] && [ $rc = 1 ] &&
   grep -qF "database reg2 is owned by role mallory, who may ANALYZE the registry'"'"'s tables inside a transaction and hold the lock every lease and claim takes: ALTER DATABASE reg2 OWNER TO regowner" <<<"$out"'
r2q postgres -c "ALTER DATABASE reg2 OWNER TO regowner" >/dev/null
out=$(claim2 regowner hostD 2>&1 | head -n 1)
check "... and, every grant revoked, it claims (the owner's member and a superuser in pg_write_all_data): $out" '[[ $out == "node "*"a new claim for hostD"* ]]'
[ "$PG_MAJOR" -lt 14 ] || r2q postgres -c "REVOKE pg_write_all_data FROM owner_member, postgres" >/dev/null
# A registry found in place is judged before fleet registry changes it: a
# layout-1 registry whose tables mallory may write (1.3-era grants) and
# where she put a trigger. Refused with nothing changed: her trigger never
# ran with the owner's rights, the layout is still 1.
r2q postgres -c "CREATE DATABASE reg4 OWNER regowner" >/dev/null
r4q() { psql -X -q -At -v ON_ERROR_STOP=1 -h "$WORK" -p "${PORT[reg]}" -U "$1" -d reg4 "${@:2}"; }
PGOPTIONS="-c search_path=pg_catalog,pg_temp" r4q regowner -f "$ROOT/test/integration/lib/registry_layout1.sql" >/dev/null
r4q regowner -c "GRANT USAGE ON SCHEMA locality_uuid_registry TO mallory" \
  -c "GRANT ALL ON ALL TABLES IN SCHEMA locality_uuid_registry TO mallory" >/dev/null
r4q postgres -c "CREATE SCHEMA m AUTHORIZATION mallory" >/dev/null
r4q mallory -c "CREATE TABLE m.ran (x int)" -c "GRANT USAGE ON SCHEMA m TO PUBLIC" -c "GRANT INSERT ON m.ran TO PUBLIC" \
  -c 'CREATE FUNCTION m.t() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN INSERT INTO m.ran VALUES (1); RETURN NULL; END$$' \
  -c "CREATE TRIGGER t BEFORE INSERT OR UPDATE OR DELETE ON locality_uuid_registry.claims FOR EACH STATEMENT EXECUTE FUNCTION m.t()" \
  -c "CREATE TRIGGER t BEFORE INSERT OR UPDATE OR DELETE ON locality_uuid_registry.nodes FOR EACH STATEMENT EXECUTE FUNCTION m.t()" >/dev/null
rc=0; out=$("$CLI" fleet registry --registry "host=$WORK port=${PORT[reg]} dbname=reg4 user=regowner" 2>&1) || rc=$?
ran=$(r4q mallory -c "SELECT count(*) FROM m.ran")
layout=$(r4q regowner -c "SELECT obj_description('locality_uuid_registry'::regnamespace, 'pg_namespace')")
check "a layout-1 registry with mallory's trigger: fleet registry refuses before changing it (exit $rc, her trigger ran $ran times, '$layout'): $out" \
  '[ $rc = 1 ] && [ "$ran" = 0 ] && [[ $layout == *"layout 1" ]] && grep -q "nothing was changed in it: " <<<"$out" &&
   [ "$(r4q regowner -c "SELECT to_regnamespace('"'"'locality_uuid_registry_private'"'"') IS NULL")" = t ] &&
   grep -q "table claims has trigger t" <<<"$out" && grep -q "role mallory has INSERT on table nodes" <<<"$out"'

# Review finding 4: a schema named after the auditor in an audited
# database shadows locality_uuid_binding() (and reads other sessions'
# queries with pg_monitor's rights); finding 5: a database whose
# "binding" gives no row, or a NULL.
q c01 -c "CREATE ROLE aud LOGIN IN ROLE pg_monitor" -c "CREATE ROLE mallory LOGIN" -c "CREATE SCHEMA aud AUTHORIZATION mallory" \
  -c "CREATE SCHEMA trap AUTHORIZATION mallory" -c "CREATE DATABASE hostile" -c "GRANT CREATE ON SCHEMA public TO mallory" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -h "$WORK" -p "${PORT[c01]}" -U mallory -d postgres <<'SQL'
CREATE SEQUENCE trap.ran; GRANT USAGE ON SCHEMA trap TO PUBLIC; GRANT USAGE ON SEQUENCE trap.ran TO PUBLIC;
GRANT USAGE ON SCHEMA aud TO aud;
CREATE FUNCTION aud.locality_uuid_binding(OUT node int, OUT node_source text, OUT machine text, OUT machine_source text,
  OUT host text, OUT host_source text, OUT data_directory text, OUT system_identifier numeric, OUT bound_since timestamptz,
  OUT run_start int) LANGUAGE plpgsql AS $$
BEGIN PERFORM pg_catalog.nextval('trap.ran'); node := 1; node_source := 'file /etc/x.conf'; machine := '4c2f75';
  machine_source := 'file /etc/x.conf'; host := 'x'; data_directory := '/x'; system_identifier := 1; END $$;
CREATE FUNCTION aud.hot_guid_machine_name() RETURNS text LANGUAGE plpgsql AS $$
BEGIN PERFORM pg_catalog.nextval('trap.ran'); RETURN 'lu-1'; END $$;
SQL
psql -X -q -v ON_ERROR_STOP=1 -h "$WORK" -p "${PORT[c01]}" -U postgres -d hostile <<'SQL'
CREATE FUNCTION public.locality_uuid_binding(OUT node int, OUT node_source text, OUT machine text, OUT machine_source text,
  OUT host text, OUT host_source text, OUT data_directory text, OUT system_identifier numeric, OUT bound_since timestamptz,
  OUT run_start int) RETURNS SETOF record LANGUAGE sql AS $$ SELECT NULL::int, 'x', 'y', 'z', 'h', 'hs', '/d', 1::numeric, NULL::timestamptz, 0 WHERE false $$;
SQL
c01_trap() { q c01 -c "SELECT is_called FROM trap.ran"; }
sed -i "s/port=${PORT[c01]} user=postgres/port=${PORT[c01]} user=aud/" "$WORK/targets"
echo "host=$WORK port=${PORT[c01]} user=aud dbname=hostile" >>"$WORK/targets"
q c22 -c "SELECT 1" >/dev/null 2>&1 && echo "host=$WORK port=${PORT[c22]} user=postgres dbname=postgres" >>"$WORK/targets"
rc=0; "$CLI" fleet audit --registry "$REG" --registry-owner postgres --targets "$WORK/targets" >"$WORK/audit-hostile.out" 2>&1 || rc=$?
check "with the auditor's shadow schema and a database without the extension: exit $rc, every server read ($(grep -c '' "$WORK/audit-hostile.out") lines), the shadow never ran" \
  '[ $rc = 1 ] && [ "$(c01_trap)" = f ] && grep -q "$WORK:${PORT[c01]}/hostile: the locality_uuid extension is not installed in this database" "$WORK/audit-hostile.out" &&
   grep -q "^  $WORK:${PORT[c22]}/postgres: node value 999999 comes from data directory file" "$WORK/audit-hostile.out" &&
   grep -q "^    fix: " "$WORK/audit-hostile.out"'
q c01 -d hostile -c "CREATE EXTENSION locality_uuid SCHEMA public" >/dev/null 2>&1 || true
rc=0; "$CLI" fleet audit --registry "$REG" --registry-owner postgres --targets "$WORK/targets" --json >"$WORK/audit-hostile.json" 2>&1 || rc=$?
check "... and as JSON, every problem with a fix (exit $rc)" \
  '[ $rc = 1 ] && python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert all(p[\"fix\"] for p in r[\"problems\"]), r" "$WORK/audit-hostile.json"'

# The auditor's grants: the audit reads the registry and marks last_seen
# (seen(), which an audit calls for the claims it found live; the fleet's
# servers are not in reg2, so it is called here as the audit would).
rc=0; out=$("$CLI" fleet audit --registry "$R2 user=aud" --registry-owner regowner --targets "$WORK/targets" 2>&1 >/dev/null) || rc=$?
check "the auditor, with doc/fleets.md's grants, reads the registry (exit $rc: the fleet's servers are not in reg2) without a complaint: '$out'" \
  '[ $rc = 1 ] && [ -z "$out" ]'
read -r seen_node seen_host seen_dir < <(r2q postgres -F ' ' -c "SELECT node_id, host_id, data_directory FROM locality_uuid_registry_private.nodes
                                                                 WHERE retired_at IS NULL AND last_seen IS NULL ORDER BY node_id LIMIT 1")
marked=$(r2q aud -c "SELECT locality_uuid_registry.seen(ARRAY[$seen_node], ARRAY['$seen_host'], ARRAY['$seen_dir'])" 2>&1 || true)
seen=$(r2q postgres -c "SELECT count(*) FROM locality_uuid_registry_private.nodes WHERE last_seen IS NOT NULL AND node_id = $seen_node")
check "... and marks a live claim seen with them (node $seen_node: seen() returned $marked, last_seen set on $seen row)" \
  '[ "$marked" = 1 ] && [ "$seen" = 1 ]'
# The auditor's transaction left open after seen() (issue #50): it holds
# the rows it marked, and a claim again of one of them marks it seen only
# where no other transaction holds it, so the claim waits for no audit
# (revision 3 waited: with a 10 s statement timeout, 57014, exit 1).
read -r a_node a_host a_dir < <(r2q postgres -F ' ' -c "SELECT node_id, host_id, data_directory FROM locality_uuid_registry_private.nodes
                                                       WHERE host_label = 'hostA' AND data_directory = '/d' AND retired_at IS NULL")
{ r2q aud -c "BEGIN" -c "SELECT locality_uuid_registry.seen(ARRAY[$a_node], ARRAY['$a_host'], ARRAY['$a_dir'])" \
    -c "SELECT pg_sleep(120)" >/dev/null 2>&1 || true; } &
auditing=$!
held=""
for _ in $(seq 100); do
  held=$(r2q postgres -c "SELECT count(*) FROM pg_stat_activity WHERE usename = 'aud' AND query LIKE '%pg_sleep%' AND state = 'active'")
  [ "$held" = 1 ] && break; sleep 0.1
done
start=$SECONDS
rc=0; again=$(PGOPTIONS="-c statement_timeout=10s" claim2 regowner hostA 2>&1 | head -n 1) || rc=$?
took=$((SECONDS - start))
check "... with the auditor's seen() of hostA's row left open ($held), hostA claimed again at once ($took s, exit $rc): $again" \
  '[ "$held" = 1 ] && [ $rc = 0 ] && [[ $again == "node $a_node,"* ]]'
r2q postgres -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE usename = 'aud' AND state = 'active'" >/dev/null
wait $auditing || true

# --- the tool's own calls under look-alikes of each (issue #42) ----------------------------
echo; echo "== every function and operator the tool calls, planted in public and \"\$user\""
# Discovery: the plans of every statement the tool's sessions run
# (debug_print_plan for its logins), in the two servers' logs: the
# registry (reg2) and an audited server (c01).
for role in regowner prov aud; do
  r2q postgres -c "ALTER ROLE $role SET debug_print_plan = on" -c "ALTER ROLE $role SET debug_print_rewritten = on" >/dev/null
done
q c01 -c "ALTER ROLE aud SET debug_print_plan = on" -c "ALTER ROLE aud SET debug_print_rewritten = on" \
  -c "ALTER ROLE aud SET search_path = \"\$user\", public, pg_catalog" -c "GRANT CREATE ON SCHEMA public TO mallory" >/dev/null
q c01 -c "CREATE TABLE public.orders2 AS SELECT * FROM orders" -c "GRANT SELECT ON public.orders2 TO aud" >/dev/null
echo "host=$WORK port=${PORT[c01]} user=aud dbname=postgres" >"$WORK/targets-one"
run_tool() {  # the tool's commands, each kind once; their output, new or existing alike
  {
    claim2 regowner hostA | head -n 1
    claim2 regowner hostE | head -n 1
    claim2 prov hostP --registry-owner regowner | head -n 1
    claim2 prov hostQ --registry-owner regowner --node-id 17 --machine-name db17 | head -n 1
    mkdir -p "$WORK/blk"
    "$CLI" node claim --registry "$R2 user=prov" --registry-owner regowner --host-id set-x --block 2 \
      --data-directory /data --write-dir "$WORK/blk"
  } | sed 's/: a new claim/: CLAIM/; s/: the existing claim/: CLAIM/'
  "$CLI" fleet audit --registry "$R2 user=aud" --registry-owner regowner --targets "$WORK/targets-one" 2>&1 |
    sed 's/[0-9a-f]\{16\}/DIGEST/g' || true
  "$CLI" fleet scan --dsn "host=$WORK port=${PORT[c01]} user=aud dbname=postgres" --table public.orders2 --column id \
    --registry "$R2 user=aud" --registry-owner regowner 2>&1 || true
}
reg_from=$(stat -c %s "$WORK/reg.log"); c01_from=$(stat -c %s "$WORK/c01.log")
run_tool discover >"$WORK/tool-clean.out"
oids() { tail -c +"$2" "$1" | grep -oE ":($3) [0-9]+" | awk '{print $2}' | sort -un | paste -sd, -; }
# plant PSQL-COMMAND SCHEMA... : look-alikes of the logged operators and
# functions (same name, the exact argument types, and all-text arguments,
# which an unknown literal prefers), each counting in trap.ran.
plant() {
  local log=$1 from=$2 port=$3 db=$4; shift 4
  local ops fns schema
  ops=$(oids "$log" "$from" opno); fns=$(oids "$log" "$from" 'funcid|opfuncid')
  for schema in "$@"; do
    psql -X -q -At -h "$WORK" -p "$port" -U postgres -d "$db" -c "SET search_path = pg_catalog" -c "
      SELECT format(\$f\$CREATE OR REPLACE FUNCTION %I.%I(%s) RETURNS %s%s LANGUAGE plpgsql AS
        \$b\$BEGIN PERFORM pg_catalog.nextval('trap.ran'); %s END\$b\$;\$f\$,
        '$schema', p.proname, a.args, CASE WHEN p.proretset THEN 'SETOF ' ELSE '' END, format_type(p.prorettype, NULL),
        CASE WHEN p.proretset OR p.prorettype = 'void'::regtype THEN 'RETURN;' ELSE 'RETURN NULL;' END)
      FROM pg_proc p,
           LATERAL (SELECT pg_get_function_identity_arguments(p.oid) AS args
                    UNION SELECT string_agg('text', ', ') FROM unnest(p.proargtypes) WHERE p.pronargs > 0) a
      WHERE p.oid = ANY ('{$fns}'::oid[]) AND p.prokind = 'f' AND a.args IS NOT NULL
        AND NOT EXISTS (SELECT FROM unnest(p.proargtypes || p.prorettype) t JOIN pg_type y ON y.oid = t
                        WHERE y.typtype = 'p' AND y.oid NOT IN ('void'::regtype, 'record'::regtype))
        AND p.prorettype <> 'record'::regtype
      UNION ALL
      SELECT format(\$f\$CREATE OR REPLACE FUNCTION %I.op_%s(%s) RETURNS %s LANGUAGE plpgsql AS
        \$b\$BEGIN PERFORM pg_catalog.nextval('trap.ran'); RETURN NULL; END\$b\$;
        CREATE OPERATOR %I.%s (%sRIGHTARG = %s, FUNCTION = %I.op_%s);\$f\$,
        '$schema', o.oid, concat_ws(', ', CASE WHEN o.oprleft <> 0 THEN format_type(o.oprleft, NULL) END, format_type(o.oprright, NULL)),
        format_type(o.oprresult, NULL), '$schema', o.oprname,
        CASE WHEN o.oprleft <> 0 THEN format('LEFTARG = %s, ', format_type(o.oprleft, NULL)) ELSE '' END,
        format_type(o.oprright, NULL), '$schema', o.oid)
      FROM pg_operator o WHERE o.oid = ANY ('{$ops}'::oid[])
        AND NOT EXISTS (SELECT FROM pg_type y WHERE y.oid IN (o.oprleft, o.oprright, o.oprresult) AND y.typtype = 'p')" \
      >"$WORK/plant-$schema-$port.sql"
    { echo "SET search_path = pg_catalog;"; cat "$WORK/plant-$schema-$port.sql"; } |
      psql -X -q -h "$WORK" -p "$port" -U mallory -d "$db" >/dev/null 2>"$WORK/plant-$schema-$port.err" || true
  done
  echo "$(grep -o ',' <<<"$fns" | wc -l) functions and $(grep -o ',' <<<"$ops" | wc -l) operators (+1 each)"
}
q c01 -c "CREATE SCHEMA IF NOT EXISTS prov AUTHORIZATION mallory" -c "CREATE SCHEMA IF NOT EXISTS regowner AUTHORIZATION mallory" >/dev/null
r2q postgres -c "CREATE SCHEMA regowner AUTHORIZATION mallory" -c "CREATE SCHEMA prov AUTHORIZATION mallory" \
  -c "CREATE SCHEMA aud AUTHORIZATION mallory" -c "GRANT USAGE ON SCHEMA regowner, prov, aud TO PUBLIC" >/dev/null
q c01 -c "GRANT USAGE ON SCHEMA aud TO PUBLIC" >/dev/null
on_reg=$(plant "$WORK/reg.log" "$reg_from" "${PORT[reg]}" reg2 public regowner prov aud)
on_c01=$(plant "$WORK/c01.log" "$c01_from" "${PORT[c01]}" postgres public aud)
planted_reg=$(r2q postgres -c "SELECT count(*) FROM pg_proc WHERE pronamespace IN ('public'::regnamespace, 'regowner'::regnamespace, 'prov'::regnamespace, 'aud'::regnamespace)")
planted_c01=$(q c01 -c "SELECT count(*) FROM pg_proc WHERE pronamespace IN ('public'::regnamespace, 'aud'::regnamespace)")
run_tool again >"$WORK/tool-planted.out"
check "look-alikes of what the tool's plans use ($on_reg on the registry, $on_c01 on the audited server; $planted_reg and $planted_c01 planted), under paths that search them before pg_catalog: the same answers, and no plant ran" \
  '[ "$planted_reg" -gt 20 ] && [ "$planted_c01" -gt 10 ] && diff "$WORK/tool-clean.out" "$WORK/tool-planted.out" >&2 &&
   [ "$(trap_ran)" = f ] && [ "$(c01_trap)" = f ]'

echo
[ "$failures" = 0 ] && echo "all fleet checks passed" || { echo "$failures fleet checks FAILED"; exit 1; }
