#!/usr/bin/env bash
# Node values for a fleet (doc/fleets.md), on one machine: a registry in a
# throw-away cluster, clusters on simulated hosts (each a directory with its
# identity file and node file, which the cluster includes).
#
#   claims     a claim whose first machine name's MD5 bytes another row has
#              (an imported machine) takes the next name; a claimer killed
#              after its INSERT, before its COMMIT, leaves no row; then 8
#              claimers x 250 claims at once: 2,000 rows, no node value or
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
trap 'stop_servers_under "$WORK"; rm -rf "$WORK"' EXIT
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
rq -c "INSERT INTO locality_uuid_registry.nodes (node_id, machine_name, machine_bytes, host_id, host_label, data_directory)
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
echo "BEGIN; SELECT * FROM locality_uuid_registry.claims FOR UPDATE;" >&7
sleep 1
"$CLI" node claim --registry "$REG" --host-id victim --data-directory /d --write "$WORK/victim.conf" >/dev/null 2>&1 &
victim=$!
waiting=no
for _ in $(seq 100); do
  if [ "$(rq -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'locality-uuid'
                   AND wait_event_type = 'Lock' AND query LIKE 'UPDATE locality_uuid_registry.claims%'")" = 1 ]; then
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
  '[ "$waiting" = yes ] && [ "$(rq -c "SELECT count(*) FROM locality_uuid_registry.nodes WHERE host_label = '"'victim'"'")" = 0 ] && [ ! -e "$WORK/victim.conf" ]'

# 8 claimers x 250 claims at once.
claimer() {
  local c=$1 i
  for i in $(seq 250); do
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
                                                 FROM locality_uuid_registry.nodes WHERE host_label LIKE 'claimer-%'")
read -r all_bytes all_rows < <(rq -F ' ' -c "SELECT count(DISTINCT machine_bytes), count(*) FROM locality_uuid_registry.nodes")
files=$(cat "$WORK"/claims/*.conf | grep -c "^locality_uuid.node_id = " || true)
file_nodes=$(cat "$WORK"/claims/*.conf | grep "^locality_uuid.node_id = " | sort -u | wc -l)
check "8 claimers x 250 claims at once in ${took}s: $rows rows, $nodes node values, $bytes machine bytes, $names names; $files files with $file_nodes values" \
  '[ "$rows $nodes $bytes $names" = "2000 2000 2000 2000" ] && [ "$files $file_nodes" = "2000 2000" ]'
check "... and no machine bytes twice in the whole registry ($all_bytes of $all_rows rows)" '[ "$all_bytes" = "$all_rows" ]'
victim_value=$(rq -c "SELECT count(*) FROM generate_series(1, (SELECT max(node_id) FROM locality_uuid_registry.nodes
                                                                  WHERE node_id < 268435455)) v
                      WHERE v NOT IN (SELECT node_id FROM locality_uuid_registry.nodes)")
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
race_rows=$(rq -c "SELECT count(*) FROM locality_uuid_registry.nodes WHERE host_label = 'racing-host'")
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

# --- fleet scan ---------------------------------------------------------------------------
echo; echo "== fleet scan"
q c01 -c "CREATE TABLE orders AS SELECT locality_uuid_at('2026-01-01'::timestamptz + i * interval '1 minute') AS id
          FROM generate_series(1, 1000) i"
q c01 -c "INSERT INTO orders SELECT locality_uuid_at('2025-06-01'::timestamptz) FROM generate_series(1, 10)"
scan=$("$CLI" fleet scan --dsn "$(dsn c01)" --table orders --column id --registry "$REG")
check "fleet scan lists the table's node value with its ids, first and last time and claim: $(tail -n 1 <<<"$scan")" \
  'grep -Eq "^ +$(node_of h01) +1010 +2025-06-01T00:00:00.000Z +2026-01-01T16:40:00.000Z +host-h01-" <<<"$scan"'

echo
[ "$failures" = 0 ] && echo "all fleet checks passed" || { echo "$failures fleet checks FAILED"; exit 1; }
