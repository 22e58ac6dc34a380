# Nodes of an HA pair on loopback, as PostgreSQL's src/test/recovery runs
# them (ha.sh, sql_edition_ha.sh): servers started with their
# CLOCK_REALTIME held by clock_shim.c, queried, base-backed-up, waited for
# and promoted by name. Source it after lib/servers.sh, then call
# start_work.
failures=0
declare -A PORT
declare -A CLOCK_OF  # a node's own clock file, if not the shared $WORK/clock

# start_work NAME: WORK, a new directory /tmp/NAME.XXXXXX with archive/
# and ids/ that postgres can write, removed with every server under it when
# the suite exits; the clock shim built there.
start_work() {
  WORK=$(mktemp -d "/tmp/$1.XXXXXX")
  chmod 755 "$WORK"
  mkdir "$WORK/archive" "$WORK/ids"
  trap 'keep_logs_if_failed $? "$WORK"; stop_servers_under "$WORK"; rm -rf "$WORK"' EXIT
  build_shim clock_shim "$WORK"
}
check() { if eval "$2"; then echo "ok:   $1"; else echo "FAIL: $1"; failures=$((failures + 1)); fi; }
pgctl() {  # pgctl NODE ARGS...: on failure, the end of NODE's log
  local node=$1; shift
  as_postgres env LD_PRELOAD="$WORK/clock_shim.so" CLOCK_SHIM_FILE="${CLOCK_OF[$node]:-$WORK/clock}" \
    timeout 120 "$BIN/pg_ctl" -D "$WORK/$node" -l "$WORK/$node.log" -w "$@" >/dev/null ||
    { tail -n 20 "$WORK/$node.log" | sed "s/^/    | $node: /" >&2; return 1; }
}
q() {  # q NODE PSQL-ARGS...
  local node=$1; shift
  psql -X -q -At -v ON_ERROR_STOP=1 -h "$WORK" -p "${PORT[$node]}" -U postgres -d postgres "$@"
}
conninfo() { echo "host=$WORK port=${PORT[$1]} user=postgres dbname=postgres"; }

set_clock() {  # set_clock FILE UNIX-MS: hold the clock of the servers reading FILE there
  python3 -c "import struct,sys; open(sys.argv[1], 'wb').write(struct.pack('<qq', 0, int(sys.argv[2])))" "$1" "$2"
  chown postgres "$1"
}
# set_port NODE: a port of its own, last in its postgresql.conf (a base
# backup or pg_rewind copies the source's file).
set_port() {
  PORT[$1]=$(free_port)
  echo "port = ${PORT[$1]}" >>"$WORK/$1/postgresql.conf"
}
# base_backup SOURCE NODE [pg_basebackup options]
base_backup() {
  local source=$1 node=$2; shift 2
  as_postgres "$BIN/pg_basebackup" -D "$WORK/$node" -d "$(conninfo "$source")" -c fast -X stream "$@"
  set_port "$node"
}
# wait_replay PRIMARY STANDBY: the standby has replayed all the primary flushed.
wait_replay() {
  local target i
  target=$(q "$1" -c "SELECT pg_current_wal_flush_lsn()")
  for i in $(seq 600); do
    [ "$(q "$2" -c "SELECT pg_last_wal_replay_lsn() >= '$target'")" = t ] && return 0
    sleep 0.2
  done
  echo "standby $2 did not replay up to $target" >&2; return 1
}
promote() {
  as_postgres timeout 120 "$BIN/pg_ctl" -D "$WORK/$1" -w promote >/dev/null
  local i
  for i in $(seq 300); do [ "$(q "$1" -c "SELECT pg_is_in_recovery()")" = f ] && return 0; sleep 0.2; done
  return 1
}

# recover_to SOURCE NODE TARGET: NODE, a base backup of SOURCE, recovers
# from the archive to SOURCE's restore point TARGET and is promoted there;
# SOURCE's WAL up to now is archived first, and SOURCE is stopped.
recover_to() {
  local source=$1 node=$2 target=$3 segment
  segment=$(q "$source" -c "SELECT pg_walfile_name(pg_switch_wal())")
  for _ in $(seq 300); do [ -f "$WORK/archive/$segment" ] && break; sleep 0.2; done
  pgctl "$source" stop -m fast
  cat >>"$WORK/$node/postgresql.conf" <<CONF
restore_command = 'cp $WORK/archive/%f %p'
recovery_target_name = '$target'
recovery_target_action = 'promote'
CONF
  as_postgres touch "$WORK/$node/recovery.signal"
  pgctl "$node" start
  for _ in $(seq 300); do [ "$(q "$node" -c "SELECT pg_is_in_recovery()")" = f ] && break; sleep 0.2; done
  check "recovered to the restore point and promoted" '[ "$(q "$node" -c "SELECT pg_is_in_recovery()")" = f ]'
}
# upgrade FROM TO: pg_upgrade of the stopped cluster FROM into the new,
# empty cluster TO (same major); its output in $WORK/pg_upgrade.out.
upgrade() {
  (cd "$WORK" && as_postgres timeout 600 "$BIN/pg_upgrade" -b "$BIN" -B "$BIN" -d "$WORK/$1" -D "$WORK/$2" \
     -p "$(free_port)" -P "$(free_port)" -s "$WORK" >"$WORK/pg_upgrade.out" 2>&1) ||
    { tail -n 30 "$WORK/pg_upgrade.out"; echo "FAIL: pg_upgrade"; exit 1; }
}
