#!/usr/bin/env bash
# Ids stay unique across restarts, crashes and clock steps, on a real server
# with the library preloaded (server-wide counters), its clock shifted by an
# LD_PRELOAD shim (clock_shim.c) that the test moves while it runs.
#
# Every kind of id is made in batches (variable and sequential mode, both
# for the clock and for one fixed time, Hot Guids for the clock and for one
# fixed time) between: pg_ctl restart -m fast, pg_ctl restart -m immediate
# while a client generates, kill -9 of a generating backend (crash restart),
# the clock stepping back one hour, forward one hour for a moment and back,
# eleven hours back, and an immediate restart while the clock is behind.
# Checks: 0 duplicates, also with the pid field masked out (so the check
# does not rest on pids differing across restarts); after each restart the
# counters continue past the marks persisted in locality_uuid.state; no id
# carries a time later than the server's clock when it was made.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
. "$ROOT/test/integration/lib/servers.sh"
WORK=$(mktemp -d /tmp/locality-restart.XXXXXX)
DATA=$WORK/data
N=${RESTART_IDS_PER_KIND:-20000}
FIXED="'2020-01-01 00:00:00+00'"
failures=0

pgctl() {
  as_postgres env LD_PRELOAD="$WORK/clock_shim.so" CLOCK_SHIM_FILE="$WORK/offset" \
    timeout 120 "$BIN/pg_ctl" -D "$DATA" -l "$WORK/server.log" -w "$@" >/dev/null
}
cleanup() {
  keep_logs_if_failed $? "$WORK"
  [ -f "$DATA/postmaster.pid" ] && as_postgres "$BIN/pg_ctl" -D "$DATA" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
q() { psql -X -q -At -v ON_ERROR_STOP=1 -h "$WORK" -p "$PORT" -U postgres -d postgres "$@"; }
check() { if eval "$2"; then echo "ok:   $1"; else echo "FAIL: $1"; failures=$((failures + 1)); fi; }
set_clock_offset() {  # milliseconds added to the server's CLOCK_REALTIME
  python3 -c "import struct,sys; open(sys.argv[1], 'r+b').write(struct.pack('<q', int(sys.argv[2])))" \
    "$WORK/offset" "$1"
}
state_value() { sed -n "s/^$1 //p" "$DATA/locality_uuid.state"; }

# --- a server whose clock the test moves ----------------------------------------
build_shim clock_shim "$WORK"
head -c 16 /dev/zero >"$WORK/offset"
chown -R postgres "$WORK"
PORT=$(init_server "$DATA" "$WORK" <<CONF
locality_uuid.node_id = 4242
locality_uuid.machine_name = 'restart-test'
CONF
)
pgctl start
q -c "CREATE EXTENSION locality_uuid" -c "CREATE TABLE ids (id uuid, kind text, phase text)"
check "counter scope is the server" '[ "$(q -c "SELECT locality_uuid_counter_scope()")" = server ]'

KINDS=(variable "locality_uuid(false)" sequential "locality_uuid(true)"
       variable_at "locality_uuid_at($FIXED, false)" sequential_at "locality_uuid_at($FIXED, true)"
       hot_guid "hot_guid(7)" hot_guid_at "hot_guid(7, $FIXED)")
batch() {  # batch PHASE: N ids of every kind, committed
  local sql="" i
  for ((i = 0; i < ${#KINDS[@]}; i += 2)); do
    sql+="INSERT INTO ids SELECT ${KINDS[i + 1]}, '${KINDS[i]}', '$1' FROM generate_series(1, $N);"
  done
  q -c "BEGIN; $sql COMMIT;"
}
# The variable-mode position of an id (its counter is start + (n + 1) * prime;
# 3127333277 is the prime's inverse mod 2^32).
variable_position() {
  q -c "SELECT (((locality_uuid_counter('$1') - $(state_value variable_start) + 4294967296) % 4294967296)::numeric
                * 3127333277 - 1 + 4294967296) % 4294967296"
}
# The explicit-time sequential position: offset above base + 2^31 + 1.
explicit_position() {
  q -c "SELECT (locality_uuid_counter('$1', true) - ('x' || substr(h,7,2) || substr(h,5,2) || substr(h,3,2) || substr(h,1,2))::bit(32)::bigint
                - 2147483649 + 8589934592) % 4294967296
        FROM (SELECT md5('20200101000') AS h) s"
}
# After a restart: the first new ids sit at or past the marks the file held.
continues_past_marks() {
  local name=$1 variable_mark=$2 explicit_mark=$3 v e
  v=$(variable_position "$(q -c "SELECT locality_uuid(false)")")
  e=$(explicit_position "$(q -c "SELECT locality_uuid_at($FIXED, true)")")
  check "$name: variable counter continues at position $v >= persisted mark $variable_mark" "[ $v -ge $variable_mark ]"
  # Positions are seen mod 2^31 (the counter starts at a random value):
  # "at or past" is less than half the ring ahead.
  check "$name: explicit-time sequential counter continues at $e, at or past persisted mark $explicit_mark (mod 2^31)" \
    "[ $(( (e - explicit_mark % 2147483648 + 2147483648) % 2147483648 )) -lt 1073741824 ]"
}

batch start; batch start
echo "reserved marks after $((2 * N)) ids per kind: variable $(state_value variable), explicit $(state_value explicit), hot $(state_value hot)"

# --- fast restart ---------------------------------------------------------------
vm=$(state_value variable); em=$(state_value explicit)
pgctl restart -m fast
continues_past_marks "restart -m fast" "$vm" "$em"
batch after-fast

# --- immediate restart while a client generates -------------------------------------
generate_in_background() {  # committed batches of 2000 until the server goes away
  ( for _ in $(seq 200); do
      q -c "INSERT INTO ids SELECT locality_uuid(true), 'sequential', 'background' FROM generate_series(1, 2000)" \
        2>/dev/null || break
    done ) &
  GEN=$!
}
generate_in_background
sleep 1
vm=$(state_value variable); em=$(state_value explicit)
pgctl restart -m immediate
wait $GEN || true
continues_past_marks "restart -m immediate" "$vm" "$em"
batch after-immediate

# --- a backend killed with SIGKILL: the postmaster resets shared memory ------------
q -c "SELECT locality_uuid(false)" >/dev/null
before_burst=$(state_value variable)
( q -c "INSERT INTO ids SELECT locality_uuid(false), 'doomed', 'crash' FROM generate_series(1, 50000000)" >/dev/null 2>&1 || true ) &
sleep 1
victim=$(q -c "SELECT pid FROM pg_stat_activity WHERE query LIKE 'INSERT INTO ids SELECT locality_uuid(false), ''doomed''%' AND pid <> pg_backend_pid()")
# The kill comes after the burst raised the variable mark (crossed a
# refill); the counters must continue past the marks read just before it,
# not only past those before the burst.
for _ in $(seq 150); do [ "$(state_value variable)" != "$before_burst" ] && break; sleep 0.2; done
vm=$(state_value variable); em=$(state_value explicit)
check "the burst crossed a refill before the kill (variable mark $before_burst -> $vm)" '[ "$vm" -gt "$before_burst" ]'
kill -9 "$victim"
wait || true
for _ in $(seq 100); do q -c "SELECT 1" >/dev/null 2>&1 && break; sleep 0.2; done
check "the server went through crash recovery" 'grep -q "terminated by signal 9" "$WORK/server.log"'
continues_past_marks "crash (kill -9 of a backend)" "$vm" "$em"
batch after-crash

# --- clock steps ----------------------------------------------------------------------
stamped_after_clock() {  # ids of PHASE whose time is later than LIMIT (unix ms)
  q -c "SELECT count(*) FROM ids WHERE phase = '$1' AND kind IN ('variable', 'sequential')
          AND extract(epoch FROM locality_uuid_timestamp(id)) * 1000 > $2"
}
real_ms() { python3 -c 'import time; print(int(time.time() * 1000))'; }
set_clock_offset -3600000
batch clock-back-1h
set_clock_offset 3600000
batch clock-forward-1h
set_clock_offset 0
batch clock-returned
check "ids made after the clock returned carry no future time" \
  '[ "$(stamped_after_clock clock-returned "$(real_ms)")" = 0 ]'
check "ids made while the clock was 1 h back carry that clock's time" \
  '[ "$(stamped_after_clock clock-back-1h "$(( $(real_ms) - 3600000 + 60000 ))")" = 0 ]'
# Exactly 64 windows behind a window whose run is held (same slot): refused.
# (A window boundary passing between the two statements would shift the
# target window; then the attempt is repeated.)
window_now() { python3 -c 'import time; print(int(time.time() * 1000) // 600000)'; }
for _ in 1 2 3; do
  set_clock_offset 0
  w=$(q -c "SELECT floor(extract(epoch FROM locality_uuid_timestamp(locality_uuid(true))) * 1000 / 600000)")
  set_clock_offset $((-64 * 600000))
  out=$(q -c "SELECT locality_uuid(true)" 2>&1 || true)
  [ "$(window_now)" = "$w" ] && break
done
check "sequential ids 64 windows (10 h 40 min) behind a held run are refused: ${out#ERROR:  }" \
  'grep -q "64 or more sequential windows behind" <<<"$out"'
check "variable ids still work then" '[ -n "$(q -c "SELECT locality_uuid(false)")" ]'

# --- crash while the clock is behind -------------------------------------------------
set_clock_offset -3600000
batch clock-behind-before-crash
pgctl restart -m immediate
batch clock-behind-after-crash
# Every second a clock Hot Guid carried before the crash may be full: the
# ones made after it, the clock still behind, carry a later second (the
# first one no id could carry yet), never one of those.
read -r before_crash after_crash < <(q -F ' ' -c "
  SELECT extract(epoch FROM max(hot_guid_timestamp(id)) FILTER (WHERE phase <> 'clock-behind-after-crash'))::bigint,
         extract(epoch FROM min(hot_guid_timestamp(id)) FILTER (WHERE phase = 'clock-behind-after-crash'))::bigint
  FROM ids WHERE kind = 'hot_guid'")
check "clock Hot Guids after a crash with the clock behind carry a second past every earlier one ($before_crash < $after_crash)" \
  '[ "$before_crash" -lt "$after_crash" ]'
set_clock_offset 0
batch end

# --- every id made, against every other ------------------------------------------------
echo
q -c "SELECT kind, count(*) AS ids, count(*) - count(DISTINCT id) AS duplicates FROM ids GROUP BY kind ORDER BY kind" -F ' ' |
  while read -r kind n d; do printf '%-14s %8s ids  %s duplicates\n' "$kind" "$n" "$d"; done
# Uniqueness is promised per key space: one mode of Locality UUIDs (clock
# and given-time ids of a mode share it), or Hot Guids. (Ids of the two
# modes can coincide: doc/guarantees.md.)
family="CASE WHEN kind LIKE 'hot%' THEN 'hot' WHEN kind LIKE 'sequential%' THEN 'sequential' ELSE 'variable' END"
read -r total dups < <(q -F ' ' -c "SELECT count(*), count(*) - count(DISTINCT ($family, id)) FROM ids WHERE kind <> 'doomed'")
check "no duplicate within a mode among $total ids" '[ "$dups" = 0 ]'
[ "$dups" = 0 ] || q -c "SELECT id, string_agg(kind || '/' || phase, ' ') FROM ids WHERE kind <> 'doomed'
                         GROUP BY $family, id HAVING count(*) > 1 LIMIT 5"
# With the pid field masked out: uniqueness must not rest on pids differing.
masked=$(q -c "
  SELECT count(*) - count(DISTINCT ($family, CASE WHEN kind LIKE 'hot%'
                                             THEN set_byte(set_byte(uuid_send(id), 6, 0), 8, 0)
                                             ELSE set_byte(set_byte(uuid_send(id), 4, 0), 5, 0) END))
  FROM ids WHERE kind <> 'doomed'")
check "no duplicate with the pid field masked out ($masked)" '[ "$masked" = 0 ]'
[ "$masked" = 0 ] || q -c "SELECT kinds, count(*) FROM (SELECT string_agg(DISTINCT kind || '/' || phase, ' ') AS kinds
                           FROM ids WHERE kind <> 'doomed'
                           GROUP BY $family, CASE WHEN kind LIKE 'hot%' THEN set_byte(set_byte(uuid_send(id), 6, 0), 8, 0)
                                                  ELSE set_byte(set_byte(uuid_send(id), 4, 0), 5, 0) END
                           HAVING count(*) > 1) d GROUP BY 1 ORDER BY 2 DESC LIMIT 10"

[ $failures = 0 ] || { echo "$failures restart check(s) failed"; exit 1; }
echo "restart, crash and clock-step checks passed"
