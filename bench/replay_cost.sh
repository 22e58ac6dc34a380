#!/usr/bin/env bash
# What crash recovery pays to replay a day of clock Hot Guid WAL: one
# reservation record per second of the day (86,400), as a server making
# Hot Guids all day logs them. A preloaded server on loopback, its clock
# moved one second at a time by clock_shim.c while one session makes clock
# Hot Guids, logs them after a CHECKPOINT; it is then stopped with
# -m immediate and started again. Prints the records (pg_walinspect), the
# redo time PostgreSQL logs, records per second, and the writes of
# locality_uuid.state during recovery (counted by fault_shim.c; each is a
# temporary file fsynced, a rename and a directory fsync). PostgreSQL 15+.
#   bash bench/replay_cost.sh            (HOT_SECONDS=86400 by default)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
. "$ROOT/test/integration/lib/servers.sh"
HOT_SECONDS=${HOT_SECONDS:-86400}
[ "$PG_MAJOR" -ge 15 ] || { echo "PostgreSQL $PG_MAJOR writes no reservation records (15+)"; exit 0; }
WORK=$(mktemp -d /tmp/locality-replay.XXXXXX)
chmod 755 "$WORK"
DATA=$WORK/data
trap 'as_postgres "$BIN/pg_ctl" -D "$DATA" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
build_shim clock_shim "$WORK"
build_shim fault_shim "$WORK"
T0=1767225600  # 2026-01-01 00:00:00 UTC, the day replayed
python3 -c "import struct,sys; open(sys.argv[1], 'wb').write(struct.pack('<qq', 0, int(sys.argv[2])))" "$WORK/clock" $((T0 * 1000))
printf 0 | dd of="$WORK/fault" bs=1 count=1 conv=notrunc status=none
: >"$WORK/fault.count"
chmod 666 "$WORK/fault.count"
chown -R postgres "$WORK"
PORT=$(init_server "$DATA" "$WORK" <<CONF
locality_uuid.node_id = 99
checkpoint_timeout = '1h'
max_wal_size = '10GB'
CONF
)
pgctl() {
  as_postgres env LD_PRELOAD="$WORK/clock_shim.so $WORK/fault_shim.so" CLOCK_SHIM_FILE="$WORK/clock" \
    FAULT_SHIM_FILE="$WORK/fault" timeout 1800 "$BIN/pg_ctl" -D "$DATA" -l "$WORK/server.log" -w -t 1800 "$@" >/dev/null
}
q() { psql -X -q -At -v ON_ERROR_STOP=1 -h "$WORK" -p "$PORT" -U postgres -d postgres "$@"; }
pgctl start
q -c "CREATE EXTENSION locality_uuid" -c "CREATE EXTENSION pg_walinspect" -c "CHECKPOINT"
from=$(q -c "SELECT pg_logical_emit_message(false, 'locality_uuid_bench', 'records from here')")
# One statement makes clock Hot Guids while the clock steps a second at a
# time: each new second opens, and logs, a reservation.
# One backend moves its own clock (lo_export rewrites the shim's file: 8
# bytes of offset, then the frozen Unix milliseconds, little-endian) and
# makes a clock Hot Guid, once for every second of the day.
chmod 777 "$WORK"
q -c "DO \$\$ DECLARE lo oid := lo_create(0); BEGIN
        FOR i IN 0..$HOT_SECONDS - 1 LOOP
          PERFORM lo_put(lo, 0, '\\x0000000000000000'::bytea ||
                  (SELECT decode(string_agg(lpad(to_hex(((($T0::int8 + i) * 1000 >> (8 * k)) & 255)::int), 2, '0'), '' ORDER BY k), 'hex')
                   FROM generate_series(0, 7) k));
          PERFORM lo_export(lo, '$WORK/clock');
          PERFORM hot_guid(1);
        END LOOP;
        PERFORM lo_unlink(lo);
      END \$\$" >/dev/null
records=$(q -c "SELECT count(*) FROM pg_get_wal_records_info('$from', pg_current_wal_flush_lsn())
                WHERE resource_manager = 'locality_uuid'")
wal=$(q -c "SELECT pg_size_pretty(pg_current_wal_flush_lsn() - '$from'::pg_lsn)")
printf c | dd of="$WORK/fault" bs=1 count=1 conv=notrunc status=none
: >"$WORK/fault.count"
pgctl stop -m immediate
start_s=$(date +%s.%N)
pgctl start
took=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$start_s" "$(date +%s.%N)")
printf 0 | dd of="$WORK/fault" bs=1 count=1 conv=notrunc status=none
redo=$(grep -o 'redo done at .*elapsed: [0-9.]* s' "$WORK/server.log" | tail -1 | sed 's/.*elapsed: \([0-9.]*\) s/\1/')
writes=$(stat -c %s "$WORK/fault.count")
echo "| records replayed | WAL | redo (PostgreSQL's log) | records/s | start to ready | state file writes during recovery |"
echo "|---|---|---|---|---|---|"
echo "| $records | $wal | ${redo:-?} s | $(python3 -c "import sys; r=float(sys.argv[2] or 0); print(int(int(sys.argv[1]) / r) if r > 0 else 'n/a')" "$records" "${redo:-0}") | ${took} s | $writes |"
