#!/usr/bin/env bash
# Reservations refilled under concurrency: for every server-wide counter
# (variable mode, the sequential run of the clock's window, sequential ids
# for a given time, Hot Guids for the clock and for a given time), four
# clients make ids at once until the counter crossed at least three refills
# (counted from its WAL records, printed), on a preloaded server. Every id
# is kept with the pid field zeroed: 0 duplicates, so uniqueness rests on the
# one server-wide counter and its reservations, not on pids differing.
# PostgreSQL 15+ (the refills are counted with pg_walinspect).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
CLIENTS=4

run() {
  set -euo pipefail
  q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
  local work status=0 fixed="'2020-01-01 00:00:00+00'"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
  q -c "CREATE EXTENSION locality_uuid" -c "CREATE EXTENSION pg_walinspect"
  echo "counter scope: $(q -c 'SELECT locality_uuid_counter_scope()')"
  # kind, id expression, the pattern of its mark in the record's
  # description, ids per client (3.5 reservations' halves, split over the
  # clients), pid bytes to zero.
  local kinds=(
    "variable|locality_uuid(false)|variable [0-9]+|1835009|4 5"
    "run|locality_uuid(true)|runs [0-9: ]+|1835009|4 5"
    "given-time sequential|locality_uuid_at($fixed, true)|explicit [0-9]+|1835009|4 5"
    "Hot Guid (clock)|hot_guid(7)|hot [0-9]+|458753|6 8"
    "Hot Guid (given time)|hot_guid(7, $fixed)|hot [0-9]+|458753|6 8"
  )
  local entry kind expr pattern n pid_bytes from c refills ids dups
  for entry in "${kinds[@]}"; do
    IFS='|' read -r kind expr pattern n pid_bytes <<<"$entry"
    read -r b1 b2 <<<"$pid_bytes"
    # The end of a record written now: never a segment boundary, where PostgreSQL
    # 15's pg_walinspect finds no record (ha.sh, wal_start).
    from=$(q -c "SELECT pg_logical_emit_message(false, 'locality_uuid_test', 'records from here')")
    for c in $(seq "$CLIENTS"); do
      q -c "COPY (SELECT encode(set_byte(set_byte(uuid_send($expr), $b1, 0), $b2, 0), 'hex')
                  FROM generate_series(1, $n)) TO STDOUT" >"$work/client$c" &
    done
    wait
    refills=$(q -c "SELECT count(DISTINCT substring(description FROM '$pattern'))
                    FROM pg_get_wal_records_info('$from', pg_current_wal_flush_lsn())
                    WHERE resource_manager = 'locality_uuid'")
    ids=$(cat "$work"/client* | wc -l)
    dups=$(cat "$work"/client* | LC_ALL=C sort -S 512M | uniq -d | wc -l)
    printf '%-24s %d clients, %d ids, %d refills crossed, %d duplicates with the pid field zeroed\n' \
      "$kind" "$CLIENTS" "$ids" "$refills" "$dups"
    [ "$ids" = $((CLIENTS * n)) ] && [ "$refills" -ge 3 ] && [ "$dups" = 0 ] ||
      { echo "FAIL: $kind"; status=1; }
    rm -f "$work"/client*
  done
  return $status
}
export -f run
export CLIENTS
with_cluster -o shared_preload_libraries=locality_uuid -o fsync=off -- bash -c run
echo "concurrent refill checks passed"
