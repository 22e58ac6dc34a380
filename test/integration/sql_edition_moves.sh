#!/usr/bin/env bash
# The SQL edition's counters where a database moves (issue #36), on a
# server that preloads the C edition:
#   copies      a CREATE DATABASE ... TEMPLATE copy and its origin, making
#               N ids of each of six kinds at the same time: the copy's
#               first id moves its counters (by at least 2^30 variable,
#               2^29 given-time, 2^22 Hot Guid draws, 2^20 run places; the
#               run start redrawn) and warns once, the origin's never; 0
#               ids repeated with the pid field masked. A dump restored in
#               a new database, and set_node on a copy before its first
#               id, move them too
#   upgrade     the 1.2, 1.3 and 1.4 psql scripts and extensions (test/fixtures),
#               upgraded in place: node value, machine name, variable start
#               and counters kept, the counters bound where 1.2 recorded
#               them (no warning), routines those of a fresh install, nothing
#               retired left, the extension's members and dumped sequences
#   move        SQL edition -> C edition -> SQL edition on one database
#               with one node value: N ids of each of six kinds per step;
#               after each handover (locality_uuid_counters() into the
#               other's locality_uuid_continue_after()) the first ids carry
#               exactly the counters the other edition would have given
#               next; 0 ids repeated with the pid field masked
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
make -s -C "$ROOT" PG_CONFIG="$PG_CONFIG" sql-edition
export SCRIPT="$ROOT/locality_uuid_sql.sql" EXT_DIR VERSION WORK
export FIXTURES="$ROOT/test/fixtures" N=${SQL_EDITION_MOVE_IDS:-100000}
VERSION=$(sql_edition_version)
EXT_DIR="$("$PG_CONFIG" --sharedir)/extension"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; rm -f "$EXT_DIR/locality_uuid_sql--1.2.sql" "$EXT_DIR/locality_uuid_sql--1.3.sql" "$EXT_DIR/locality_uuid_sql--1.4.sql"; make -s -C "$ROOT/locality_uuid_sql" PG_CONFIG="$PG_CONFIG" uninstall >/dev/null' EXIT
make -s -C "$ROOT/locality_uuid_sql" PG_CONFIG="$PG_CONFIG" install >/dev/null
# A released version's script never changes: if this build is one of them
# (SQL_EDITION_VERSION below the library's), it is that release's, byte for byte.
if [ -f "$FIXTURES/sql_edition_$VERSION/locality_uuid_sql--$VERSION.sql" ]; then
  cmp -s "$FIXTURES/sql_edition_$VERSION/locality_uuid_sql--$VERSION.sql" "$ROOT/locality_uuid_sql/locality_uuid_sql--$VERSION.sql" ||
    { echo "FAIL: src/sql changed since release $VERSION of the SQL edition: give it a new version and an update script"; exit 1; }
fi
# The released extension scripts, for CREATE EXTENSION ... VERSION '1.2' (1.3, 1.4).
cp "$FIXTURES/sql_edition_1.2/locality_uuid_sql--1.2.sql" "$FIXTURES/sql_edition_1.3/locality_uuid_sql--1.3.sql" \
  "$FIXTURES/sql_edition_1.4/locality_uuid_sql--1.4.sql" "$EXT_DIR/"

run() {
  set -euo pipefail
  fail() { echo "FAIL: $*"; exit 1; }
  as() { local role=$1 db=$2; shift 2; psql -X -q -At -v ON_ERROR_STOP=1 -U "$role" -d "$db" "$@"; }
  q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "${DB:-postgres}" "$@"; }
  expect() {
    local got
    got=$(q -c "$2" 2>&1) || fail "$1: $got"
    [ "$got" = "$3" ] || fail "$1: got '$got', wanted '$3'"
    echo "ok: $1: $got"
  }
  for role in dba app reader; do q -c "CREATE ROLE $role LOGIN PASSWORD '$PGPASSWORD'"; done
  T="timestamptz '2024-01-01 12:00:00.123+00'"
  # make SCHEMA STEP: N ids of each of six kinds, as made(step, kind, id).
  make_ids() {
    local s=$1
    echo "INSERT INTO public.made
          SELECT $2, k.kind, CASE k.kind WHEN 'variable' THEN $s.locality_uuid(false) WHEN 'sequential' THEN $s.locality_uuid(true)
                                         WHEN 'at variable' THEN $s.locality_uuid_at($T, false)
                                         WHEN 'at sequential' THEN $s.locality_uuid_at($T, true)
                                         WHEN 'hot' THEN $s.hot_guid(7) ELSE $s.hot_guid(7, $T) END
          FROM unnest(ARRAY['variable', 'sequential', 'at variable', 'at sequential', 'hot', 'hot at']) k(kind),
               generate_series(1, $N) g"
  }
  # The ids with their pid field zeroed (a Locality UUID's 4 hex digits,
  # a Hot Guid's two pid bytes), in their key space: uniqueness is promised
  # per mode (doc/guarantees.md), so a variable and a sequential id may
  # share a counter (for ids of one millisecond, with probability 2^-32 a
  # pair).
  masked="CASE WHEN kind LIKE 'hot%' THEN 'hot ' || overlay(overlay(id::text PLACING '00' FROM 15 FOR 2) PLACING '00' FROM 20 FOR 2)
               ELSE CASE WHEN kind LIKE '%variable' THEN 'variable ' ELSE 'sequential ' END
                    || overlay(id::text PLACING '0000' FROM 10 FOR 4) END"
  made_table="CREATE TABLE public.made (step int, kind text, id uuid); GRANT INSERT, SELECT ON public.made TO PUBLIC"

  # ---- copies ----
  q -c "CREATE DATABASE origin OWNER dba"
  DB=origin q -c "$made_table"
  as dba origin -c "CREATE SCHEMA ids"
  as dba origin -v locality_schema=ids -f "$SCRIPT" >/dev/null
  as dba origin -c "SELECT ids.locality_uuid_set_node(17, 'db-17')" -c "GRANT USAGE ON SCHEMA ids TO app" \
    -c "GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ids TO app" >/dev/null
  as app origin -c "SELECT ids.locality_uuid(false), ids.locality_uuid(true), ids.locality_uuid_at(now(), true), ids.hot_guid(1, now())" >/dev/null
  counters="SELECT string_agg(coalesce(pg_sequence_last_value(c.oid), 0)::text, ' ' ORDER BY c.relname COLLATE \"C\")
            FROM pg_class c WHERE c.relnamespace = 'ids_private'::regnamespace AND c.relkind = 'S'"
  q -c "CREATE DATABASE copy TEMPLATE origin OWNER dba"
  DB=copy q -c "TRUNCATE public.made"
  before=$(DB=copy q -c "$counters")
  # Both at once, so that their clock ids share milliseconds.
  psql -X -q -v ON_ERROR_STOP=1 -U app -d origin -c "$(make_ids ids 1)" >"$WORK/origin.txt" 2>&1 &
  origin=$!
  psql -X -q -v ON_ERROR_STOP=1 -U app -d copy -c "$(make_ids ids 1)" >"$WORK/copy.txt" 2>&1 &
  copy=$!
  wait $origin || fail "the origin's ids: $(cat "$WORK/origin.txt")"
  wait $copy || fail "the copy's ids: $(cat "$WORK/copy.txt")"
  [ ! -s "$WORK/origin.txt" ] || fail "the origin said: $(cat "$WORK/origin.txt")"
  grep -q '^WARNING:  locality_uuid: this database is a copy: its counters moved past fresh random points$' "$WORK/copy.txt" &&
    [ "$(grep -c '^WARNING' "$WORK/copy.txt")" = 1 ] || fail "the copy's warning: $(cat "$WORK/copy.txt")"
  echo "ok: the copy's first id moved its counters and warned once: $(grep -E '^(WARNING|DETAIL)' "$WORK/copy.txt" | tr '\n' ' ' | cut -c1-300)"
  # How far each moved (from the values the template had).
  moved=$(python3 - "$before" "$(DB=copy q -c "SELECT string_agg(coalesce(pg_sequence_last_value(c.oid), 0)::text, ' ' ORDER BY c.relname COLLATE \"C\")
                                              FROM pg_class c WHERE c.relnamespace = 'ids_private'::regnamespace AND c.relkind = 'S'
                                                AND c.relname IN ('locality_uuid_at_seq', 'locality_uuid_hot_seq', 'locality_uuid_variable_seq')")" <<'PY'
import sys
b = sys.argv[1].split()
names = ['at_seq', 'home_database', 'home_system', 'home_timeline', 'hot_seq'] + ['run_%02d' % i for i in range(64)] + ['run_start', 'session', 'variable_seq']
before = dict(zip(names, map(int, b)))
at, hot, var = map(int, sys.argv[2].split())
print(at - before['at_seq'], hot - before['hot_seq'], var - before['variable_seq'])
PY
)
  read -r at_moved hot_moved var_moved <<<"$moved"
  # The copy drew N of each since: the jumps are what is left.
  [ $((at_moved - N)) -ge 536870912 ] && [ $((hot_moved - 2 * N)) -ge 4194304 ] && [ $((var_moved - 2 * N)) -ge 1073741824 ] ||
    fail "the copy's counters moved too little: given-time $at_moved, Hot Guid $hot_moved, variable $var_moved"
  echo "ok: the copy's draws moved on: given-time by $at_moved, Hot Guid by $hot_moved, variable by $var_moved (with its $N ids of each)"
  DB=copy expect "the copy's run start is redrawn, its counters bound to it" \
    "SELECT pg_sequence_last_value('ids_private.locality_uuid_run_start') <> $(echo "$before" | awk '{print $(NF-1)}')
            AND pg_sequence_last_value('ids_private.locality_uuid_home_database') = (SELECT oid FROM pg_database WHERE datname = 'copy')" "t"
  psql -X -q -v ON_ERROR_STOP=1 -d copy -c "COPY public.made TO STDOUT" | psql -X -q -v ON_ERROR_STOP=1 -d origin -c "COPY public.made FROM STDIN"
  DB=origin expect "ids made by the copy and its origin at once, pid masked, in each key space: repeated" \
    "SELECT count(*) || ' ids, ' || (SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) AS n FROM public.made GROUP BY $masked) g) || ' repeated'
     FROM public.made" "$((12 * N)) ids, 0 repeated"
  # A dump restored in a new database, and set_node (the same value) on a
  # copy before its first id: moved too.
  q -c "CREATE DATABASE restored OWNER dba" -c "CREATE DATABASE copy2 TEMPLATE origin OWNER dba"
  pg_dump -d origin -n ids -n ids_private | psql -X -q -v ON_ERROR_STOP=1 -d restored >/dev/null
  out=$(as app restored -c "SELECT ids.locality_uuid() IS NOT NULL" 2>&1)
  grep -q '^WARNING:  locality_uuid: this database is a copy' <<<"$out" || fail "a restored dump's first id: $out"
  out=$(as dba copy2 -c "SELECT ids.locality_uuid_set_node(17, 'db-17')" 2>&1)
  grep -q '^WARNING:  locality_uuid: this database is a copy' <<<"$out" || fail "set_node on a copy: $out"
  [ "$(DB=copy2 q -c "SELECT pg_sequence_last_value('ids_private.locality_uuid_variable_seq') - $(echo "$before" | awk '{print $NF}') >= 1073741824")" = t ] ||
    fail "set_node on a copy did not move its counters"
  echo "ok: a restored dump's first id, and set_node on a copy before any id, move the counters and warn"

  # ---- upgrade from each earlier release (1.2, 1.3, 1.4), in place ----
  for OLD in 1.2 1.3 1.4; do
  o=${OLD/./}
  q -c "CREATE DATABASE upg$o OWNER dba" -c "CREATE DATABASE fresh$o OWNER dba"
  for db in upg$o fresh$o; do as dba $db -c "CREATE SCHEMA up" -c "GRANT USAGE ON SCHEMA up TO app, reader"; done
  as dba upg$o -v locality_schema=up -f "$FIXTURES/sql_edition_$OLD/locality_uuid_sql.sql" >/dev/null
  # The old grants: app makes ids (USAGE on the counters); reader got
  # EXECUTE on every function, which the old docs called safe (without
  # USAGE on the counters it made no id).
  as dba upg$o -c "SELECT up.locality_uuid_set_node(23, 'db-23')" -c "GRANT USAGE ON ALL SEQUENCES IN SCHEMA up TO app" \
    -c "GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA up TO reader" >/dev/null
  as app upg$o -c "SELECT up.locality_uuid(false), up.locality_uuid(true), up.locality_uuid_at(now(), true), up.hot_guid(1)
                 FROM generate_series(1, 1000)" >/dev/null
  kept="SELECT up.locality_uuid_node_id() || ' ' || up.hot_guid_machine_name() || ' ' || up.locality_uuid_variable_start() || ' '
               || (SELECT string_agg(coalesce(pg_sequence_last_value(c.oid), 0)::text, ' ' ORDER BY c.relname COLLATE \"C\")
                   FROM pg_class c WHERE c.relnamespace IN ('up'::regnamespace, coalesce(to_regnamespace('up_private'), 0)) AND c.relkind = 'S'
                     AND (c.relname ~ '^locality_uuid_run_[0-9]+\$' OR c.relname ~ '_seq\$'))"
  before=$(DB=upg$o q -c "$kept")
  # A prepared transaction holding a lock on the variable counter: the move
  # would wait for it (and every id behind the move): refused at once.
  q -c "CREATE DATABASE copy_upg$o TEMPLATE upg$o OWNER dba"  # (its relations have the origin's oids)
  as app upg$o -c "BEGIN" -c "PREPARE p AS UPDATE up.locality_uuid_variable_seq SET log_cnt = 0" -c "PREPARE TRANSACTION 'held_$o'"
  rc=0
  out=$(psql -X -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -U dba -d upg$o -v locality_schema=up -f "$SCRIPT" 2>&1) || rc=$?
  [ $rc != 0 ] && grep -q "ERROR:  55006: locality_uuid: upgrade refused: other transactions hold locks on the counters\$" <<<"$out" &&
    grep -q "^DETAIL:  prepared transaction 'held_$o'\. Moving the counters to up_private waits" <<<"$out" ||
    fail "the upgrade under a prepared hold: $out"
  DB=upg$o expect "$OLD: the refused upgrade changed nothing" "$kept" "$before"
  DB=upg$o expect "$OLD: no up_private after the refusal" "SELECT count(*) FROM pg_namespace WHERE nspname = 'up_private'" "0"
  # The copy's upgrade is not held back by its origin's prepared hold.
  out=$(as dba copy_upg$o -v locality_schema=up -f "$SCRIPT" 2>&1) || fail "$OLD: the copy's upgrade beside its origin's hold: $out"
  [ "$(tail -n 1 <<<"$out")" = "locality_uuid: the SQL edition $VERSION is installed in schema up" ] || fail "$OLD: the copy's upgrade said: $out"
  echo "ok: $OLD: a template copy upgrades while its origin's prepared transaction holds the origin's counter (same oids)"
  DB=upg$o q -c "ROLLBACK PREPARED 'held_$o'"
  # A session left idle in a transaction holding a lock on the variable
  # counter (app's, from parse time, as 1.4 let it): the upgrade, by dba,
  # which cannot see that session's state, tries each move for 3 s, then
  # refuses, naming it; nothing changed.
  psql -X -q -U app -d upg$o <<SQL >/dev/null 2>&1 &
BEGIN;
PREPARE p AS UPDATE up.locality_uuid_variable_seq SET log_cnt = 0;
\\! sleep 30
SQL
  idle=$!
  for _ in $(seq 100); do
    [ "$(DB=upg$o q -c "SELECT count(*) FROM pg_stat_activity WHERE usename = 'app' AND state = 'idle in transaction'")" = 1 ] && break
    sleep 0.1
  done
  rc=0
  out=$(psql -X -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -U dba -d upg$o -v locality_schema=up -f "$SCRIPT" 2>&1) || rc=$?
  [ $rc != 0 ] && grep -q "ERROR:  55006: locality_uuid: upgrade refused: other transactions hold locks on the counters\$" <<<"$out" &&
    grep -q "^DETAIL:  process [0-9]* of role app held locality_uuid_variable_seq for 3 s\. " <<<"$out" ||
    fail "the upgrade under an idle transaction's lock: $out"
  DB=upg$o expect "$OLD: the upgrade refused under an idle transaction changed nothing" "$kept" "$before"
  DB=upg$o q -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'app'" >/dev/null
  kill $idle 2>/dev/null || true; wait $idle 2>/dev/null || true
  out=$(as dba upg$o -v locality_schema=up -f "$SCRIPT" 2>&1) || fail "the upgrade: $out"
  [ "$(tail -n 1 <<<"$out")" = "locality_uuid: the SQL edition $VERSION is installed in schema up" ] &&
    grep -q "NOTICE:  locality_uuid: EXECUTE on the makers taken from reader\$" <<<"$out" || fail "the upgrade said: $out"
  DB=upg$o expect "$OLD: the upgrade keeps node value, machine name, variable start and counters" "$kept" "$before"
  as dba fresh$o -v locality_schema=up -f "$SCRIPT" >/dev/null
  routines="SELECT md5(string_agg(p.proname || '(' || pg_get_function_arguments(p.oid) || ') ' || p.prosrc || ' ' || p.prosecdef
                                  || p.provolatile::text || p.proparallel::text || p.proisstrict::text || coalesce(array_to_string(p.proconfig, ','), '')
                                  || coalesce(obj_description(p.oid, 'pg_proc'), ''), E'\n' ORDER BY p.oid::regprocedure::text))
                   || ' ' || count(*)
            FROM pg_proc p WHERE p.pronamespace = 'up'::regnamespace
              AND p.proname NOT IN ('locality_uuid_node_id', 'hot_guid_machine_name', 'hot_guid_machine_id', 'locality_uuid_variable_start')"
  DB=upg$o expect "$OLD: the upgraded routines are a fresh install's, nothing retired left" "$routines" "$(DB=fresh$o q -c "$routines")"
  out=$(as app upg$o -c "SELECT up.locality_uuid_node(up.locality_uuid(true)) || ' ' || up.locality_uuid_sql_version()" 2>&1)
  [ "$out" = "23 $VERSION" ] || fail "the first id after the upgrade: $out"
  echo "ok: $OLD: the first id after the upgrade: node 23, version $VERSION, no warning (bound where $OLD recorded its place)"
  for call in "up.locality_uuid()|locality_uuid_clock_id" "up.hot_guid(1)|locality_uuid_hot_make" "up.locality_uuid_window_usage()|locality_uuid_window_usage"; do
    out=$(psql -X -q -At -v ON_ERROR_STOP=1 -U reader -d upg$o -c "SELECT ${call%|*}" 2>&1) && fail "$OLD: reader could, after the upgrade: ${call%|*}"
    grep -q "permission denied for function ${call#*|}\$" <<<"$out" || fail "$OLD: reader's ${call%|*} after the upgrade: $out"
  done
  DB=upg$o expect "$OLD: after the upgrade, who may call the makers, and anything of up_private" \
    "SELECT string_agg(CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE pg_get_userbyid(a.grantee)::text END, ' '
                       ORDER BY CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE pg_get_userbyid(a.grantee)::text END)
            || ' / ' || (SELECT count(*) FROM pg_class c, aclexplode(c.relacl) x WHERE c.relnamespace = 'up_private'::regnamespace AND x.grantee <> c.relowner)
     FROM pg_proc p, aclexplode(p.proacl) a WHERE p.oid = 'up.locality_uuid_clock_id(boolean)'::regprocedure" "app dba / 0"
  # The extension, $OLD then ALTER EXTENSION ... UPDATE.
  q -c "CREATE DATABASE upg_ext$o" -c "CREATE DATABASE fresh_ext$o"
  DB=upg_ext$o q -c "CREATE SCHEMA up" -c "CREATE EXTENSION locality_uuid_sql VERSION '$OLD' SCHEMA up" \
    -c "SELECT up.locality_uuid_set_node(29, 'db-29')" >/dev/null
  DB=upg_ext$o q -c "SELECT up.locality_uuid(false), up.locality_uuid(true), up.hot_guid(1) FROM generate_series(1, 1000)" >/dev/null
  DB=upg_ext$o q -c "GRANT USAGE ON SCHEMA up TO app, reader" -c "GRANT USAGE ON ALL SEQUENCES IN SCHEMA up TO app" \
    -c "GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA up TO reader"
  before=$(DB=upg_ext$o q -c "$kept")
  # A private schema there already, not the extension's: refused (42710).
  DB=upg_ext$o q -c "CREATE SCHEMA up_private"
  rc=0; out=$(DB=upg_ext$o q -v VERBOSITY=verbose -c "ALTER EXTENSION locality_uuid_sql UPDATE TO '$VERSION'" 2>&1) || rc=$?
  [ $rc != 0 ] && grep -q "ERROR:  42710: locality_uuid: install refused: schema up_private exists\$" <<<"$out" ||
    fail "$OLD: the update beside a private schema made by hand: $out"
  DB=upg_ext$o q -c "DROP SCHEMA up_private"
  # The update names the roles that drew and the grant to run, which is
  # run in its transaction: a grant the update made would be the
  # extension's own (pg_init_privs) and left out of a dump.
  out=$(psql -X -q -v ON_ERROR_STOP=1 -d upg_ext$o -c "BEGIN" -c "ALTER EXTENSION locality_uuid_sql UPDATE TO '$VERSION'" 2>&1 -c "ROLLBACK")
  grep -q "^WARNING:  locality_uuid: roles that made ids may not until you grant it: app\$" <<<"$out" &&
    grep -q "^WARNING:  locality_uuid: EXECUTE on the makers taken from reader\$" <<<"$out" || fail "$OLD: the update's warnings: $out"
  grant=$(sed -n 's/^HINT:  In the update.s transaction, or at once: //p' <<<"$out")
  [[ $grant == "GRANT EXECUTE ON FUNCTION up.locality_uuid_clock_id(boolean), "*" TO app;" ]] || fail "$OLD: the update's hint: $out"
  DB=upg_ext$o q -c "BEGIN" -c "ALTER EXTENSION locality_uuid_sql UPDATE TO '$VERSION'" -c "$grant" -c "COMMIT" 2>/dev/null
  DB=upg_ext$o expect "$OLD: ALTER EXTENSION UPDATE keeps node value, machine name, variable start and counters" "$kept" "$before"
  out=$(as app upg_ext$o -c "SELECT up.locality_uuid_node(up.locality_uuid()) IS NOT NULL" 2>&1)
  [ "$out" = t ] || fail "$OLD: app's id after the update and its grant: $out"
  # A dump of it, restored: the grant made beside the update is kept.
  q -c "CREATE DATABASE restored_ext$o"
  pg_dump -d upg_ext$o | psql -X -q -v ON_ERROR_STOP=1 -d restored_ext$o >/dev/null 2>&1
  out=$(as app restored_ext$o -c "SELECT up.locality_uuid() IS NOT NULL" 2>&1)
  grep -q "^t\$" <<<"$out" || fail "$OLD: app's id in a restored dump of the updated extension: $out"
  echo "ok: $OLD: the update names app's grant, app makes ids with it, and so in a restored dump: $grant"
  DB=fresh_ext$o q -c "CREATE SCHEMA up" -c "CREATE EXTENSION locality_uuid_sql SCHEMA up"
  DB=upg_ext$o expect "$OLD: the updated extension's routines are a fresh $VERSION's" "$routines" "$(DB=fresh_ext$o q -c "$routines")"
  members="SELECT x.extversion || ': ' || (SELECT count(*) FROM pg_depend d WHERE d.refobjid = x.oid AND d.classid = 'pg_proc'::regclass)
                  || ' routines, ' || (SELECT count(*) FROM pg_depend d WHERE d.refobjid = x.oid AND d.classid = 'pg_class'::regclass)
                  || ' relations, ' || cardinality(x.extconfig) || ' dumped'
           FROM pg_extension x WHERE x.extname = 'locality_uuid_sql'"
  DB=upg_ext$o expect "$OLD: the updated extension's members" "$members" "$(DB=fresh_ext$o q -c "$members")"
  done

  # ---- move: SQL edition -> C edition -> SQL edition, one node value ----
  q -c "CREATE DATABASE move OWNER dba"
  DB=move q -c "$made_table" -c "CREATE SCHEMA cedition" -c "CREATE EXTENSION locality_uuid SCHEMA cedition" \
    -c "GRANT USAGE ON SCHEMA cedition TO app, dba"
  as dba move -c "CREATE SCHEMA ids"
  as dba move -v locality_schema=ids -f "$SCRIPT" >/dev/null
  # The server's node value and machine name are 17 and db-17: the same
  # value in the SQL edition is said.
  out=$(as dba move -c "SELECT ids.locality_uuid_set_node(17, 'db-17')" -c "GRANT USAGE ON SCHEMA ids TO app" \
          -c "GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ids TO app" 2>&1)
  grep -q '^WARNING:  locality_uuid: the C edition in schema cedition has node value 17 too$' <<<"$out" ||
    fail "set_node beside the C edition: $out"
  echo "ok: set_node names the C edition with the same node value: $(grep -E '^(WARNING|HINT)' <<<"$out" | tr '\n' ' ')"
  as app move -c "$(make_ids ids 1)"
  # next_ids SCHEMA: the first id of each kind a new session makes, as the
  # counters they carry: variable counter, given-time index, Hot Guid draw,
  # the clock window and its run's place.
  next_ids() {
    as app move -c "SELECT ids.locality_uuid_counter(v) || ' ' || ((ids.locality_uuid_counter(a, true)
                          - ids.locality_uuid_window_base(floor(extract(epoch FROM $T) / 600)::int8) - 2147483649 + 4294967296) % 4294967296)
                          || ' ' || ids.hot_guid_counter(h) || ' ' || w || ' '
                          || ((ids.locality_uuid_counter(s, true) - ids.locality_uuid_window_base(w) - 1 + 4294967296) % 4294967296)
                    FROM (SELECT $1.locality_uuid(false) v, $1.locality_uuid_at($T, true) a, $1.hot_guid(7, $T) h,
                                 $1.locality_uuid(true) s) i,
                         LATERAL (SELECT floor(extract(epoch FROM ids.locality_uuid_timestamp(i.s)) / 600)::int8 AS w) k"
  }
  handover() {  # handover FROM TO: TO continues FROM's counters; prints FROM's next values
    DB=move q -c "SELECT concat_ws(' ', c.variable_next, c.given_time_next, c.hot_next, c.run_window, c.run_next)
                  FROM $1.locality_uuid_counters() c, LATERAL $2.locality_uuid_continue_after(c.variable_next, c.given_time_next,
                                                                                             c.hot_next, c.run_window, c.run_next) x"
  }
  for step in "ids cedition 2" "cedition ids 3"; do
    read -r from to n <<<"$step"
    # Runs are per 10-minute window: the handover and the first ids after
    # it in one window (a boundary less than 60 s away is waited out), with
    # a run of FROM's in it, so its next run place is a place, not 0 ("no
    # run yet", which TO would answer with a run start of its own: a full
    # run of the suite met one at 02:50:00).
    s=$(( $(date +%s) % 600 )); [ "$s" -lt 540 ] || sleep $((601 - s))
    as app move -c "SELECT $from.locality_uuid(true)" >/dev/null
    next=$(handover "$from" "$to")
    got=$(next_ids "$to")
    [ "$(cut -d' ' -f5 <<<"$next")" != 0 ] || fail "$from had no run in window $(cut -d' ' -f4 <<<"$next")"
    [ "$got" = "$next" ] || fail "$to after the handover from $from: its first ids carry '$got', $from's next were '$next'"
    echo "ok: $to continues $from's counters exactly: variable, given-time, Hot Guid, window, run place: $got"
    as app move -c "$(make_ids "$to" "$n")"
  done
  DB=move expect "ids made by SQL, C, then SQL edition on one database with one node value, pid masked, in each key space: repeated" \
    "SELECT count(*) || ' ids, ' || (SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) AS n FROM public.made GROUP BY $masked) g) || ' repeated'
     FROM public.made" "$((18 * N)) ids, 0 repeated"
}
export -f run
with_cluster -o shared_preload_libraries=locality_uuid -o locality_uuid.node_id=17 -o locality_uuid.machine_name=db-17 \
  -o max_prepared_transactions=4 -- bash -c run
echo "the SQL edition's counters move with its database on PostgreSQL $PG_MAJOR"
