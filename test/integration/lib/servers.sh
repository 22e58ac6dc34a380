# Throw-away PostgreSQL servers for the integration suites that run their
# own (restart.sh, state_faults.sh, ha.sh). Source it after
# scripts/common.sh; it runs nothing by itself.

BIN=$("$PG_CONFIG" --bindir)

as_postgres() { runuser -u postgres -- "$@"; }

# free_port: a TCP port no one listens on, never one handed out before in
# this suite. The servers listen on Unix sockets only, so a port given to
# one stays free for TCP and the kernel may offer it again: two servers of
# one directory would then share a socket name (lock file already exists).
free_port() {
  local given=${WORK:-${TMPDIR:-/tmp}}/.ports_given port
  while :; do
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    grep -qx "$port" "$given" 2>/dev/null || break
  done
  echo "$port" >>"$given"
  echo "$port"
}

# poll SECONDS CMD...: runs CMD every 0.2 s until it succeeds, for at most
# SECONDS of wall time. A deadline, not a count of tries: on a loaded
# machine (a full run beside emulated chroots) each try is slower, and a
# count of them once ran out before the server got there.
poll() {
  local end=$((SECONDS + $1))
  shift
  until "$@"; do
    [ "$SECONDS" -lt "$end" ] || return 1
    sleep 0.2
  done
}

# build_shim NAME DIR: test/integration/NAME.c built as DIR/NAME.so, an
# LD_PRELOAD shim (clock_shim, fault_shim).
build_shim() {
  "$(command -v cc || command -v gcc)" -shared -fPIC -O2 -Wall -Werror -o "$2/$1.so" \
    "$ROOT/test/integration/$1.c" -ldl
}

# init_server DATA SOCKET_DIR: a new cluster in DATA (initdb as postgres),
# listening only on a Unix socket in SOCKET_DIR on a free port, with the
# library preloaded, and the settings on standard input appended. Prints
# the port. initdb does not fsync what it wrote (--no-sync): a suite's
# crashes are of servers, not of this machine, and on a loaded machine
# the syncs cost seconds a cluster; the servers themselves keep fsync on,
# since the state file's own fsyncs (and their injected failures) go
# through it.
init_server() {
  local port
  port=$(free_port)
  as_postgres "$BIN/initdb" --no-sync -D "$1" -U postgres --auth=trust >/dev/null
  {
    printf "port = %s\nlisten_addresses = ''\nunix_socket_directories = '%s'\n" "$port" "$2"
    echo "shared_preload_libraries = 'locality_uuid'"
    cat
  } >>"$1/postgresql.conf"
  echo "$port"
}

# stop_servers_under DIR: stops at once every server whose data directory
# is a folder of DIR (for a suite's EXIT trap).
stop_servers_under() {
  local d
  for d in "$1"/*/; do
    [ -f "$d/postmaster.pid" ] && as_postgres "$BIN/pg_ctl" -D "$d" -m immediate stop >/dev/null 2>&1
    # (a PgBouncer a suite started there: leases.sh)
    [ -f "$d/pgbouncer.pid" ] && kill "$(cat "$d/pgbouncer.pid")" 2>/dev/null
  done
  return 0
}

# keep_logs_if_failed STATUS DIR: when a suite ends with STATUS not 0, the
# server logs under DIR (*.log) are copied to $LOCALITY_KEEP_LOGS, which
# scripts/test.sh prints with the failure (a suite's EXIT trap calls this
# before it removes DIR).
keep_logs_if_failed() {
  [ "$1" = 0 ] || [ -z "${LOCALITY_KEEP_LOGS:-}" ] || [ ! -d "$2" ] && return 0
  mkdir -p "$LOCALITY_KEEP_LOGS"
  local f
  while IFS= read -r f; do
    cp "$f" "$LOCALITY_KEEP_LOGS/$(echo "${f#"$2"/}" | tr '/' '_')" 2>/dev/null || true
  done < <(find "$2" -name '*.log' -type f -size -64M 2>/dev/null)
  return 0
}
