# Sides of ids made on servers with their clocks held at one instant, and
# the simulated hosts they run on, for copies.sh and leases.sh: source it
# after lib/ha_nodes.sh and start_work. IDS: ids of each kind per side.
#
# A side is $IDS ids of each kind made on one server: variable and
# sequential ids for the clock and for a given time, and Hot Guids for the
# clock and for a given second, with the pid field masked (zeroed), per
# kind, so uniqueness cannot rest on pids.
FIXED="'2020-01-01 00:00:00+00'"
FROZEN_MS=1767225601000  # 2026-01-01 00:00:01 UTC: every server's clock
IDS=${IDS:-200000}

CLOCK_MS=$FROZEN_MS
set_clock "$WORK/clock" "$CLOCK_MS"
# tick: the held clock one second on. A start, a move and the end of a
# recovery count the current second's clock Hot Guids as full (another
# server may have made some): clock Hot Guids then wait for the next
# second, which a held clock never reaches by itself.
tick() {
  CLOCK_MS=$((CLOCK_MS + 1000))
  set_clock "$WORK/clock" "$CLOCK_MS"
}

# make_host NAME [SETTINGS...]: a simulated host, $WORK/NAME.conf (what the
# host's configuration directory holds, outside any data directory): its
# identity file and the settings given.
make_host() {
  local name=$1; shift
  echo "$name-$RANDOM$RANDOM" >"$WORK/$name.id"
  {
    echo "locality_uuid.host_identity_file = '$WORK/$name.id'"
    local setting
    for setting in "$@"; do echo "$setting"; done
  } >"$WORK/$name.conf"
}
# on_host NODE NAME: NODE's postgresql.conf includes host NAME's file
# (last include wins: a copy moved to another host includes that host's).
on_host() { echo "include '$WORK/$2.conf'" >>"$WORK/$1/postgresql.conf"; }

init_node() {  # init_node NODE [SETTINGS...]: settings in its own postgresql.conf
  local node=$1; shift
  PORT[$node]=$(init_server "$WORK/$node" "$WORK" <<CONF
wal_level = replica
max_wal_senders = 5
wal_keep_size = '512MB'
archive_mode = on
archive_command = 'test ! -f $WORK/archive/$node/%f && cp %p $WORK/archive/$node/%f'
CONF
)
  mkdir -p "$WORK/archive/$node"
  chown postgres "$WORK/archive/$node"
  local setting
  for setting in "$@"; do echo "$setting" >>"$WORK/$node/postgresql.conf"; done
}
chown -R postgres "$WORK"

# --- sides -------------------------------------------------------------------------
# Masked ids per kind (the pid field zeroed: bytes 4-5 of a Locality UUID,
# bytes 6 and 8 of a Hot Guid).
KINDS=(variable_clock variable_at sequential_clock sequential_at hot_clock hot_at)
declare -A KIND_SQL=(
  [variable_clock]="set_byte(set_byte(uuid_send(locality_uuid(false)), 4, 0), 5, 0)"
  [variable_at]="set_byte(set_byte(uuid_send(locality_uuid_at($FIXED, false)), 4, 0), 5, 0)"
  [sequential_clock]="set_byte(set_byte(uuid_send(locality_uuid(true)), 4, 0), 5, 0)"
  [sequential_at]="set_byte(set_byte(uuid_send(locality_uuid_at($FIXED, true)), 4, 0), 5, 0)"
  [hot_clock]="set_byte(set_byte(uuid_send(hot_guid(7)), 6, 0), 8, 0)"
  [hot_at]="set_byte(set_byte(uuid_send(hot_guid(7, $FIXED)), 6, 0), 8, 0)"
)
# side NODE LABEL: $IDS ids of each kind on NODE, sorted in $WORK/ids/LABEL.KIND.
side() {
  local k
  for k in "${KINDS[@]}"; do
    q "$1" -c "COPY (SELECT encode(${KIND_SQL[$k]}, 'hex') FROM generate_series(1, $IDS)) TO STDOUT" |
      LC_ALL=C sort -S 256M >"$WORK/ids/$2.$k"
  done
}
# repeats CASE A B [KIND...]: per kind (default: all), the masked ids sides
# A and B share; every count must be 0.
repeats() {
  local k n counts="" total=0 kinds=("${KINDS[@]}")
  [ $# -gt 3 ] && kinds=("${@:4}")
  for k in "${kinds[@]}"; do
    # Each side whole: a side that made fewer ids could hide repeats.
    [ "$(wc -l <"$WORK/ids/$2.$k")" = "$IDS" ] && [ "$(wc -l <"$WORK/ids/$3.$k")" = "$IDS" ] ||
      { check "$1: $k: both sides hold $IDS ids" false; return; }
    n=$(LC_ALL=C comm -12 "$WORK/ids/$2.$k" "$WORK/ids/$3.$k" | wc -l)
    counts+="${counts:+, }$k $n"
    total=$((total + n))
  done
  check "$1: $IDS ids of each kind per side, masked repeats: $counts" "[ $total = 0 ]"
}
# log_has NODE REGEX: NODE's server log has a line matching REGEX.
log_has() { grep -Eq "$2" "$WORK/$1.log"; }
log_count() { grep -Ec "$2" "$WORK/$1.log" || true; }
