#!/usr/bin/env bash
# Behaviour that depends on how the library is loaded (the regression
# suites run identically in both ways, so these checks live here).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"

fail() { echo "FAIL: $*"; exit 1; }
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }

check_shared() {
  out=$(q -c "CREATE EXTENSION locality_uuid" 2>&1)
  [ -z "$out" ] || fail "CREATE EXTENSION with the library preloaded says: $out"
  [ "$(q -c 'SHOW locality_uuid.shared_counter')" = on ] || fail "shared_counter is not on when preloaded"
  [ "$(q -c 'SELECT locality_uuid_counter_scope()')" = server ] || fail "scope is not server"
  echo "preloaded: counter scope is 'server'"
  # The start says what the WAL records ask of every server that replays them.
  local log=$PG_CLUSTER_CONF_ROOT/$PGVERSION/regress/log line
  if [ "$PGVERSION" -ge 15 ]; then
    line=$(grep -A1 "LOG:  locality_uuid: server-wide counters are reserved in \"locality_uuid.state\" and in WAL records of resource manager 128" "$log") &&
      grep -q "DETAIL:  Every server that replays this WAL (standbys, point-in-time recovery, pg_rewind) must preload locality_uuid" <<<"$line" ||
      fail "no LOG at start about the WAL records: $(grep locality_uuid "$log" | head -3)"
  else
    line=$(grep -A1 "LOG:  locality_uuid: server-wide counters are reserved in \"locality_uuid.state\"" "$log") ||
      fail "no LOG at start about the state file"
  fi
  echo "preloaded: the start logs: $(head -n 1 <<<"$line" | sed 's/.*LOG:  //')"

  # Four sessions insert 500 ids each, concurrently, in the given mode.
  q -c "CREATE TABLE runs (id uuid PRIMARY KEY)"
  insert_concurrently() {
    q -c "TRUNCATE runs"
    for i in 1 2 3 4; do
      q -c "INSERT INTO runs SELECT locality_uuid($1) FROM generate_series(1, 500)" &
    done
    wait
  }

  # One sequential run per server: the sessions' ids are one run of
  # distinct counters. Each backend takes its places 256 at a time, so the
  # run has a gap of at most one partly used block per session (separate
  # per-backend runs would all start at base + 1 and repeat counters).
  # (Made again if a 10-minute window ended meanwhile: each window has a
  # run of its own.)
  local windows
  for _ in 1 2; do
    insert_concurrently true
    # (The span is taken mod 2^32: a run may pass 2^32 - 1 on to 0.)
    read -r n distinct span windows < <(q -F ' ' -c "
      WITH c AS (SELECT id, locality_uuid_counter(id, true) AS c FROM runs),
           d AS (SELECT id, c, (c - (SELECT min(c) FROM c) + 2147483648) % 4294967296 - 2147483648 AS d FROM c)
      SELECT count(*), count(DISTINCT c), max(d) - min(d) + 1,
             count(DISTINCT floor(extract(epoch FROM locality_uuid_timestamp(id)) / 600))
      FROM d")
    [ "$windows" = 1 ] && break
  done
  echo "4 sessions x 500 sequential ids: $n ids, $distinct distinct counters spanning $span values"
  [ "$n" = 2000 ] && [ "$distinct" = 2000 ] && [ "$span" -le $((2000 + 4 * 255)) ] ||
    fail "sequential ids are not one server-wide run"

  # Variable mode: the counters of all sessions are one arithmetic sequence.
  insert_concurrently false
  # Dividing by the prime (multiplying by its inverse mod 2^32) turns each
  # counter into its position in the server's sequence: 2000 ids must be
  # 2000 distinct positions within the blocks the sessions took.
  read -r n span < <(q -F ' ' -c "
    WITH c AS (SELECT locality_uuid_counter(id)::numeric AS c FROM runs),
         pos AS (SELECT ((c - (SELECT min(c) FROM c) + 4294967296) * 3127333277 + 100000) % 4294967296 AS k FROM c)
    SELECT count(DISTINCT k), max(k) - min(k) + 1 FROM pos")
  echo "4 sessions x 500 variable ids: $n distinct positions spanning $span in the server's sequence"
  [ "$n" = 2000 ] && [ "$span" -le $((2000 + 4 * 255)) ] || fail "variable-mode counters are not one server-wide sequence"

  # Monitoring the current window's run: 10,000 more sequential ids draw
  # 10,000 more of its 2^31 (plus what this session's block of 256 holds);
  # drawn plus left is 2^31 less the server's run start.
  # (Measured again if a window ended in between.)
  local before after left w0 w1 start
  start=$(q -c "SELECT run_start FROM locality_uuid_binding()")
  for _ in 1 2; do
    read -r w0 before < <(q -F ' ' -c "SELECT extract(epoch FROM window_start), ids_drawn FROM locality_uuid_window_usage()")
    read -r w1 after left < <(q -F ' ' -c "SELECT count(locality_uuid(true)) FROM generate_series(1, 10000)" \
      -c "SELECT extract(epoch FROM window_start), ids_drawn, ids_left FROM locality_uuid_window_usage()" | tail -n 1)
    [ "$w0" = "$w1" ] && break
  done
  [ "$w0" = "$w1" ] && [ $((after - before)) -ge 10000 ] && [ $((after - before)) -le 10256 ] &&
    [ $((after + left + start)) = 2147483648 ] || fail "window usage: $before then $after drawn, $left left, run start $start"
  echo "locality_uuid_window_usage(): $before then $after of 2,147,483,648 drawn after 10,000 ids ($left left)"
  # The postmaster-level setting cannot change in a running server.
  out=$(q -c "SET locality_uuid.shared_counter = off" 2>&1 || true)
  echo "$out" | grep -q 'cannot be changed without restarting the server' || fail "shared_counter changed at run time: $out"
  echo "locality_uuid.shared_counter is fixed at server start"
  [ "$(q -c 'SELECT node_id FROM (SELECT locality_uuid_node_id() AS node_id) s')" = 268435455 ] || fail "node_id from postgresql.conf not used"
  [ "$(q -c 'SELECT locality_uuid_node(locality_uuid())')" = 268435455 ] || fail "ids do not carry node_id"
  [ "$(q -c 'SELECT locality_uuid_node_source()')" = setting ] || fail "node source"
  [ "$(q -c 'SELECT locality_uuid_mac(locality_uuid())')" = 00:00:0f:ff:ff:ff ] || fail "MAC fragment of node 268435455"
  echo "node id from postgresql.conf (268435455) is in use and in every id"

  # One node value per server: not settable in a session or per role, changed
  # by the server's configuration and a reload.
  out=$(q -c "SET locality_uuid.node_id = 5" 2>&1 || true)
  grep -q 'cannot be changed now' <<<"$out" || fail "node_id settable in a session: $out"
  out=$(q -c "ALTER ROLE CURRENT_USER SET locality_uuid.node_id = 5" 2>&1 || true)
  grep -q 'cannot be changed now' <<<"$out" || fail "node_id settable per role: $out"
  q -c "ALTER SYSTEM SET locality_uuid.node_id = 77" -c "SELECT pg_reload_conf()" >/dev/null
  for _ in $(seq 50); do [ "$(q -c 'SHOW locality_uuid.node_id')" = 77 ] && break; sleep 0.2; done
  [ "$(q -c 'SELECT locality_uuid_node(locality_uuid())')" = 77 ] || fail "node_id after ALTER SYSTEM and reload"
  q -c "ALTER SYSTEM RESET locality_uuid.node_id" -c "SELECT pg_reload_conf()" >/dev/null
  echo "node_id: refused per session and role, changed by ALTER SYSTEM + reload"
}

# Preloaded, but with per-backend counters: each backend must seed its own
# counter after fork, not inherit the postmaster's.
check_per_backend_after_fork() {
  q -c "CREATE EXTENSION locality_uuid"
  [ "$(q -c 'SELECT locality_uuid_counter_scope()')" = backend ] || fail "scope is not backend"
  local firsts=()
  for i in 1 2 3 4 5 6; do
    firsts+=("$(q -c 'SELECT locality_uuid_counter(locality_uuid(false))')")
  done
  echo "first variable-mode counter of 6 fresh backends: ${firsts[*]}"
  [ "$(printf '%s\n' "${firsts[@]}" | sort -u | wc -l)" = 6 ] || fail "backends share a starting counter"
  # Sequential mode starts each backend's run at base + 1 + its own run
  # start (below 2^24), which locality_uuid_binding() shows.
  local offsets=() seq start
  for i in 1 2 3 4; do
    read -r seq start < <(q -F ' ' -c "
      SELECT (locality_uuid_counter(id, true) - ('x' || substr(h,7,2) || substr(h,5,2) || substr(h,3,2) || substr(h,1,2))::bit(32)::bigint + 4294967296) % 4294967296,
             (SELECT run_start FROM locality_uuid_binding())
      FROM (SELECT id, md5(left(to_char(locality_uuid_timestamp(id) AT TIME ZONE 'UTC', 'YYYYMMDDHH24MI'), 11)) AS h
            FROM (SELECT locality_uuid(true) AS id) s) t")
    [ "$seq" = $((start + 1)) ] && [ "$start" -lt 16777216 ] ||
      fail "a fresh backend's first sequential id is base + $seq, its run start $start"
    offsets+=("$seq")
  done
  [ "$(printf '%s\n' "${offsets[@]}" | sort -u | wc -l)" = 4 ] || fail "backends share a run start"
  echo "a fresh backend's first sequential id is its window's base + 1 + its own run start: ${offsets[*]}"
}

# Not preloaded, with locality_uuid.shared_counter in postgresql.conf: a
# session that loads the library late gets no warning about it. Settings
# are placeholders until the library is loaded, and PostgreSQL refuses an
# ordinary role's ALTER ROLE/DATABASE SET of a placeholder; once the
# session has loaded the library, the role may.
check_not_preloaded() {
  q -c "CREATE EXTENSION locality_uuid" -c "CREATE ROLE regress_owner" -c "ALTER DATABASE postgres OWNER TO regress_owner"
  out=$(psql -X -q -At -c "SELECT locality_uuid_counter_scope()" 2>&1)
  [ "$out" = backend ] || fail "loading the library late with shared_counter in postgresql.conf: $out"
  echo "not preloaded, shared_counter in postgresql.conf: no warning when a session loads the library"
  out=$(psql -X -q -c "SET ROLE regress_owner" -c "ALTER DATABASE postgres SET locality_uuid.sequential = on" 2>&1 || true)
  grep -q 'permission denied to set parameter "locality_uuid.sequential"' <<<"$out" ||
    fail "an ordinary role set a placeholder: $out"
  q -c "SET ROLE regress_owner" -c "SELECT locality_uuid_counter_scope()" -c "ALTER DATABASE postgres SET locality_uuid.sequential = on" >/dev/null
  [ "$(q -c 'SHOW locality_uuid.sequential')" = on ] || fail "database setting after loading the library"
  echo "not preloaded: an ordinary role's ALTER DATABASE SET is refused until its session loaded the library"
}

# Not preloaded, nothing configured: what a DBA sees agrees with what runs.
# CREATE EXTENSION says it with a WARNING; shared_counter reads off, as the
# counter scope is 'backend'; the settings exist once the session loaded
# the library (before that, SHOW is 42704).
check_words_without_preloading() {
  out=$(psql -X -q -v VERBOSITY=verbose -c "SHOW locality_uuid.sequential" 2>&1 || true)
  grep -q 'ERROR:  42704: unrecognized configuration parameter "locality_uuid.sequential"' <<<"$out" ||
    fail "SHOW before the library is loaded: $out"
  out=$(q -c "CREATE EXTENSION locality_uuid" 2>&1)
  grep -q "WARNING:  locality_uuid is not in shared_preload_libraries: each session makes ids with counters of its own" <<<"$out" &&
    grep -q "HINT:  Add locality_uuid to shared_preload_libraries and restart the server" <<<"$out" ||
    fail "CREATE EXTENSION without preloading: $out"
  echo "not preloaded: CREATE EXTENSION says so ($(head -n 1 <<<"$out"))"
  read -r scope shared < <(q -F ' ' -c "SELECT locality_uuid_counter_scope(), current_setting('locality_uuid.shared_counter')")
  [ "$scope $shared" = "backend off" ] || fail "not preloaded: scope $scope, shared_counter $shared"
  [ "$(q -c "LOAD 'locality_uuid'" -c "SELECT setting FROM pg_settings WHERE name = 'locality_uuid.shared_counter'")" = off ] ||
    fail "pg_settings shows shared_counter on without preloading"
  echo "not preloaded: counter scope 'backend' and shared_counter 'off' agree"
  # The first id of each session says it too, once per session.
  out=$(psql -X -q -At -c "SELECT locality_uuid() IS NOT NULL" -c "SELECT hot_guid(1) IS NOT NULL" 2>&1)
  [ "$(grep -c "WARNING:  locality_uuid is not in shared_preload_libraries: this session makes ids with counters of its own" <<<"$out")" = 1 ] &&
    [ "$(grep -c '^t$' <<<"$out")" = 2 ] || fail "first ids of a session without preloading: $out"
  echo "not preloaded: a session's first id warns once ($(grep -c WARNING <<<"$out") WARNING for 2 ids)"
  out=$(psql -X -q -At -v VERBOSITY=verbose -c "SELECT * FROM locality_uuid_window_usage()" 2>&1 || true)
  grep -q "ERROR:  55000: cannot report the window's sequential ids without server-wide counters" <<<"$out" ||
    fail "window usage without preloading: $out"
}

# Preloading lost after server-wide ids (a conf.d file overwritten, an
# edit of shared_preload_libraries): ids are refused with 55000 while the
# data directory holds locality_uuid.state, until preloading comes back or
# counters per session are chosen (shared_counter off); an explicit
# shared_counter = on without preloading is refused as well.
check_lost_preloading() {
  q -c "CREATE EXTENSION locality_uuid"
  q -c "SELECT locality_uuid(true)" >/dev/null
  [ "$(q -c 'SELECT locality_uuid_counter_scope()')" = server ] || fail "scope is not server"
  q -c "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'"  # another library's setup replaced it
  pg_ctlcluster "$PGVERSION" regress restart
  local id out
  id=$(q -c "SELECT '20be0ffc-314a-bd53-7a50-013a65ca76d2'::uuid")
  for call in "locality_uuid(true)" "locality_uuid()" "hot_guid(1)" "locality_uuid_at(now(), true)"; do
    out=$(psql -X -q -At -v VERBOSITY=verbose -c "SELECT $call" 2>&1 || true)
    grep -q 'ERROR:  55000: locality_uuid is not in shared_preload_libraries, but this cluster has made ids with server-wide counters' <<<"$out" &&
      grep -q 'DETAIL:  The data directory holds "locality_uuid.state". Counters of each session would not continue past its reservations' <<<"$out" &&
      grep -q 'HINT:  Add locality_uuid to shared_preload_libraries and restart the server. To make ids with counters of each session on purpose, set locality_uuid.shared_counter = off.' <<<"$out" ||
      fail "preloading lost, $call: $out"
  done
  [ "$(q -c "SELECT locality_uuid_counter('$id')")" = 3488672514 ] || fail "readers without preloading"
  echo "preloading lost: every generator refused with 55000, readers work ($(head -n 1 <<<"$out" | cut -c1-110))"
  q -c "LOAD 'locality_uuid'" -c "ALTER SYSTEM SET locality_uuid.shared_counter = on" -c "SELECT pg_reload_conf()" >/dev/null
  sleep 0.5
  out=$(psql -X -q -At -v VERBOSITY=verbose -c "SELECT locality_uuid()" 2>&1 || true)
  grep -q 'ERROR:  55000: locality_uuid.shared_counter is on, but locality_uuid is not in shared_preload_libraries' <<<"$out" ||
    fail "shared_counter on without preloading: $out"
  echo "shared_counter set on without preloading: refused ($(head -n 1 <<<"$out" | cut -c1-90))"
  q -c "LOAD 'locality_uuid'" -c "ALTER SYSTEM SET locality_uuid.shared_counter = off" -c "SELECT pg_reload_conf()" >/dev/null
  sleep 0.5
  out=$(psql -X -q -At -c "SELECT locality_uuid_counter_scope()" -c "SELECT count(locality_uuid(true)) FROM generate_series(1, 1000)" 2>&1)
  [ "$out" = "$(printf 'backend\n1000')" ] || fail "counters per session chosen with shared_counter off: $out"
  echo "counters per session chosen (shared_counter = off): 1000 ids, no warning"
}

export -f check_shared check_per_backend_after_fork check_not_preloaded check_words_without_preloading check_lost_preloading fail q
with_cluster -o shared_preload_libraries=locality_uuid -o locality_uuid.node_id=268435455 -- bash -c check_shared
with_cluster -o shared_preload_libraries=locality_uuid -o locality_uuid.shared_counter=off -- bash -c check_per_backend_after_fork
with_cluster -o locality_uuid.shared_counter=off -- bash -c check_not_preloaded
with_cluster -- bash -c check_words_without_preloading
with_cluster -o shared_preload_libraries=locality_uuid -- bash -c check_lost_preloading
echo "preload checks passed"
