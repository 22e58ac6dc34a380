#!/usr/bin/env bash
# A plain streaming pair switched over and back ten times (issue #51,
# finding 4): a and b, each with a node value and machine name of its own
# (host files, as a Patroni pair has them), their clocks held at one
# instant. Each leadership makes a side of ids of every kind (lib/sides.sh)
# and SWITCHOVERS_HOT given-time Hot Guids more; then the leader stops
# (fast: its standby receives everything), the standby is promoted, and the
# old leader rejoins as its standby through pg_rewind -R. Each host keeps
# its marks file (locality_uuid.host_marks_file) outside the data
# directory. In two rounds the leader's worker "locality_uuid stop" is
# ended by hand first, and ids are made after the stop it logs: in round
# SWITCHOVERS_VOIDED 1,000, which the standby receives (their record makes
# the stop void), and the member's host's marks file is put back as it was
# at the leadership's start before it returns (behind this history: not
# taken); in round SWITCHOVERS_IMMEDIATE LOST (3.5 million: refills whose
# records the standby never gets, its WAL receiver turned off), and the
# leader stops -m immediate. In round SWITCHOVERS_RESTARTED the standby is
# restarted between the leader's stop and its promotion (the stop then
# reaches the move through its state file).
#
# Every promotion moves the counters. Before the lineage (lineage.hpp)
# each move skipped a random quarter to three quarters of each cycle, and
# two skips can add up to a whole one: a member leading again then drew
# where it drew before, and its given-time Hot Guids (2^24 draws a second)
# repeated. Now a member that made ids in this history before continues
# where its node value and machine bytes left the counters: exactly where
# it stopped after a clean stop (the worker logs the counters in WAL at
# shutdown, reservations/stop.hpp); exactly at its host's marks after an
# unclean end (reservations/host_marks.hpp), where the history lost its
# last refills; 2^20 to 2^21 (a sixteenth to an eighth of the cycle)
# above its marks where neither is known. Checked: 0 repeats among all
# leaderships of all kinds (pid field masked; 1,260,000 Hot Guids
# repeated without the host's marks files, 421,000 with a stale one
# taken); each stop's LOG line gives the Hot Guid draw after the
# leadership's last given-time Hot Guid (the ids' own counter field);
# every promotion after the first says, at LOG, that it went by the
# lineage, by which rule and from where (fails without the worker,
# without the stop closing the marks, without the check of the WAL after
# a stop, without the host's marks, and taking a stale file); a draw
# after a stop never lowers the file's mark; an unwritable host's marks
# file fails ids past the marks with its name and error, and a path in the
# data directory is refused.
#
# Needs PostgreSQL 15+ (the lineage travels in WAL records of a custom
# resource manager); before it, says so and checks nothing.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
. "$ROOT/test/integration/lib/servers.sh"
. "$ROOT/test/integration/lib/ha_nodes.sh"
if [ "$PG_MAJOR" -lt 15 ]; then
  echo "PostgreSQL $PG_MAJOR has no custom WAL resource managers: the lineage travels in the state file only (doc/guarantees.md); nothing to check"
  exit 0
fi
start_work locality-switchovers
IDS=${SWITCHOVERS_IDS:-20000}
HOT=${SWITCHOVERS_HOT:-400000}
ROUNDS=${SWITCHOVERS_ROUNDS:-10}
VOIDED=${SWITCHOVERS_VOIDED:-3}        # a stop made void by ids after it, on the standby too
IMMEDIATE=${SWITCHOVERS_IMMEDIATE:-5}  # a stop whose voiding record the standby never gets, then -m immediate
RESTARTED=${SWITCHOVERS_RESTARTED:-7}  # the standby restarted between the leader's clean stop and its promotion
LOST=${SWITCHOVERS_LOST:-3500000}      # Hot Guids round IMMEDIATE's standby never hears of (> 3 * 2^20)
AFTER_STOP=${SWITCHOVERS_AFTER_STOP:-9}  # the leader stops cleanly, starts again and draws what its standby never gets
stop_in_file=unknown
. "$ROOT/test/integration/lib/sides.sh"

# (Each host keeps its marks file beside its configuration, outside the
# data directory: pg_rewind replaces the state file, never this.)
mkdir -p "$WORK/marks-ha" "$WORK/marks-hb"
make_host ha "locality_uuid.node_id = 7101" "locality_uuid.machine_name = 'pair-a'" \
  "locality_uuid.host_marks_file = '$WORK/marks-ha/marks'"
make_host hb "locality_uuid.node_id = 7102" "locality_uuid.machine_name = 'pair-b'" \
  "locality_uuid.host_marks_file = '$WORK/marks-hb/marks'"
init_node a "wal_log_hints = on" "archive_mode = off"
on_host a ha
chown -R postgres "$WORK"
pgctl a start
q a -c "CREATE EXTENSION locality_uuid"
base_backup a b -R
on_host b hb
pgctl b start

# lead NODE ROUND: NODE's side for ROUND, and HOT more given-time Hot Guids.
# (Its first id makes a promotion's move, which counts the clock's second
# as full: the held clock goes a second on before the side.)
lead() {
  q "$1" -c "SELECT locality_uuid() IS NOT NULL" >/dev/null
  # Round VOIDED: the host's marks file as it is before the leadership's
  # first Hot Guid, put back before the member returns (a DBA restoring a
  # file): behind this history's word, it must not place the return.
  [ "$2" = "$VOIDED" ] && cp "$WORK/marks-h$1/marks" "$WORK/stale.marks"
  # Round 2: one Hot Guid, the first of the leadership: its refill
  # reserves 2^12 above the move's target, not 2^20 (the refills grow with
  # the draws: what an unclean end leaves unused is about what was drawn).
  if [ "$2" = 2 ]; then
    q "$1" -c "SELECT hot_guid(7, $FIXED) IS NOT NULL" >/dev/null
    moved_to=$(sed -n 's/.*LOG:  locality_uuid: counters moved: .*, Hot Guid from [0-9]* to \([0-9]*\),.*/\1/p' "$WORK/$1.log" | tail -n 1)
    first_mark=$(awk '$1 == "hot" { print $2 }' "$WORK/$1/locality_uuid.state")
  fi
  tick
  side "$1" "r$2"
  q "$1" -c "COPY (SELECT encode(set_byte(set_byte(uuid_send(hot_guid(7, $FIXED)), 6, 0), 8, 0), 'hex')
                   FROM generate_series(1, $HOT)) TO STDOUT" >"$WORK/ids/r$2.hot_more"
  # The return after round AFTER_STOP draws past that leadership's last
  # refill (more than 2^20 Hot Guids), onto the ids made after its stop if
  # it continued at the stop.
  if [ "$2" = $((AFTER_STOP + 2)) ]; then
    q "$1" -c "COPY (SELECT encode(set_byte(set_byte(uuid_send(hot_guid(7, $FIXED)), 6, 0), 8, 0), 'hex')
                     FROM generate_series(1, 1100000)) TO STDOUT" >"$WORK/ids/r$2.hot_extra"
  fi
}
# switch FROM TO MODE: FROM stopped (fast: its standby has all its WAL;
# or immediate; or "stopped" already), TO promoted, FROM rewound to follow TO and started as its
# standby (pg_rewind recovers an immediately stopped FROM first).
switch() {
  [ "$3" = stopped ] || pgctl "$1" stop -m "$3"
  if [ "${4:-}" = restart ]; then
    # TO restarted before its promotion: its shutdown restartpoint passes
    # the stop's record, so the stop reaches the move from TO's state file
    # (and its WAL, still there, confirms it).
    pgctl "$2" restart
    grep -q '^stopped machine ' "$WORK/$2/locality_uuid.state" && stop_in_file=yes || stop_in_file=no
  fi
  promote "$2"
  tick
  as_postgres "$BIN/pg_rewind" --target-pgdata="$WORK/$1" --source-server="$(conninfo "$2")" -R \
    >"$WORK/pg_rewind.out" 2>&1 || { cat "$WORK/pg_rewind.out"; exit 1; }
  # (pg_rewind copied the leader's postgresql.conf: FROM's port and host
  # file again, the last include winning.)
  set_port "$1"
  on_host "$1" "h$1"
  pgctl "$1" start
}

leader=a standby=b
start=$SECONDS
for round in $(seq 1 "$ROUNDS"); do
  lead "$leader" "$round"
  if [ "$round" = "$VOIDED" ] || [ "$round" = "$IMMEDIATE" ]; then
    # The stop worker ended by hand while the server goes on: it records a
    # stop (its LOG line once the counters were quiet for 100 ms), and
    # 1,000 given-time Hot Guids then come after it, below the reserved
    # mark. The first of them finds the marks closed and logs a record that
    # makes the stop void. Round VOIDED: the standby gets that record (the
    # fast stop sends it); without the closing, the return would continue
    # at the stop. Round IMMEDIATE: the standby has the stop but never that
    # record (its WAL receiver turned off first), and the leader stops
    # -m immediate: the promoted standby finds no shutdown checkpoint after
    # the stop in its WAL, and must not take it as exact.
    q "$leader" -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'locality_uuid stop'" >/dev/null
    for _ in $(seq 1 100); do
      [ "$(grep -c 'locality_uuid: counters stopped cleanly' "$WORK/$leader.log")" -gt "$(((round - 1) / 2))" ] && break
      sleep 0.1
    done
    if [ "$round" = "$IMMEDIATE" ]; then
      flushed=$(q "$leader" -c "SELECT pg_current_wal_flush_lsn()")
      for _ in $(seq 1 300); do
        [ "$(q "$standby" -c "SELECT pg_last_wal_replay_lsn() >= '$flushed'")" = t ] && break
        sleep 0.1
      done
      q "$standby" -c "ALTER SYSTEM SET primary_conninfo = ''" -c "SELECT pg_reload_conf()" >/dev/null
      for _ in $(seq 1 300); do
        [ "$(q "$standby" -c "SELECT count(*) FROM pg_stat_wal_receiver")" = 0 ] && break
        sleep 0.1
      done
    fi
    # (Round IMMEDIATE: LOST of them, refills whose records the standby
    # never gets, more than the largest gap a return could take above the
    # marks it has: only the leader's host's marks file knows them.)
    after=1000
    [ "$round" = "$IMMEDIATE" ] && after=$LOST
    q "$leader" -c "COPY (SELECT encode(set_byte(set_byte(uuid_send(hot_guid(7, $FIXED)), 6, 0), 8, 0), 'hex')
                          FROM generate_series(1, $after)) TO STDOUT" >"$WORK/ids/r$round.hot_after"
    if [ "$round" = "$IMMEDIATE" ]; then
      receivers=$(q "$standby" -c "SELECT count(*) FROM pg_stat_wal_receiver")
      behind=$(q "$standby" -c "SELECT pg_last_wal_replay_lsn() < '$(q "$leader" -c "SELECT pg_current_wal_flush_lsn()")'")
      check "round $round: the standby has the stop ($flushed) but not the record after it (WAL receivers $receivers, replay behind the leader: $behind)" \
        "[ $receivers = 0 ] && [ $behind = t ]"
    fi
  fi
  # The member of round VOIDED returns at the end of the next: its host's
  # marks file as it was at that leadership's start, put back.
  [ "$round" = $((VOIDED + 1)) ] && cp "$WORK/stale.marks" "$WORK/marks-h$standby/marks"
  mode=fast
  [ "$round" = "$IMMEDIATE" ] && mode=immediate
  if [ "$round" = "$AFTER_STOP" ]; then
    # The leader stops cleanly (its standby gets the stop and the shutdown
    # checkpoint after it: a stop it confirms), the standby's WAL receiver
    # is turned off, and the leader starts again, makes 1,000 given-time
    # Hot Guids and stops -m immediate: the standby never hears of them.
    # Only the leader's host's marks file, written by the later start,
    # says the member drew past its stop.
    pgctl "$leader" stop -m fast
    q "$standby" -c "ALTER SYSTEM SET primary_conninfo = ''" -c "SELECT pg_reload_conf()" >/dev/null
    for _ in $(seq 1 300); do
      [ "$(q "$standby" -c "SELECT count(*) FROM pg_stat_wal_receiver")" = 0 ] && break
      sleep 0.1
    done
    pgctl "$leader" start
    q "$leader" -c "COPY (SELECT encode(set_byte(set_byte(uuid_send(hot_guid(7, $FIXED)), 6, 0), 8, 0), 'hex')
                          FROM generate_series(1, 1000)) TO STDOUT" >"$WORK/ids/r$round.hot_after"
    pgctl "$leader" stop -m immediate
    mode=stopped
  fi
  switch "$leader" "$standby" "$mode" "$([ "$round" = "$RESTARTED" ] && echo restart)"
  t=$leader; leader=$standby; standby=$t
done
lead "$leader" $((ROUNDS + 1))
echo "drove: $ROUNDS switchovers with pg_rewind, $((ROUNDS + 1)) leaderships; $((SECONDS - start)) s"

# Repeats among all leaderships, per kind (the extra Hot Guids with theirs).
counts="" total=0 made=0
for k in "${KINDS[@]}"; do
  files=("$WORK"/ids/r*."$k")
  [ "$k" = hot_at ] && files+=("$WORK"/ids/r*.hot_more "$WORK"/ids/r*.hot_after "$WORK"/ids/r*.hot_extra)
  n=$(cat "${files[@]}" | LC_ALL=C sort -S 256M | uniq -d | wc -l)
  c=$(cat "${files[@]}" | wc -l)
  counts+="${counts:+, }$k $c ($n repeated)"
  total=$((total + n)); made=$((made + c))
done
check "$made ids over $((ROUNDS + 1)) leaderships, pid field masked: $counts" "[ $total = 0 ]"

# The clean stops: each leader's LOG line (in its log, in the order of its
# rounds; round IMMEDIATE's by the worker ended by hand), whose Hot Guid
# draw must follow the counter field of the leadership's last given-time
# Hot Guid (bytes 9-11; one backend drew them in order, and nothing after
# them but round IMMEDIATE's 1,000 after its stop).
stops=0 wrong_stops=""
for node in a b; do
  mapfile -t at < <(sed -n 's/.*LOG:  locality_uuid: counters stopped cleanly at variable [0-9]*, given-time [0-9]*, Hot Guid \([0-9]*\)$/\1/p' "$WORK/$node.log")
  i=0
  for round in $(seq 1 "$ROUNDS"); do
    [ $((round % 2)) = 1 ] && by=a || by=b
    [ "$by" = "$node" ] || continue
    last=$(tail -n 1 "$WORK/ids/r$round.hot_more")
    want=$(( (16#${last:18:6} + 1) % 16777216 ))
    got=${at[$i]:-none}
    [ "$got" != none ] && [ $((got % 16777216)) = "$want" ] || wrong_stops+=" r$round: $got (want ... $want)"
    i=$((i + 1)); stops=$((stops + 1))
  done
  [ "${#at[@]}" = "$i" ] || wrong_stops+=" $node: ${#at[@]} stop lines for $i clean stops"
done
check "$stops stops logged (two by the worker ended by hand), each at the draw after its leadership's last Hot Guid${wrong_stops:+: wrong:$wrong_stops}" \
  "[ $stops -gt 0 ] && [ -z \"$wrong_stops\" ]"

# The moves: each promotion's LOG line, and after the first two, the
# lineage's rule for the Hot Guid draw.
moves=0 exact=0 gapped=0 by_host=0 after_stop=0 host_gained="" wrong=""
for node in a b; do
  while IFS= read -r pair; do
    moved=${pair%%|*} why=${pair#*|}
    moves=$((moves + 1))
    to=$(sed -n 's/.*, Hot Guid from [0-9]* to \([0-9]*\),.*/\1/p' <<<"$moved")
    if [[ $why == *"machine bytes "*" stopped cleanly in this history: where it stopped, at "* ]]; then
      left=$(sed -n 's/.*machine bytes [0-9]* stopped cleanly in this history: where it stopped, at \([0-9]*\).*/\1/p' <<<"$why")
      exact=$((exact + 1))
      gap=$(( (to - left) % 16777216 ))
      [ "$gap" = 0 ] || wrong+=" $node: stopped at $left -> $to (gap $gap)"
    elif [[ $why == *"machine bytes "*" made ids in this history before: at its host's marks, "*", then drew in a later start)"* ]]; then
      # A clean stop, then a later start's draws: at the host's mark,
      # above the stop.
      read -r marked left < <(sed -n "s/.*machine bytes [0-9]* made ids in this history before: at its host's marks, \([0-9]*\) (it stopped cleanly at \([0-9]*\), then drew in a later start).*/\1 \2/p" <<<"$why")
      after_stop=$((after_stop + 1))
      gap=$(( (to - marked) % 16777216 ))
      [ "$gap" = 0 ] && [ "$marked" -gt "$left" ] || wrong+=" $node: host's mark $marked after the stop at $left -> $to (gap $gap)"
    elif [[ $why == *"machine bytes "*" made ids in this history before: at its host's marks, "* ]]; then
      # Exactly at the host's mark, which lies above where this history
      # had the member leave by the refills it never heard of.
      read -r marked left < <(sed -n "s/.*machine bytes [0-9]* made ids in this history before: at its host's marks, \([0-9]*\) (this history had it leave at \([0-9]*\)).*/\1 \2/p" <<<"$why")
      by_host=$((by_host + 1))
      host_gained+=" $((marked - left))"
      gap=$(( (to - marked) % 16777216 ))
      [ "$gap" = 0 ] && [ "$((marked - left))" -gt 2097152 ] || wrong+=" $node: host's mark $marked, left at $left -> $to (gap $gap)"
    elif [[ $why == *"machine bytes "*" made ids in this history before: above where it left, at "* ]]; then
      left=$(sed -n 's/.*machine bytes [0-9]* made ids in this history before: above where it left, at \([0-9]*\).*/\1/p' <<<"$why")
      [[ $why == *"(its host's marks file, at "*", is behind this history)"* ]] || wrong+=" $node: gapped without the stale host file: $why"
      gapped=$((gapped + 1))
      gap=$(( (to - left) % 16777216 ))
      [ "$gap" -ge 1048576 ] && [ "$gap" -lt 2097152 ] || wrong+=" $node: left at $left -> $to (gap $gap)"
    fi
  done < <(awk '/LOG:  locality_uuid: counters moved: / { m = $0; getline d; print m "|" (d ~ /DETAIL:  By the lineage: / ? d : "") }' "$WORK/$node.log")
done
check "the first Hot Guid after a move reserves 2^12: the file's mark $first_mark, the move's target $moved_to" \
  "[ -n \"$moved_to\" ] && [ -n \"$first_mark\" ] && [ \$((first_mark - moved_to)) = 4096 ]"
check "round $RESTARTED: the standby restarted after the leader's stop holds it in its state file: $stop_in_file" \
  "[ $stop_in_file = yes ]"
want_gapped=0 want_host=0 want_after_stop=0
[ "$VOIDED" -ge 1 ] && [ "$VOIDED" -lt "$ROUNDS" ] && want_gapped=1
[ "$IMMEDIATE" -ge 1 ] && [ "$IMMEDIATE" -lt "$ROUNDS" ] && want_host=1
[ "$AFTER_STOP" -ge 1 ] && [ "$AFTER_STOP" -lt "$ROUNDS" ] && want_after_stop=1
check "$moves moves logged, by the lineage to a member's own place: $exact where it stopped cleanly (gap 0), $by_host after round $IMMEDIATE at its host's marks (gap 0; above where this history had it leave by:$host_gained), $after_stop after round $AFTER_STOP at its host's marks above its clean stop (gap 0), $gapped after round $VOIDED (its host's file put back behind: 2^20 to 2^21 above its marks)${wrong:+: wrong:$wrong}" \
  "[ $moves = $ROUNDS ] && [ $exact = $((ROUNDS - 1 - want_gapped - want_host - want_after_stop)) ] && [ $by_host = $want_host ] && [ $after_stop = $want_after_stop ] && [ $gapped = $want_gapped ] && [ -z \"$wrong\" ]"

# A stop closes the marks, so that a draw after it takes the slow path
# even below them: what it writes must not lower a mark (a record of the
# closed marks reopens them; a refill never lowers one). A session
# holds a block of variable draws (256, taken at its first id) while
# others draw 2^22 + 2^10 more; the stop worker is ended by hand; the
# session draws again, from its block, far below the counters. The state
# file's variable mark must stay above every id drawn (the stop's place).
stops_before=$(grep -c 'locality_uuid: counters stopped cleanly' "$WORK/$leader.log")
lower=$WORK/lower.sql
cat >"$lower" <<SQL
SELECT locality_uuid(false) IS NOT NULL;
\\! psql -X -q -At "$(conninfo "$leader")" -c "SELECT count(locality_uuid(false)) FROM generate_series(1, 4195328)" >/dev/null
\\! psql -X -q -At "$(conninfo "$leader")" -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'locality_uuid stop'" >/dev/null
\\! for i in \$(seq 1 100); do [ "\$(grep -c 'locality_uuid: counters stopped cleanly' "$WORK/$leader.log")" -gt $stops_before ] && break; sleep 0.1; done
SELECT locality_uuid(false) IS NOT NULL;
SQL
q "$leader" -f "$lower" >/dev/null
stopped_at=$(sed -n 's/.*LOG:  locality_uuid: counters stopped cleanly at variable \([0-9]*\),.*/\1/p' "$WORK/$leader.log" | tail -n 1)
mark=$(awk '$1 == "variable" { print $2 }' "$WORK/$leader/locality_uuid.state")
check "a draw from a block taken before 2^22 others, after a stop: the file's variable mark $mark stays above the stop's $stopped_at" \
  "[ -n \"$stopped_at\" ] && [ -n \"$mark\" ] && [ \"$mark\" -gt \"$stopped_at\" ]"

# The host's marks file cannot be written (its directory read-only): a
# draw that needs a refill fails with the file's name and error, at once
# and loudly, and ids come again once it can be written. (More than 2^21
# Hot Guids: at least two refills.)
chmod 555 "$WORK/marks-h$leader"
err=$(q "$leader" -v VERBOSITY=verbose -c "SELECT count(hot_guid(7, $FIXED)) FROM generate_series(1, 2200000)" 2>&1 || true)
check "an unwritable host's marks file: ids past the marks fail: ${err:0:160}" \
  "grep -q 'ERROR:  42501: could not reserve ids in \"$WORK/marks-h$leader/marks\": Permission denied' <<<\"\$err\" &&
   grep -q \"HINT:  Free space in the locality_uuid.host_marks_file's file system\" <<<\"\$err\" &&
   grep -q 'LOG:  locality_uuid: could not write \"$WORK/marks-h$leader/marks\": Permission denied' \"$WORK/$leader.log\""
chmod 755 "$WORK/marks-h$leader"
sleep 0.3  # the write's back-off (reservation.cpp)
made=$(q "$leader" -c "SELECT count(hot_guid(7, $FIXED)) FROM generate_series(1, 2200000)")
host_mark=$(awk '$1 == "machine" { print $4 }' "$WORK/marks-h$leader/marks")
file_mark=$(awk '$1 == "hot" { print $2 }' "$WORK/$leader/locality_uuid.state")
check "... writable again: $made ids, the host's Hot Guid mark $host_mark the state file's $file_mark" \
  "[ $made = 2200000 ] && [ -n \"$host_mark\" ] && [ \"$host_mark\" = \"$file_mark\" ]"
# The setting cleared and the leader restarted: the file its earlier
# starts wrote is removed (it would no longer follow the ids, and a
# history that lost their end could take it for it); set again, the
# first refill writes it anew. (Each pg_rewind above brought the other
# member's pointer, naming that host's file: left, or its returns would
# have found no file.)
marks=$WORK/marks-h$leader/marks
echo "locality_uuid.host_marks_file = ''" >>"$WORK/$leader/postgresql.conf"
pgctl "$leader" restart
removed=$([ -e "$marks" ] && echo no || echo yes)
check "the setting cleared, restarted: \"$marks\" removed ($removed), said at LOG, the pointer gone" \
  "[ $removed = yes ] && grep -q 'LOG:  locality_uuid: removed \"$marks\", the host.s marks file of an earlier start' \"$WORK/$leader.log\" &&
   [ ! -e \"$WORK/$leader/locality_uuid.host_marks\" ]"
sed -i '$d' "$WORK/$leader/postgresql.conf"
pgctl "$leader" restart
q "$leader" -c "SELECT hot_guid(7, $FIXED) IS NOT NULL" >/dev/null
check "... set again: written at the first refill, the pointer naming it" \
  "[ -e \"$marks\" ] && grep -qx \"path $marks\" \"$WORK/$leader/locality_uuid.host_marks\""

# "auto", the default: beside the data directory (the explicit file
# removed, as changed); where it cannot be written there, given up at LOG
# and removed, and ids go on (a member leading again after a failover
# then skips the gap, as without the file).
beside=$WORK/$leader.locality_uuid_marks
echo "locality_uuid.host_marks_file = 'auto'" >>"$WORK/$leader/postgresql.conf"
pgctl "$leader" restart
q "$leader" -c "SELECT hot_guid(7, $FIXED) IS NOT NULL" >/dev/null
check "auto: written beside the data directory ($beside, machine line: $(grep '^machine' "$beside" 2>/dev/null)), the explicit file removed" \
  "[ -e \"$beside\" ] && [ ! -e \"$marks\" ] && grep -qx \"path $beside\" \"$WORK/$leader/locality_uuid.host_marks\""
pgctl "$leader" restart
rm -f "$beside"
chmod 555 "$WORK"
made=$(q "$leader" -c "SELECT count(hot_guid(7, $FIXED)) FROM generate_series(1, 2200000)" 2>&1 || true)
chmod 755 "$WORK"
check "... the data directory's parent unwritable: $made ids all the same, the file given up at LOG, not there" \
  "[ \"$made\" = 2200000 ] && [ ! -e \"$beside\" ] &&
   grep -q 'LOG:  locality_uuid: gave up the host.s marks file \"$beside\": Permission denied' \"$WORK/$leader.log\""

# A server on the same host whose note names another server's file (a
# base backup taken from a sibling on this host): never removes it (its
# cluster's, but another data directory's).
sed -i "s|^path .*|path $beside|" "$WORK/$standby/locality_uuid.host_marks"
pgctl "$leader" restart  # (given up until a start: written again at its first refill)
q "$leader" -c "SELECT hot_guid(7, $FIXED) IS NOT NULL" >/dev/null
pgctl "$standby" restart
check "a note naming a sibling's file on the same host: \"$beside\" left ($([ -e "$beside" ] && echo yes || echo no))" \
  "[ -e \"$beside\" ] && ! grep -q 'removed \"$beside\"' \"$WORK/$standby.log\""

# Inside the data directory, or relative to it, the file would be
# replaced by pg_rewind, a restore or a copy: refused.
for path in marks "$WORK/$leader/marks"; do
  err=$(q "$leader" -c "ALTER SYSTEM SET locality_uuid.host_marks_file = '$path'" 2>&1 || true)
  check "locality_uuid.host_marks_file = '$path' refused: ${err:0:120}" \
    "grep -q 'invalid value for parameter \"locality_uuid.host_marks_file\": \"$path\"' <<<\"\$err\" &&
     grep -q 'DETAIL:  The host.s marks file must be .auto., empty, or an absolute path outside the data directory' <<<\"\$err\""
done

echo
[ "$failures" = 0 ] && echo "all switchover checks passed" || { echo "$failures switchover checks FAILED"; exit 1; }
