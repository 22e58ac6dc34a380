#!/usr/bin/env bash
# Backfill at scale: the README's recipe for giving a live table a new key
# column, measured. For each recipe a fresh table of BACKFILL_ROWS rows
# (`events`: bigint key, created_at with 4 rows a second and 1 in 1,000
# NULL, an 80-byte payload) gets a uuid column, filled in batches of
# 10,000 rows with a COMMIT each and a VACUUM after every tenth of the
# table, then a unique index built CONCURRENTLY. Meanwhile one client
# writes as an application would (50 transactions/s: insert a row, update
# a random one). Per recipe: time of the fill, the VACUUMs and the index,
# WAL, table size before and after, index size, and what the writer saw:
# its latency (median, 99th percentile, max) and the lock waits longer
# than deadlock_timeout (100ms) that log_lock_waits reported.
#
# Recipes (BACKFILL_RECIPES, default all):
#   seq     locality_uuid_fill with locality_uuid_at(created_at, true)
#   var     locality_uuid_fill with locality_uuid_at(created_at, false)
#   random  locality_uuid_fill with gen_random_uuid()
#   v1      form_uuid_v1_nth over whole created_at groups (README's v1 recipe)
#   oneshot one UPDATE of the whole table with the seq expression: what the
#           batches avoid
#   BACKFILL_ROWS=10000000   BACKFILL_OUT=bench/results/backfill-<major>-<rows>
#   BACKFILL_SLICE=<rows / 10>: rows filled between two VACUUMs
# Writes backfill.csv and summary.md to BACKFILL_OUT and prints the summary.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ROWS=${BACKFILL_ROWS:-10000000}
RECIPES=${BACKFILL_RECIPES:-seq var random v1 oneshot}
OUT=${BACKFILL_OUT:-$ROOT/bench/results/backfill-$PG_MAJOR-$ROWS}
SLICE=${BACKFILL_SLICE:-$(( ROWS / 10 ))}
# A 10M-row sitting runs for 15-20 minutes; the cluster's time limit is ample.
export CLUSTER_TIMEOUT=${CLUSTER_TIMEOUT:-10800}
mkdir -p "$OUT"

run() {
  set -euo pipefail
  q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
  now() { date +%s.%N; }
  # seconds since $1 (plus $2): awk, not python3, whose start-up (a pyenv
  # shim here) costs half a second and would land in the measures.
  since() { awk -v t0="$1" -v t1="$(now)" -v plus="${2:-0}" 'BEGIN { print plus + t1 - t0 }'; }
  lsn() { q -c "SELECT pg_current_wal_lsn()"; }
  wal_mb() { q -c "SELECT round(pg_wal_lsn_diff(pg_current_wal_lsn(), '$1') / 1048576.0)"; }
  # The server log's size now, and the writer's lock waits logged after
  # offset $1 (log_line_prefix names the application): "still waiting"
  # lines and the longest "acquired ... after N ms".
  log_size() { q -c "SELECT (pg_stat_file(pg_current_logfile())).size"; }
  lock_waits() {
    q -F ' ' -c "SELECT count(*) FILTER (WHERE l LIKE '%still waiting for%'),
                        coalesce(max(substring(l FROM 'acquired .* after ([0-9.]+) ms')::numeric), 0)
                 FROM regexp_split_to_table(pg_read_file(pg_current_logfile(), $1,
                        (pg_stat_file(pg_current_logfile())).size - $1), E'\n') l
                 WHERE l LIKE '%|pgbench|%'"
  }
  q -c "CREATE EXTENSION locality_uuid"
  machine_line >"$OUT/machine.txt"
  echo "$ROWS rows a table, batches of 10,000 rows, a VACUUM every $SLICE rows; writer 50 tx/s;" \
       "shared_buffers $(q -c 'SHOW shared_buffers'), max_wal_size $(q -c 'SHOW max_wal_size')," \
       "checkpoint_timeout $(q -c 'SHOW checkpoint_timeout'), autovacuum off, fsync and synchronous_commit on" >>"$OUT/machine.txt"
  # The README's v1 recipe (whole created_at groups a batch), for events.
  q <<'SQL'
CREATE PROCEDURE events_fill_v1(mac macaddr, groups_per_batch int, max_batches int, INOUT filled bigint)
LANGUAGE plpgsql AS $$
DECLARE
  done_to timestamptz := '-infinity';
  upto timestamptz;
  n bigint;
BEGIN
  filled := 0;
  FOR b IN 1 .. max_batches LOOP
    SELECT max(created_at) INTO upto
    FROM (SELECT DISTINCT created_at FROM events WHERE created_at > done_to AND id IS NULL
          ORDER BY created_at LIMIT groups_per_batch) next_times;
    IF upto IS NOT NULL THEN
      UPDATE events e SET id = form_uuid_v1_nth(e.created_at, g.ordinal, mac)
      FROM (SELECT event_no, row_number() OVER (PARTITION BY created_at ORDER BY event_no) - 1 AS ordinal
            FROM events WHERE created_at > done_to AND created_at <= upto) g
      WHERE e.event_no = g.event_no AND e.id IS NULL;
      GET DIAGNOSTICS n = ROW_COUNT;
      done_to := upto;
    ELSE
      UPDATE events SET id = form_uuid_v1_nth('1582-10-15 00:00:00+00'::timestamptz
                                                + (event_no / 163840) * interval '1 us', event_no % 163840, mac)
      WHERE event_no IN (SELECT event_no FROM events WHERE created_at IS NULL AND id IS NULL
                         ORDER BY event_no LIMIT 10000);
      GET DIAGNOSTICS n = ROW_COUNT;
      EXIT WHEN n = 0;
    END IF;
    COMMIT;
    filled := filled + n;
  END LOOP;
END
$$;
SQL
  local writer
  writer=$(mktemp)
  cat >"$writer" <<EOF
\set k random(1, $ROWS)
INSERT INTO events (event_no, created_at, payload) VALUES (nextval('events_writer'), now(), 'live');
UPDATE events SET payload = 'touched' WHERE event_no = :k;
EOF
  echo "recipe,rows,fill_s,vacuum_s,index_s,total_s,wal_mb,table_mb_before,table_mb_after,index_mb,distinct_ids,writer_tx,writer_p50_ms,writer_p99_ms,writer_max_ms,lock_waits,longest_lock_wait_ms" >"$OUT/backfill.csv"
  local recipe expr default extra
  for recipe in $RECIPES; do
    # Per recipe: the fill's expression, the column's DEFAULT for the rows
    # the writer inserts meanwhile, and any index the recipe needs first.
    extra=()
    case $recipe in
      seq|oneshot) expr="locality_uuid_at(coalesce(t.created_at, to_timestamp(0)), true)"
                   default="locality_uuid(sequential => true)" ;;
      var) expr="locality_uuid_at(coalesce(t.created_at, to_timestamp(0)), false)"
           default="locality_uuid(sequential => false)" ;;
      random) expr="gen_random_uuid()" default="gen_random_uuid()" ;;
      # The application's own v1 generator, on a MAC the backfill does not
      # use; batches take whole created_at groups, which the README's recipe indexes.
      v1) expr="" default="form_uuid_v1(clock_timestamp(), (random() * 16383)::int, '02:00:00:00:00:01')"
          extra=(-c "CREATE INDEX events_created_at_idx ON events (created_at)") ;;
      *) echo "unknown recipe $recipe" >&2; return 2 ;;
    esac
    q -c "DROP TABLE IF EXISTS events" -c "DROP SEQUENCE IF EXISTS events_writer" \
      -c "CREATE TABLE events (event_no bigint PRIMARY KEY, created_at timestamptz, payload text)" \
      -c "INSERT INTO events SELECT g, CASE WHEN g % 1000 <> 0 THEN '2024-01-01 00:00:00+00'::timestamptz + (g / 4) * interval '1 s' END, repeat('p', 80) FROM generate_series(1, $ROWS) g" \
      -c "CREATE SEQUENCE events_writer START $(( ROWS + 1 ))" "${extra[@]}" \
      -c "VACUUM (ANALYZE) events" -c "CHECKPOINT"
    local before_mb lsn0 log0 t0 t1 fill_s=0 vacuum_s=0 index_s n
    before_mb=$(q -c "SELECT round(pg_relation_size('events') / 1048576.0)")
    log0=$(log_size)
    rm -f "$OUT"/writer.*
    # The application goes on writing throughout: 5-second pgbench runs
    # until the stop file appears (each run writes its latency log as it ends).
    ( while [ ! -e "$OUT/writer.stop" ]; do
        pgbench -n -c 1 -T 5 -R 50 -l --log-prefix="$OUT/writer.log" -f "$writer" >/dev/null 2>&1 || true
      done ) &
    local writer_pid=$!
    # However this recipe ends, the writer stops with it.
    trap "touch '$OUT/writer.stop'; kill $writer_pid 2>/dev/null || true" EXIT
    lsn0=$(lsn)
    t0=$(now)
    q -c "ALTER TABLE events ADD COLUMN id uuid" -c "ALTER TABLE events ALTER COLUMN id SET DEFAULT $default"
    while :; do
      t1=$(now)
      case $recipe in
        oneshot) q -c "UPDATE events t SET id = $expr WHERE id IS NULL"; n=0 ;;
        v1) n=$(q -c "CALL events_fill_v1('44:88:99:36:57:32', 2500, $(( SLICE / 10000 > 0 ? SLICE / 10000 : 1 )), NULL)") ;;
        *) n=$(q -c "SET client_min_messages = warning" \
                  -c "CALL locality_uuid_fill('events', 'id', '$expr', batch_size => 10000, max_rows => $SLICE)") ;;
      esac
      fill_s=$(since "$t1" "$fill_s")
      t1=$(now)
      q -c "VACUUM events"
      vacuum_s=$(since "$t1" "$vacuum_s")
      [ "$n" != 0 ] || break
    done
    t1=$(now)
    q -c "CREATE UNIQUE INDEX CONCURRENTLY events_id_key ON events (id)"
    index_s=$(since "$t1")
    local total_s wal after_mb index_mb distinct
    total_s=$(since "$t0")
    wal=$(wal_mb "$lsn0")
    touch "$OUT/writer.stop"
    wait "$writer_pid"
    trap - EXIT
    after_mb=$(q -c "SELECT round(pg_relation_size('events') / 1048576.0)")
    index_mb=$(q -c "SELECT round(pg_relation_size('events_id_key') / 1048576.0)")
    distinct=$(q -c "SELECT CASE WHEN count(id) = count(*) AND count(DISTINCT id) = count(*) THEN 'all' ELSE count(DISTINCT id) || ' of ' || count(*) END FROM events")
    local waits longest
    read -r waits longest < <(lock_waits "$log0")
    # pgbench's per-transaction log (-R): client_id transaction_no time
    # script_no time_epoch time_us schedule_lag. time counts from the
    # scheduled start; less the lag, it is what the transaction itself took.
    local writer_stats
    writer_stats=$(cat "$OUT"/writer.log* 2>/dev/null | python3 -c '
import sys
lat = sorted((int(f[2]) - int(f[6])) / 1000 for f in (l.split() for l in sys.stdin) if len(f) >= 7)
pick = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))]
print(f"{len(lat)},{pick(0.5):.1f},{pick(0.99):.1f},{lat[-1]:.1f}" if lat else "0,,,")')
    printf '%s,%s,%.1f,%.1f,%.1f,%.1f,%s,%s,%s,%s,%s,%s,%s,%s\n' "$recipe" "$ROWS" "$fill_s" "$vacuum_s" "$index_s" \
      "$total_s" "$wal" "$before_mb" "$after_mb" "$index_mb" "$distinct" "$writer_stats" \
      "$waits" "$longest" >>"$OUT/backfill.csv"
    rm -f "$OUT"/writer.*
  done
  rm -f "$writer"
}
export -f run machine_line
export OUT RECIPES ROWS SLICE
# fsync on (pg_virtualenv turns it off): a COMMIT per batch costs what it would.
with_cluster -o fsync=on -o shared_preload_libraries=locality_uuid -o shared_buffers=256MB -o max_wal_size=4GB \
  -o autovacuum=off -o jit=off -o logging_collector=on -o log_rotation_age=0 -o log_lock_waits=on \
  -o deadlock_timeout=100ms -o 'log_line_prefix=%m|%a|' \
  -- bash -c run >/dev/null

python3 - "$OUT" <<'PY'
import csv, sys
out = sys.argv[1]
names = {"seq": "`locality_uuid_at(created_at, true)`", "var": "`locality_uuid_at(created_at, false)`",
         "random": "`gen_random_uuid()`", "v1": "`form_uuid_v1_nth` (whole time groups)",
         "oneshot": "one `UPDATE`, sequential"}
with open(f"{out}/summary.md", "w") as s:
    s.write("| recipe | rows | fill s | VACUUM s | unique index s | total s | WAL MB | table MB before → after "
            "| index MB | ids distinct | writer tx | writer p50 / p99 / max ms | lock waits > 100 ms | longest wait ms |\n")
    s.write("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    for r in csv.DictReader(open(f"{out}/backfill.csv")):
        s.write(f'| {names.get(r["recipe"], r["recipe"])} | {int(r["rows"]):,} | {r["fill_s"]} | {r["vacuum_s"]} '
                f'| {r["index_s"]} | {r["total_s"]} | {r["wal_mb"]} | {r["table_mb_before"]} → {r["table_mb_after"]} '
                f'| {r["index_mb"]} | {r["distinct_ids"]} | {r["writer_tx"]} '
                f'| {r["writer_p50_ms"]} / {r["writer_p99_ms"]} / {r["writer_max_ms"]} | {r["lock_waits"]} | {r["longest_lock_wait_ms"]} |\n')
PY
cat "$OUT/machine.txt"
echo
cat "$OUT/summary.md"
echo
echo "CSV and summary in $OUT"
