#!/usr/bin/env bash
# Node identity a DBA can trust, on real preloaded servers.
#
#   logged    every start logs the node value and where it comes from: the
#             setting, or the MAC of an interface. The servers start in
#             network namespaces of their own (unshare -n) whose only
#             interface that is up has a MAC the test chooses: any MAC is a
#             WARNING with the fix (28 bits of a MAC are shared by two of
#             10,000 servers with probability 0.17), a locally administered
#             one (as containers and cloud VMs share) says so.
#   per host  the README's recipe: node_id in a conf.d of a configuration
#             directory outside the data directory (as Debian keeps
#             /etc/postgresql/N/main), so a standby made with
#             pg_basebackup -R has its own host's value; ALTER SYSTEM's
#             value, in the data directory, would come along with the backup.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
. "$ROOT/test/integration/lib/servers.sh"
WORK=$(mktemp -d /tmp/locality-node.XXXXXX)
chmod 755 "$WORK"
chown postgres "$WORK"
failures=0
check() { if eval "$2"; then echo "ok:   $1"; else echo "FAIL: $1"; failures=$((failures + 1)); fi; }
cleanup() {
  keep_logs_if_failed $? "$WORK"
  stop_servers_under "$WORK"
  rm -rf "$WORK"
}
trap cleanup EXIT
q() {  # q PORT PSQL-ARGS...
  local port=$1; shift
  psql -X -q -At -v ON_ERROR_STOP=1 -h "$WORK" -p "$port" -U postgres -d postgres "$@"
}

# --- the node value in the log, from the MAC of a namespace's interface ------------
# start_with_mac NAME MAC: a new preloaded server started in a network
# namespace whose one interface that is up has MAC; prints its port.
start_with_mac() {
  local data="$WORK/$1" port
  port=$(init_server "$data" "$WORK" </dev/null)
  unshare --net bash -c "
    ip link add v0 type veth peer name v1 && ip link set v0 address $2 && ip link set v0 up &&
    runuser -u postgres -- '$BIN/pg_ctl' -D '$data' -l '$WORK/$1.log' -w start >/dev/null"
  echo "$port"
}
stop() { as_postgres "$BIN/pg_ctl" -D "$WORK/$1" -m fast -w stop >/dev/null; }

# (A multicast MAC, which the kernel refuses to give an interface, is
# covered by the unit tests of classify_mac.)
for case in universal:00:16:3e:12:34:56:0xe123456: \
            local:02:fc:00:00:00:01:1:locally-administered; do
  IFS=: read -r name m1 m2 m3 m4 m5 m6 node kind <<<"$case"
  kind=${kind/-/ }
  mac="$m1:$m2:$m3:$m4:$m5:$m6"
  node=$((node))
  port=$(start_with_mac "$name" "$mac")
  line=$(grep "locality_uuid: node value" "$WORK/$name.log" | head -n 1)
  check "$name MAC $mac: node $node, source 'mac v0', and the start logs it: ${line#*] }" \
    '[ "$(q "$port" -c "CREATE EXTENSION locality_uuid" -c "SELECT locality_uuid_node_id(), locality_uuid_node_source()")" = "$node|mac v0" ] &&
     grep -q "WARNING:  locality_uuid: node value $node comes from ${kind:+$kind }MAC address $mac of interface \"v0\"" <<<"$line"'
  check "... with the reason and the fix" \
    'grep -A2 "locality_uuid: node value $node" "$WORK/$name.log" | grep -q "DETAIL:  A node value drawn from 28 bits of a MAC address is shared by two of 10,000 servers with probability 0.17" &&
     grep -A2 "locality_uuid: node value $node" "$WORK/$name.log" | grep -q "HINT:  Set locality_uuid.node_id and locality_uuid.machine_name in a configuration file of this host outside the data directory"'

  # The CLI reads the same interface and says the same on standard error.
  cli_err=$(unshare --net bash -c "
    ip link add v0 type veth peer name v1 && ip link set v0 address $mac && ip link set v0 up &&
    locality-uuid -n 1 2>&1 >/dev/null")
  if [ -n "$kind" ]; then
    check "... and the CLI warns on standard error: $cli_err" \
      'grep -q "locality-uuid: warning: node value $node comes from locally administered MAC address $mac of interface \"v0\", which other machines may share; pass --node-id" <<<"$cli_err"'
  else
    check "... and the CLI says nothing on standard error" '[ -z "$cli_err" ]'
  fi
  stop "$name"
done

# --- a per-host file outside the data directory -------------------------------------
# A host's configuration directory: postgresql.conf (pointing at the data
# directory, including conf.d), pg_hba.conf, and conf.d/locality_uuid.conf
# with this host's node value.
host_config() {  # host_config NAME NODE_ID PORT
  local etc="$WORK/etc-$1"
  mkdir -p "$etc/conf.d"
  {
    echo "data_directory = '$WORK/$1'"
    echo "hba_file = '$etc/pg_hba.conf'"
    echo "ident_file = '$etc/pg_ident.conf'"
    printf "port = %s\nlisten_addresses = ''\nunix_socket_directories = '%s'\n" "$3" "$WORK"
    echo "shared_preload_libraries = 'locality_uuid'"
    echo "wal_level = replica"
    echo "include_dir = 'conf.d'"
  } >"$etc/postgresql.conf"
  printf 'local all all trust\nlocal replication all trust\n' >"$etc/pg_hba.conf"
  : >"$etc/pg_ident.conf"
  echo "locality_uuid.node_id = $2" >"$etc/conf.d/locality_uuid.conf"
  chown -R postgres "$etc"
}
pgctl_etc() { as_postgres timeout 120 "$BIN/pg_ctl" -D "$WORK/etc-$1" -l "$WORK/$1.log" -w "$2" >/dev/null; }

primary_port=$(free_port)
as_postgres "$BIN/initdb" --no-sync -D "$WORK/primary" -U postgres --auth=trust >/dev/null
rm "$WORK/primary/postgresql.conf" "$WORK/primary/pg_hba.conf" "$WORK/primary/pg_ident.conf"
host_config primary 101 "$primary_port"
pgctl_etc primary start
as_postgres "$BIN/pg_basebackup" -h "$WORK" -p "$primary_port" -U postgres -D "$WORK/standby" -R -X stream
standby_port=$(free_port)
host_config standby 102 "$standby_port"
pgctl_etc standby start
q "$primary_port" -c "CREATE EXTENSION locality_uuid"
for _ in $(seq 100); do
  [ "$(q "$standby_port" -c "SELECT count(*) FROM pg_extension WHERE extname = 'locality_uuid'")" = 1 ] && break
  sleep 0.1
done
read -r p_node p_source < <(q "$primary_port" -F ' ' -c "SELECT locality_uuid_node_id(), locality_uuid_node_source()")
read -r s_node s_source s_recovery < <(q "$standby_port" -F ' ' -c "SELECT locality_uuid_node_id(), locality_uuid_node_source(), pg_is_in_recovery()")
check "per-host conf.d outside the data directory: primary node $p_node ($p_source), its pg_basebackup -R standby node $s_node ($s_source, in recovery: $s_recovery)" \
  '[ "$p_node $p_source" = "101 setting" ] && [ "$s_node $s_source $s_recovery" = "102 setting t" ]'
check "... each start logs its own value and its file" \
  'grep -q "LOG:  locality_uuid: node value 101, from locality_uuid.node_id (file $WORK/etc-primary/conf.d/locality_uuid.conf)" "$WORK/primary.log" &&
   grep -q "LOG:  locality_uuid: node value 102, from locality_uuid.node_id (file $WORK/etc-standby/conf.d/locality_uuid.conf)" "$WORK/standby.log"'
# What the README warns of: ALTER SYSTEM writes into the data directory,
# which a base backup copies.
q "$primary_port" -c "ALTER SYSTEM SET locality_uuid.node_id = 103"
as_postgres "$BIN/pg_basebackup" -h "$WORK" -p "$primary_port" -U postgres -D "$WORK/copy" -X stream
check "ALTER SYSTEM's value is in postgresql.auto.conf of every base backup" \
  'grep -q "^locality_uuid.node_id = .103." "$WORK/copy/postgresql.auto.conf"'
# ... and a server whose value comes from there says so at every start.
pgctl_etc primary restart
check "... and a start with it WARNs, naming the file" \
  'grep -q "WARNING:  locality_uuid: node value 103 comes from a file in the data directory (data directory file $WORK/primary/postgresql.auto.conf)" "$WORK/primary.log"'

echo
[ $failures = 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "node identity checks passed"
