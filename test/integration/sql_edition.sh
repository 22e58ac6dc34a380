#!/usr/bin/env bash
# The SQL edition (src/sql/, make sql-edition) against the C edition, its
# oracle, on this major:
#   install     as a role that is neither superuser nor CREATEROLE (as on a
#               managed service), into a schema named on the command line
#               and into the current schema; running the script again over
#               an install keeps its node value and counters; a schema
#               name that is not plain, or the C edition's schema, is
#               refused
#   surface     every function the editions share has the C edition's
#               arguments, result, volatility and comment
#   vectors     the original libraries' known answers
#   equality    every reader, form_uuid_v1(_nth) and hot_guid_lower on
#               random inputs (and the edges) give exactly the C edition's
#               answer; locality_uuid_pack is what the C readers decode
#   errors      the same SQLSTATE, message, DETAIL and HINT for bad input
#   inlining    the readers are inlined: an expression index on one is used
#   time zone   the readers' answers do not move with the session TimeZone
#   operators   the bodies use only pg_catalog's exact operators: traps for
#               the near misses in the caller's schema never fire
#   generators  ids the C edition decodes to this backend's pid, the
#               node value, the clock's time and the counter rules of each
#               mode; 16 clients (pgbench) make distinct counters per
#               window; the run's takeover by one caller, 54000 and 55000;
#               counters continue after an immediate stop
#   fill        locality_uuid_fill is the C edition's procedure, word for
#               word, and fills a table with this edition's ids in batches
#   uninstall   the uninstall script is stopped by a DEFAULT that uses the
#               edition (nothing dropped), then drops every routine and
#               sequence of the edition but a function of the same name
#               with other arguments; it never touches the C edition's
#               schema
#   extension   the data-only extension (make -C locality_uuid_sql install)
#               created by a superuser in a schema only superusers control
#               (refused in one another role owns, one with a planted
#               routine of the edition's names, the C edition's): the psql
#               script's routines word for word, a role with the README's
#               grants makes ids, pg_dump and a restore keep the counters,
#               DROP EXTENSION leaves nothing; the pg_tle script hands
#               pg_tle exactly that script
#   copies      a CREATE DATABASE ... TEMPLATE copy warns once per
#               session at its first id, until it gets its own node value;
#               the original never
#   README      the ```pgsql examples of README.md (Managed services) print
#               what their result comments say, in a database that has only
#               the SQL edition, installed in public by the database's owner
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
make -s -C "$ROOT" PG_CONFIG="$PG_CONFIG" sql-edition
export SCRIPT="$ROOT/locality_uuid_sql.sql" ROUNDS=${SQL_EDITION_ROUNDS:-20000}
export WORK
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; make -s -C "$ROOT/locality_uuid_sql" PG_CONFIG="$PG_CONFIG" uninstall >/dev/null' EXIT
# The data-only extension, as from PGXN (its own PGXS Makefile); removed
# again at the end (and what a killed run left is replaced here).
make -s -C "$ROOT/locality_uuid_sql" PG_CONFIG="$PG_CONFIG" install >/dev/null
python3 "$ROOT/test/integration/lib/readme_blocks.py" extract pgsql "$WORK" "$ROOT/README.md"

run() {
  set -euo pipefail
  fail() { echo "FAIL: $*"; exit 1; }
  # DB=name runs a check in another database.
  q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "${DB:-app}" "$@"; }
  # expect NAME QUERY WANTED: one check, printed with its answer.
  expect() {
    local got
    got=$(q -c "$2" 2>&1) || fail "$1: $got"
    [ "$got" = "$3" ] || fail "$1: got '$got', wanted '$3'"
    echo "ok: $1: $got"
  }
  psql -X -q -v ON_ERROR_STOP=1 -c "CREATE ROLE app_owner LOGIN NOSUPERUSER NOCREATEROLE NOCREATEDB" \
       -c "CREATE DATABASE app OWNER app_owner"
  q -c "CREATE EXTENSION locality_uuid"          # the C edition, in public, by the superuser
  # The SQL edition, by the database's owner: into a named schema, then
  # into the current schema, then again over the first (an upgrade).
  q -c "SET ROLE app_owner" -c "CREATE SCHEMA ids" -c "CREATE SCHEMA here"
  psql -X -q -d app -c "SET ROLE app_owner" -v locality_schema=ids -f "$SCRIPT" >/dev/null
  psql -X -q -d app -c "SET ROLE app_owner" -c "SET search_path = here" -f "$SCRIPT" >/dev/null
  # Two editions in one database (a tenant's schema each): one session
  # makes ids of both, each kind, either first (1.4's one session hint for
  # every schema failed the second's first id: 55000).
  for order in "ids here" "here ids"; do
    read -r first second <<<"$order"
    # (No clock sequential id in ids: its first runs are checked below.)
    got=$(q -c "SELECT count(*) FROM (SELECT $first.locality_uuid(), $second.locality_uuid(), $second.hot_guid(1),
                                             $first.locality_uuid_at(now(), true), $first.hot_guid(2, now()),
                                             here.locality_uuid(true)) x" 2>&1) ||
      fail "ids of two editions in one session ($order first): $got"
    [ "$got" = 1 ] || fail "ids of two editions in one session: $got"
  done
  echo "ok: one session makes ids of the editions in schemas ids and here, either first"
  # A private schema made beforehand (empty, the owner's: an owner
  # without CREATE on the database does so) is a fresh install's: the
  # makers are not PUBLIC's.
  q -c "CREATE ROLE nobody" -c "SET ROLE app_owner" -c "CREATE SCHEMA pre" -c "CREATE SCHEMA pre_private"
  psql -X -q -d app -c "SET ROLE app_owner" -v locality_schema=pre -f "$SCRIPT" >/dev/null
  expect "an install beside an empty private schema made beforehand: may a role with no grant make ids?" \
    "SELECT has_function_privilege('nobody', 'pre.locality_uuid_clock_id(boolean)', 'EXECUTE')
            OR has_function_privilege('nobody', 'pre.locality_uuid_hot_make(bigint, timestamptz, bigint)', 'EXECUTE')" "f"
  q -c "SELECT nextval('ids_private.locality_uuid_variable_seq')" >/dev/null
  state="SELECT ids.locality_uuid_node_id() || ' ' || ids.hot_guid_machine_name() || ' ' || ids.locality_uuid_variable_start()
                || ' ' || (SELECT last_value FROM ids_private.locality_uuid_variable_seq)"
  before=$(q -c "$state")
  psql -X -q -d app -c "SET ROLE app_owner" -v locality_schema=ids -f "$SCRIPT" >/dev/null
  expect "a re-run keeps the node value, machine name, start and counters" "$state" "$before"
  q -c "SET ROLE app_owner" -c 'CREATE SCHEMA "Odd"'
  for bad in Odd public; do
    if out=$(psql -X -q -d app -c "SET ROLE app_owner" -v locality_schema=$bad -f "$SCRIPT" 2>&1); then
      fail "installed into $bad"
    fi
    echo "ok: refused to install into $bad: $(echo "$out" | grep -o 'ERROR: .*')"
  done
  expect "installed by a role that is not superuser" \
    "SELECT count(*) FILTER (WHERE n.nspname = 'ids') || ' in ids, ' || count(*) FILTER (WHERE n.nspname = 'here')
            || ' in here, owners: ' || string_agg(DISTINCT pg_get_userbyid(p.proowner), ',')
            || ', superuser: ' || (SELECT rolsuper FROM pg_roles WHERE rolname = 'app_owner')
     FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname IN ('ids', 'here')" \
    "62 in ids, 62 in here, owners: app_owner, superuser: false"

  # Every shared function: same arguments (names, defaults), result,
  # volatility and comment. The edition's own helpers say 'SQL edition:'.
  shared="SELECT p.proname, pg_get_function_arguments(p.oid) AS args, pg_get_function_result(p.oid) AS result,
                 p.provolatile, obj_description(p.oid, 'pg_proc') AS comment
          FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
  expect "shared functions match the C edition" \
    "WITH s AS ($shared WHERE n.nspname = 'ids' AND obj_description(p.oid, 'pg_proc') NOT LIKE 'SQL edition:%'),
          c AS ($shared WHERE n.nspname = 'public')
     SELECT (SELECT count(*) FROM s) || ' shared; unlike the C edition: '
            || coalesce((SELECT string_agg(proname, ',') FROM (SELECT * FROM s EXCEPT SELECT * FROM c) d), 'none')" \
    "37 shared; unlike the C edition: none"

  # Known answers: the original Java library's id and sequential id, its
  # window bases (test/unit/window_base_test.cpp), RFC 4122's own example
  # time, .NET HotGuid's layout (sql/hot_guid.sql).
  expect "Locality reader vectors" \
    "SET TimeZone = 'UTC'; SET search_path = ids;
     SELECT locality_uuid_counter(id) || ' ' || locality_uuid_pid(id) || ' ' || locality_uuid_mac(id) || ' '
            || locality_uuid_node(id) || ' ' || locality_uuid_timestamp(id) || ' ' || locality_uuid_version(id) || ' '
            || locality_uuid_counter('f5166777-7a7f-bd53-7a50-013e4e2afc26', sequential => true)
     FROM (VALUES ('20be0ffc-314a-bd53-7a50-013a65ca76d2'::uuid)) v(id)" \
    "3488672514 12618 00:00:0d:53:7a:50 223574608 2012-10-15 18:58:18.45+00 b 4111886199"
  expect "window base vectors" \
    "SELECT string_agg(to_hex(ids.locality_uuid_window_base(w)), ' ' ORDER BY w)
     FROM (VALUES (0::int8), (floor(extract(epoch FROM timestamptz '2012-10-15 18:58:00+00') / 600)::int8),
                  (floor(extract(epoch FROM timestamptz '2013-04-28 01:03:00+00') / 600)::int8)) v(w)" \
    "2d567b87 1b8543f f5166775"
  expect "version 1 vectors" \
    "SET TimeZone = 'UTC'; SET search_path = ids;
     SELECT form_uuid_v1('2016-11-08 12:38:20.617218+00', 666, '44:88:99:36:57:32') || ' '
            || form_uuid_v1('5236-03-31 21:21:00.684697+00', 0, '00:00:00:00:00:00') || ' '
            || form_uuid_v1('1582-10-15 00:00:00+00', 16383, 'ff:ff:ff:ff:ff:ff') || ' '
            || uuid_v1_timestamp('3b203414-a5b0-11e6-829a-448899365732') || ' '
            || uuid_v1_clock_seq('3b203414-a5b0-11e6-829a-448899365732') || ' '
            || uuid_v1_node('3b203414-a5b0-11e6-829a-448899365732')" \
    "3b203414-a5b0-11e6-829a-448899365732 fffffffa-ffff-1fff-8000-000000000000 00000000-0000-1000-bfff-ffffffffffff 2016-11-08 12:38:20.617218+00 666 44:88:99:36:57:32"
  expect "Hot Guid vectors" \
    "SET TimeZone = 'UTC'; SET search_path = ids;
     SELECT hot_guid_shard_key(id) || ' ' || hot_guid_timestamp(id) || ' ' || hot_guid_counter(id) || ' '
            || to_hex(hot_guid_pid(id)) || ' ' || hot_guid_machine(id) || ' ' || hot_guid_lower('2022-02-06 00:00:00.5+00')
     FROM (VALUES ('61ff0f80-522f-ab76-cd01-e240d0000000'::uuid)) v(id)" \
    "208 2022-02-06 00:00:00+00 123456 abcd 2f5276 61ff0f81-0000-0000-0000-000000000000"

  # Operators of the caller's schema that match the edition's operand types
  # more closely than pg_catalog's do, as a hostile role could create them
  # in a schema on the caller's search_path: none may ever run.
  q <<'SQL'
CREATE FUNCTION public.trap_i(int8, interval) RETURNS interval LANGUAGE plpgsql AS
  $$BEGIN RAISE EXCEPTION 'a trap operator in public ran'; END$$;
CREATE FUNCTION public.trap_n(int8, int4) RETURNS int8 LANGUAGE plpgsql AS
  $$BEGIN RAISE EXCEPTION 'a trap operator in public ran'; END$$;
CREATE FUNCTION public.trap_d(int8, numeric) RETURNS numeric LANGUAGE plpgsql AS
  $$BEGIN RAISE EXCEPTION 'a trap operator in public ran'; END$$;
CREATE OPERATOR public.* (LEFTARG = int8, RIGHTARG = interval, FUNCTION = public.trap_i);
CREATE OPERATOR public.% (LEFTARG = int8, RIGHTARG = int4, FUNCTION = public.trap_n);
CREATE OPERATOR public.& (LEFTARG = int8, RIGHTARG = int4, FUNCTION = public.trap_n);
CREATE OPERATOR public.| (LEFTARG = int8, RIGHTARG = int4, FUNCTION = public.trap_n);
CREATE OPERATOR public./ (LEFTARG = int8, RIGHTARG = numeric, FUNCTION = public.trap_d);
SQL
  expect "the traps fire where they match" "SELECT count(*) FROM pg_operator WHERE oprnamespace = 'public'::regnamespace" "5"
  if q -c "SELECT 5::int8 % 2" >/dev/null 2>&1; then fail "the trap for int8 % int4 does not fire"; fi

  # Random inputs, and the edges, through both editions under a time zone
  # with a half-hour offset (a reader that moved with it would differ).
  q <<SQL
SET TimeZone = 'America/St_Johns';
CREATE TABLE inputs AS
SELECT CASE g % 4 WHEN 0 THEN r
                  WHEN 1 THEN overlay(r PLACING 'b' FROM 15 FOR 1)
                  ELSE overlay(overlay(r PLACING '1' FROM 15 FOR 1)
                               PLACING substr('0123456789abcdef89ab', 1 + (random() * 19)::int, 1) FROM 20 FOR 1)
       END::uuid AS id
FROM (SELECT g, md5(random()::text)::uuid::text AS r FROM generate_series(1, $ROUNDS) g) s
UNION ALL
SELECT u::uuid FROM (VALUES ('00000000-0000-0000-0000-000000000000'), ('ffffffff-ffff-ffff-ffff-ffffffffffff'),
                            ('00000000-0000-b000-0000-000000000000'), ('ffffffff-ffff-bfff-ffff-ffffffffffff'),
                            ('00000000-0000-1000-8000-000000000000'), ('ffffffff-ffff-1fff-bfff-ffffffffffff'),
                            ('ffffffff-ffff-1fff-7fff-ffffffffffff'), ('ffffffff-ffff-1fff-cfff-ffffffffffff')) v(u);
-- Version 1 forming: any microsecond of the range, clock sequence, MAC
-- and ordinal, and the range's two ends.
CREATE TABLE v1_inputs AS
SELECT timestamptz '1582-10-15 00:00:00+00' + s::float8 * interval '1 second' + us::float8 * interval '1 microsecond' AS ts,
       (random() * 16383)::int AS clock_seq, (random() * 163839)::int8 AS ordinal,
       substr(md5(random()::text), 1, 12)::macaddr AS mac
FROM (SELECT floor(random() * 115292150460)::int8 AS s, floor(random() * 1000000)::int8 AS us
      FROM generate_series(1, $ROUNDS)) s
UNION ALL
SELECT t::timestamptz, 16383, 16383, 'ff:ff:ff:ff:ff:ff'
FROM (VALUES ('1582-10-15 00:00:00+00'), ('5236-03-31 21:21:00.684697+00'), ('1969-12-31 23:59:59.999999+00'),
             ('1970-01-01 00:00:00+00')) v(t);
CREATE TABLE bounds AS
SELECT timestamptz '1970-01-01 00:00:00+00' + floor(random() * 4294967295) * interval '1 second'
       + floor(random() * 1000000) * interval '1 microsecond' AS ts
FROM generate_series(1, $ROUNDS)
UNION ALL
SELECT t::timestamptz FROM (VALUES ('-infinity'), ('1969-12-31 23:59:59.5+00'), ('1900-01-01 00:00:00+00'),
                                   ('1970-01-01 00:00:00+00'), ('2106-02-07 06:28:15+00'),
                                   ('2106-02-07 06:28:14.000001+00')) v(t);
SQL
  # name|differing rows, for every shared function over its inputs.
  diffs=$(q 2>&1 <<'SQL'
SET TimeZone = 'America/St_Johns';
SELECT f || ': ' || n || ' differ' FROM (
  SELECT 'locality_uuid_timestamp' AS f, count(*) FILTER (WHERE ids.locality_uuid_timestamp(id) IS DISTINCT FROM public.locality_uuid_timestamp(id)) AS n FROM inputs
  UNION ALL SELECT 'locality_uuid_pid', count(*) FILTER (WHERE ids.locality_uuid_pid(id) IS DISTINCT FROM public.locality_uuid_pid(id)) FROM inputs
  UNION ALL SELECT 'locality_uuid_node', count(*) FILTER (WHERE ids.locality_uuid_node(id) IS DISTINCT FROM public.locality_uuid_node(id)) FROM inputs
  UNION ALL SELECT 'locality_uuid_mac', count(*) FILTER (WHERE ids.locality_uuid_mac(id) IS DISTINCT FROM public.locality_uuid_mac(id)) FROM inputs
  UNION ALL SELECT 'locality_uuid_counter', count(*) FILTER (WHERE ids.locality_uuid_counter(id) IS DISTINCT FROM public.locality_uuid_counter(id)
                                                           OR ids.locality_uuid_counter(id, true) IS DISTINCT FROM public.locality_uuid_counter(id, true)) FROM inputs
  UNION ALL SELECT 'locality_uuid_version', count(*) FILTER (WHERE ids.locality_uuid_version(id) IS DISTINCT FROM public.locality_uuid_version(id)) FROM inputs
  UNION ALL SELECT 'uuid_v1_timestamp', count(*) FILTER (WHERE ids.uuid_v1_timestamp(id) IS DISTINCT FROM public.uuid_v1_timestamp(id)) FROM inputs
  UNION ALL SELECT 'uuid_v1_clock_seq', count(*) FILTER (WHERE ids.uuid_v1_clock_seq(id) IS DISTINCT FROM public.uuid_v1_clock_seq(id)) FROM inputs
  UNION ALL SELECT 'uuid_v1_node', count(*) FILTER (WHERE ids.uuid_v1_node(id) IS DISTINCT FROM public.uuid_v1_node(id)) FROM inputs
  UNION ALL SELECT 'hot_guid_shard_key', count(*) FILTER (WHERE ids.hot_guid_shard_key(id) IS DISTINCT FROM public.hot_guid_shard_key(id)) FROM inputs
  UNION ALL SELECT 'hot_guid_timestamp', count(*) FILTER (WHERE ids.hot_guid_timestamp(id) IS DISTINCT FROM public.hot_guid_timestamp(id)) FROM inputs
  UNION ALL SELECT 'hot_guid_counter', count(*) FILTER (WHERE ids.hot_guid_counter(id) IS DISTINCT FROM public.hot_guid_counter(id)) FROM inputs
  UNION ALL SELECT 'hot_guid_pid', count(*) FILTER (WHERE ids.hot_guid_pid(id) IS DISTINCT FROM public.hot_guid_pid(id)) FROM inputs
  UNION ALL SELECT 'hot_guid_machine', count(*) FILTER (WHERE ids.hot_guid_machine(id) IS DISTINCT FROM public.hot_guid_machine(id)) FROM inputs
  UNION ALL SELECT 'form_uuid_v1', count(*) FILTER (WHERE ids.form_uuid_v1(ts, clock_seq, mac) IS DISTINCT FROM public.form_uuid_v1(ts, clock_seq, mac)) FROM v1_inputs
  UNION ALL SELECT 'form_uuid_v1_nth', count(*) FILTER (WHERE ids.form_uuid_v1_nth(ts, ordinal, mac) IS DISTINCT FROM public.form_uuid_v1_nth(ts, ordinal, mac)) FROM v1_inputs
  UNION ALL SELECT 'hot_guid_lower', count(*) FILTER (WHERE ids.hot_guid_lower(ts) IS DISTINCT FROM public.hot_guid_lower(ts)) FROM bounds
) d
SQL
  ) || fail "comparing the editions: $diffs"
  echo "$diffs" | sed 's/^/    /'
  [ "$(echo "$diffs" | grep -c ': 0 differ$')" = 17 ] || fail "the editions differ (above)"
  expect "inputs compared" "SELECT (SELECT count(*) FROM inputs) || ' ids, ' || (SELECT count(*) FROM v1_inputs)
                                   || ' v1 inputs, ' || (SELECT count(*) FROM bounds) || ' bounds'" \
    "$((ROUNDS + 8)) ids, $((ROUNDS + 4)) v1 inputs, $((ROUNDS + 6)) bounds"
  expect "the inputs reach every branch" \
    "SELECT count(*) FILTER (WHERE public.locality_uuid_timestamp(id) IS NOT NULL) > $ROUNDS / 8
            AND count(*) FILTER (WHERE public.uuid_v1_timestamp(id) IS NOT NULL) > $ROUNDS / 8
            AND count(*) FILTER (WHERE public.uuid_v1_timestamp(id) IS NULL AND locality_uuid_version(id) = '1') > $ROUNDS / 50
     FROM inputs" "t"

  # locality_uuid_pack, read back by the C edition: random fields in both
  # modes, and the C edition's decoding of random ids packed again.
  expect "locality_uuid_pack" \
    "SELECT count(*) FILTER (WHERE public.locality_uuid_counter(u, s) <> c OR public.locality_uuid_pid(u) <> p
                                  OR public.locality_uuid_node(u) <> n
                                  OR public.locality_uuid_timestamp(u) <> timestamptz '1970-01-01 00:00:00+00'
                                       + (ms / 1000)::float8 * interval '1 second' + mod(ms, 1000)::float8 * interval '1 millisecond')
            || ' of ' || count(*) || ' differ'
     FROM (SELECT ids.locality_uuid_pack(c, p, n, ms, s) AS u, c, p, n, ms, s
           FROM (SELECT floor(random() * 4294967296)::int8 AS c, floor(random() * 65536)::int AS p,
                        floor(random() * 268435456)::int AS n,
                        floor(random() * 281474976)::int8 * 1000000 + floor(random() * 1000000)::int8 AS ms,
                        random() < 0.5 AS s
                 FROM generate_series(1, $ROUNDS)) f) t" \
    "0 of $ROUNDS differ"
  expect "locality_uuid_pack of decoded ids" \
    "SELECT count(*) FILTER (WHERE ids.locality_uuid_pack(public.locality_uuid_counter(id), public.locality_uuid_pid(id),
                                  public.locality_uuid_node(id),
                                  ('x' || right(id::text, 12))::bit(48)::int8, false) <> id)
            || ' of ' || count(*)
     FROM inputs WHERE locality_uuid_version(id) = 'b'" \
    "0 of $(q -c "SELECT count(*) FROM inputs WHERE locality_uuid_version(id) = 'b'")"

  # Bad input: each call's whole outcome (SQLSTATE, message, DETAIL, HINT,
  # or its value) from both editions, in a session whose DateStyle and time
  # zone are not the defaults (the Hot Guid bound's message shows ts).
  outcomes=$(q <<'SQL'
SET TimeZone = 'Asia/Kolkata'; SET DateStyle = 'SQL, DMY';
CREATE FUNCTION pg_temp.outcome(call text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text; st text; m text; d text; h text;
BEGIN
  EXECUTE call INTO r;
  RETURN 'value ' || coalesce(r, 'NULL');
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, h = PG_EXCEPTION_HINT;
  RETURN st || ' ' || m || ' | ' || d || ' | ' || h;
END $$;
SELECT CASE WHEN c = s THEN 'same: ' || s ELSE 'DIFFERENT: ' || call || ': C ' || c || ' / SQL ' || s END
FROM (SELECT call, pg_temp.outcome(format(call, 'public')) AS c, pg_temp.outcome(format(call, 'ids')) AS s
      FROM (VALUES
        ($q$SELECT %I.form_uuid_v1('infinity', 0, '01:02:03:04:05:06')$q$),
        ($q$SELECT %I.form_uuid_v1('-infinity', 99999, '01:02:03:04:05:06')$q$),
        ($q$SELECT %I.form_uuid_v1('2024-01-01', -1, '01:02:03:04:05:06')$q$),
        ($q$SELECT %I.form_uuid_v1('2024-01-01', 16384, '01:02:03:04:05:06')$q$),
        ($q$SELECT %I.form_uuid_v1('1000-01-01', 16384, '01:02:03:04:05:06')$q$),
        ($q$SELECT %I.form_uuid_v1('1582-10-14 23:59:59.999999+00', 0, '01:02:03:04:05:06')$q$),
        ($q$SELECT %I.form_uuid_v1('4713-01-01 BC', 0, '01:02:03:04:05:06')$q$),
        ($q$SELECT %I.form_uuid_v1('5236-03-31 21:21:00.684698+00', 0, '01:02:03:04:05:06')$q$),
        ($q$SELECT %I.form_uuid_v1('294276-12-31 23:59:59.999999+00', 0, '01:02:03:04:05:06')$q$),
        ($q$SELECT %I.form_uuid_v1(NULL, 0, '01:02:03:04:05:06')$q$),
        ($q$SELECT %I.form_uuid_v1('294276-01-01', -1, '01:02:03:04:05:06')$q$),
        ($q$SELECT %I.form_uuid_v1_nth('294276-01-01', 163840, '01:02:03:04:05:06')$q$),
        ($q$SELECT %I.locality_uuid_at('infinity')$q$),
        ($q$SELECT %I.locality_uuid_at('-infinity', true)$q$),
        ($q$SELECT %I.locality_uuid_at('1969-12-31 23:59:59.999+00', false)$q$),
        ($q$SELECT %I.locality_uuid_at('1970-01-01 00:00:00+00', false) IS NOT NULL$q$),
        ($q$SELECT %I.locality_uuid_at('10889-08-02 05:31:50.655999+00', true) IS NOT NULL$q$),
        ($q$SELECT %I.locality_uuid_at('10889-08-02 05:31:50.656+00', true)$q$),
        ($q$SELECT %I.locality_uuid('200000-01-01 00:00:00+00'::timestamptz)$q$),
        ($q$SELECT %I.hot_guid(-1)$q$),
        ($q$SELECT %I.hot_guid(4294967296, 'infinity')$q$),
        ($q$SELECT %I.hot_guid(1, 'infinity')$q$),
        ($q$SELECT %I.hot_guid(1, '1969-12-31 23:59:59.999999+00')$q$),
        ($q$SELECT %I.hot_guid(1, '2106-02-07 06:28:15.999999+00') IS NOT NULL$q$),
        ($q$SELECT %I.hot_guid(1, '2106-02-07 06:28:16+00')$q$),
        ($q$SELECT %I.hot_guid_shard_key(%1$I.hot_guid(4294967295, '2000-01-01'))$q$),
        ($q$SELECT %I.form_uuid_v1_nth('2024-01-01', -1, '01:02:03:04:05:06')$q$),
        ($q$SELECT %I.form_uuid_v1_nth('2024-01-01', 163840, '01:02:03:04:05:06')$q$),
        ($q$SELECT %I.form_uuid_v1_nth('infinity', -1, '01:02:03:04:05:06')$q$),
        ($q$SELECT %I.form_uuid_v1_nth('5236-03-31 21:21:00.684697+00', 98303, '01:02:03:04:05:06')$q$),
        ($q$SELECT %I.form_uuid_v1_nth('5236-03-31 21:21:00.684697+00', 98304, '01:02:03:04:05:06')$q$),
        ($q$SELECT %I.form_uuid_v1_nth('1582-10-15 00:00:00+00', 163839, '01:02:03:04:05:06')$q$),
        ($q$SELECT %I.hot_guid_lower('infinity')$q$),
        ($q$SELECT %I.hot_guid_lower('-infinity')$q$),
        ($q$SELECT %I.hot_guid_lower('2106-02-07 06:28:15.000001+00')$q$),
        ($q$SELECT %I.hot_guid_lower('2106-02-07 06:28:15+00')$q$),
        ($q$SELECT %I.hot_guid_lower(NULL)$q$),
        ($q$SELECT %I.locality_uuid_counter('20be0ffc-314a-bd53-7a50-013a65ca76d2', NULL)$q$),
        ($q$SELECT %I.locality_uuid_timestamp(NULL)$q$),
        ($q$SELECT %I.hot_guid_shard_key(NULL)$q$)) v(call)) o
SQL
  )
  echo "$outcomes" | sed 's/^/    /'
  [ "$(echo "$outcomes" | grep -c '^same: ')" = 40 ] || fail "the editions answer bad input differently (above)"
  [ "$(echo "$outcomes" | grep -c '^same: 22008 \|^same: 22003 ')" = 27 ] || fail "fewer errors than the calls above make"

  # Inlined readers: the plan shows built-ins, never the function, and an
  # expression index on a reader serves a range query.
  for f in locality_uuid_timestamp locality_uuid_pid locality_uuid_node locality_uuid_mac locality_uuid_counter \
           locality_uuid_version uuid_v1_timestamp uuid_v1_clock_seq uuid_v1_node hot_guid_shard_key \
           hot_guid_timestamp hot_guid_counter hot_guid_pid hot_guid_machine; do
    plan=$(q -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT ids.$f(id) FROM inputs")
    if echo "$plan" | grep -qE "locality_uuid_|uuid_v1_|hot_guid_"; then echo "$plan"; fail "$f is not inlined"; fi
  done
  echo "ok: 14 readers inlined (no function call in their plans)"
  q -c "CREATE INDEX inputs_hot_time ON inputs (ids.hot_guid_timestamp(id))" \
    -c "CREATE INDEX inputs_time ON inputs (ids.locality_uuid_timestamp(id))" \
    -c "CREATE INDEX inputs_v1_time ON inputs (ids.uuid_v1_timestamp(id))" -c "ANALYZE inputs"
  for index in inputs_time:locality_uuid_timestamp inputs_v1_time:uuid_v1_timestamp; do
    plan=$(q -c "SET enable_seqscan = off" \
             -c "EXPLAIN (COSTS OFF) SELECT count(*) FROM inputs WHERE ids.${index#*:}(id) >= '2100-01-01'")
    echo "$plan" | grep -q "Index.* on ${index%%:*}\|Index.* using ${index%%:*}" ||
      { echo "$plan"; fail "the expression index on ${index#*:} is not used: $(tr -s ' \n' ' ' <<<"$plan")"; }
  done
  plan=$(q -c "SET enable_seqscan = off" \
           -c "EXPLAIN (COSTS OFF) SELECT count(*) FROM inputs WHERE ids.hot_guid_timestamp(id) >= '2100-01-01'")
  echo "$plan" | grep -q "Index.* on inputs_hot_time\|Index.* using inputs_hot_time" ||
    { echo "$plan"; fail "the expression index on hot_guid_timestamp is not used: $(tr -s ' \n' ' ' <<<"$plan")"; }
  echo "ok: expression indexes on hot_guid_timestamp, locality_uuid_timestamp, uuid_v1_timestamp serve range queries"

  # Generators. Ids the C edition decodes: this backend's pid, the node
  # value, the clock's millisecond, version b; each mode's counter rule,
  # with the draw read back by currval in the same row.
  g() { psql -X -q -At -v ON_ERROR_STOP=1 -d app -c "SET ROLE app_owner" "$@"; }
  expect "variable ids decode to the node, the pid, the clock and the counter rule" \
    "SELECT count(*) FILTER (WHERE public.locality_uuid_node(id) = ids.locality_uuid_node_id()
                               AND public.locality_uuid_pid(id) = pg_backend_pid() & 65535
                               AND public.locality_uuid_timestamp(id) BETWEEN date_trunc('milliseconds', t0) AND t1
                               AND public.locality_uuid_version(id) = 'b'
                               AND public.locality_uuid_counter(id)
                                   = (ids.locality_uuid_variable_start() + mod(n + 1, 4294967296) * 198491317) % 4294967296)
            || ' of ' || count(*)
     FROM (SELECT clock_timestamp() AS t0, ids.locality_uuid(false) AS id,
                  currval('ids_private.locality_uuid_variable_seq') AS n, clock_timestamp() AS t1
           FROM generate_series(1, 5000)) s" "5000 of 5000"
  # The first sequential ids of this database: each window's run starts at
  # the window's base + 1 + the database's run start and counts up by one
  # (one session, in order).
  expect "sequential ids: base + 1 + the run start + their place in the window's run" \
    "CREATE TEMP TABLE seq_ids AS
       SELECT g, clock_timestamp() AS t0, ids.locality_uuid(true) AS id, clock_timestamp() AS t1
       FROM generate_series(1, 5000) g;
     SELECT count(*) FILTER (WHERE public.locality_uuid_counter(id, true)
                                   = (ids.locality_uuid_window_base(w) + pg_sequence_last_value('ids_private.locality_uuid_run_start') + place)
                                     % 4294967296
                               AND public.locality_uuid_timestamp(id) BETWEEN date_trunc('milliseconds', t0) AND t1
                               AND public.locality_uuid_pid(id) = pg_backend_pid() & 65535)
            || ' of ' || count(*)
     FROM (SELECT *, row_number() OVER (PARTITION BY w ORDER BY g) AS place
           FROM (SELECT *, floor(extract(epoch FROM public.locality_uuid_timestamp(id)) / 600)::int8 AS w
                 FROM seq_ids) a) b" "5000 of 5000"
  expect "ids for given times: the upper half of the window's counters, and the time to the millisecond" \
    "SELECT count(*) FILTER (WHERE CASE WHEN s
                                   THEN public.locality_uuid_counter(id, true)
                                        = (ids.locality_uuid_window_base(floor(extract(epoch FROM ts) / 600)::int8)
                                           + 2147483649 + (n & 2147483647::int8)) % 4294967296
                                   ELSE public.locality_uuid_counter(id)
                                        = (ids.locality_uuid_variable_start() + mod(n + 1, 4294967296) * 198491317) % 4294967296 END
                               AND public.locality_uuid_timestamp(id) = date_trunc('milliseconds', ts))
            || ' of ' || count(*)
     FROM (SELECT ts, s, ids.locality_uuid_at(ts, s) AS id,
                  CASE WHEN s THEN currval('ids_private.locality_uuid_at_seq') ELSE currval('ids_private.locality_uuid_variable_seq') END AS n
           FROM (SELECT timestamptz '1970-01-01 00:00:00+00' + floor(random() * 281474976710) * interval '1 second'
                        + floor(random() * 1000000) * interval '1 microsecond' AS ts, g % 2 = 0 AS s
                 FROM generate_series(1, 4000) g) t) u" "4000 of 4000"
  expect "Hot Guids decode to the key, the second, the machine bytes, the pid and the draw" \
    "SELECT count(*) FILTER (WHERE public.hot_guid_shard_key(id) = k
                               AND public.hot_guid_timestamp(id) BETWEEN date_trunc('second', t0) AND t1
                               AND public.hot_guid_machine(id) = ids.hot_guid_machine_id()
                               AND ids.hot_guid_machine_id() = left(md5(ids.hot_guid_machine_name()), 6)
                               AND public.hot_guid_pid(id) = pg_backend_pid() & 65535
                               AND public.hot_guid_counter(id) = n & 16777215::int8)
            || ' of ' || count(*)
     FROM (SELECT k, clock_timestamp() AS t0, ids.hot_guid(k) AS id, currval('ids_private.locality_uuid_hot_seq') AS n,
                  clock_timestamp() AS t1
           FROM (SELECT floor(random() * 4294967296)::int8 AS k FROM generate_series(1, 3000)) r) s" "3000 of 3000"
  expect "Hot Guids for given times carry their second" \
    "SELECT count(*) FILTER (WHERE public.hot_guid_timestamp(ids.hot_guid(7, ts)) = date_trunc('second', ts)) || ' of ' || count(*)
     FROM (SELECT timestamptz '1970-01-01 00:00:00+00' + floor(random() * 4294967296) * interval '1 second'
                  + floor(random() * 1000000) * interval '1 microsecond' AS ts FROM generate_series(1, 2000)) t" "2000 of 2000"

  # The runs' edges, whatever window the clock is in while they run: every
  # slot made to hold a window 64 ahead (55000), then the next two windows'
  # runs full (54000), then every slot an old window's (the next id takes
  # the run over at its place 0).
  now_w="floor(extract(epoch FROM clock_timestamp()) / 600)::int8"
  # Where this database's runs start (counters.sql).
  start="pg_sequence_last_value('ids_private.locality_uuid_run_start')"
  # The next sequential id's error: SQLSTATE, message, DETAIL.
  outcome_of() {
    g -c "DO \$\$ DECLARE st text; m text; d text; h text; BEGIN
            PERFORM ids.locality_uuid(true);
            RAISE NOTICE 'no error';
          EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, h = PG_EXCEPTION_HINT;
            RAISE NOTICE '% % | % | %', st, m, d, h;
          END \$\$" 2>&1 | sed -n 's/^NOTICE:  //p'
  }
  g -c "SELECT setval(r, ($now_w + 101) << 32) FROM unnest(ids.locality_uuid_runs()) r" >/dev/null
  got=$(outcome_of)
  [[ "$got" =~ ^55000\ the\ clock\ is\ 64\ or\ more\ sequential\ windows\ behind\ the\ newest\ run\ \|\ A\ sequential\ id\ for\ 2[0-9]{3}-[0-9-]+\ [0-9:.]+\+00\ would\ restart ]] &&
    [[ "$got" == *"| Sequential ids resume when the clock catches up"*"locality_uuid_release_future_windows() releases that run." ]] ||
    fail "55000: $got"
  echo "ok: a slot holding a window 100 ahead: $got"
  # The release, by a member of the owner role (a grant of EXECUTE alone
  # is refused: sql_edition_safety.sh): slots 100 windows ahead and the
  # current window's slot exactly 64 ahead are given back, each closed for
  # the newest real window of its own (54000 there until the next window);
  # a slot 63 ahead is kept. Again if a window boundary passed meanwhile.
  q -c "CREATE ROLE ops" -c "GRANT app_owner TO ops"
  for attempt in 1 2 3; do
    w0=$(q -c "SELECT $now_w")
    w="$w0::int8"
    g -c "SELECT setval(r, ($w + 101) << 32) FROM unnest(ids.locality_uuid_runs()) r" \
      -c "SELECT setval((ids.locality_uuid_runs())[mod($w, 64)::int + 1], ($w + 65) << 32)" \
      -c "SELECT setval((ids.locality_uuid_runs())[mod($w + 63, 64)::int + 1], ($w + 64) << 32)" >/dev/null
    released=$(psql -X -q -At -d app -v ON_ERROR_STOP=1 -c "SET ROLE ops" \
      -c "SELECT count(*) || ' ' || count(*) FILTER (WHERE window_start = ids.locality_uuid_from_unix_micros(($w + 100) * 600000000))
                  || ' ' || count(*) FILTER (WHERE window_start = ids.locality_uuid_from_unix_micros(($w + 64) * 600000000))
                  || ' ' || count(*) FILTER (WHERE window_end - window_start = interval '10 min')
           FROM ids.locality_uuid_release_future_windows()" 2>&1) || fail "the release by ops: $released"
    slots=$(q -c "SELECT count(*) FILTER (WHERE (v & 4294967295) = 2147483648 AND w <= $w AND w > $w - 64 AND mod(w, 64) = slot - 1)
                         || ' closed, ' || count(*) FILTER (WHERE v = ($w + 64) << 32 AND slot - 1 = mod($w + 63, 64)) || ' kept'
                  FROM (SELECT slot, v, (v >> 32) - 1 AS w
                        FROM unnest(ids.locality_uuid_runs()) WITH ORDINALITY AS r(run, slot),
                             LATERAL pg_sequence_last_value(run) AS v) s")
    [ "$(q -c "SELECT $now_w")" = "$w0" ] && break
  done
  [ "$released" = "63 62 1 63" ] || fail "the release: got '$released', wanted '63 62 1 63'"
  [ "$slots" = "63 closed, 1 kept" ] || fail "the slots after the release: $slots"
  echo "ok: locality_uuid_release_future_windows() by a member of the owner role: 63 released (62 100 ahead, 1 exactly 64), $slots"
  left=$(q -c "SELECT count(*) FROM pg_locks WHERE relation = 'ids_private.locality_uuid_lock'::regclass")
  [ "$left" = 0 ] || fail "the release left $left locks on the takeover's view"
  g -c "SELECT setval(r, ((w + 1) << 32) + 2147483648, true)
        FROM (SELECT $now_w + k AS w FROM generate_series(0, 1) k) n,
             LATERAL (SELECT (ids.locality_uuid_runs())[mod(w, 64)::int + 1] AS r) s" >/dev/null
  got=$(outcome_of)
  [[ "$got" == "54000 cannot make more than 2147483648 sequential ids in one 10-minute window | The window's run has no place left"* ]] ||
    fail "54000: $got"
  echo "ok: a full run: $got"
  g -c "SELECT setval(r, (($now_w - 70) << 32) + 12345) FROM unnest(ids.locality_uuid_runs()) r" >/dev/null
  # locality_uuid_window_usage(): what the current window's run drew, as
  # many as the ids of that window just made (its run was taken over by
  # the first of them; a window that starts meanwhile counts its own). The
  # usage is read after the ids (a lateral reference to their count).
  expect "locality_uuid_window_usage() counts the window's ids" \
    "WITH made AS MATERIALIZED (SELECT ids.locality_uuid(true) AS id FROM generate_series(1, 7)),
          u AS MATERIALIZED (SELECT w.* FROM (SELECT count(*) AS n FROM made) m,
                                LATERAL (SELECT * FROM ids.locality_uuid_window_usage() WHERE m.n > 0) w)
     SELECT (SELECT count(*) FROM made, u WHERE public.locality_uuid_timestamp(made.id) >= u.window_start
                                             AND public.locality_uuid_timestamp(made.id) < u.window_end) = u.ids_drawn
            AND u.ids_left = 2147483648 - $start - u.ids_drawn AND u.ids_drawn > 0 AND u.window_end - u.window_start = interval '10 min'
     FROM u" "t"
  g -c "SELECT setval(r, (($now_w - 70) << 32) + 12345) FROM unnest(ids.locality_uuid_runs()) r" >/dev/null
  expect "a run taken over from an older window starts at the base + 1 + the run start" \
    "SELECT public.locality_uuid_counter(id, true)
            = (ids.locality_uuid_window_base(floor(extract(epoch FROM public.locality_uuid_timestamp(id)) / 600)::int8) + 1 + $start)
              % 4294967296
     FROM (SELECT ids.locality_uuid(true) AS id) s" "t"

  # The takeover is serialised: while the owner holds the runs' lock (the
  # view locality_uuid_lock, in a transaction left open), a sequential id
  # that must take its run over waits (seen in pg_stat_activity), and goes
  # on when it is released.
  g -c "SELECT setval(r, (($now_w - 70) << 32) + 12345) FROM unnest(ids.locality_uuid_runs()) r" >/dev/null
  g -c "BEGIN" -c "LOCK TABLE ids_private.locality_uuid_lock IN EXCLUSIVE MODE" -c "SELECT pg_sleep(60)" >/dev/null 2>&1 &
  holder=$!
  for _ in $(seq 1 100); do
    [ "$(q -c "SELECT count(*) FROM pg_locks WHERE relation = 'ids_private.locality_uuid_lock'::regclass AND granted")" = 1 ] && break
    sleep 0.1
  done
  # A waiter canceled while it waits keeps no lock behind.
  psql -X -q -At -d app -c "SET ROLE app_owner" -c "SELECT ids.locality_uuid(true) AS to_cancel" \
    -c "SELECT 'locks held after the cancel: ' || count(*) FROM pg_locks WHERE pid = pg_backend_pid() AND relation = 'ids_private.locality_uuid_lock'::regclass" \
    >"$WORK/canceled.txt" 2>&1 &
  canceled=$!
  for _ in $(seq 1 300); do
    [ "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'relation' AND query LIKE '%to_cancel%'")" = 1 ] && break
    sleep 0.1
  done
  q -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = 'relation' AND query LIKE '%to_cancel%'" >/dev/null
  wait $canceled || true
  grep -q "canceling statement due to user request" "$WORK/canceled.txt" && grep -q "locks held after the cancel: 0" "$WORK/canceled.txt" ||
    { cat "$WORK/canceled.txt"; fail "a waiter canceled during the takeover"; }
  echo "ok: a takeover canceled while it waits keeps no lock: $(grep -o 'locks held.*' "$WORK/canceled.txt")"
  # Then a waiter the holder's release lets through (released as soon as
  # it is seen waiting: its wait is bounded by the takeover's lock_timeout,
  # 10 s, which a loaded machine's checks in between could exceed).
  g -c "SELECT ids.locality_uuid(true)" >"$WORK/waited.txt" 2>&1 &
  waiter=$!
  waits=0
  for _ in $(seq 1 300); do
    waits=$(q -c "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'relation'
                                                          AND query LIKE '%locality_uuid(true)%'")
    [ "$waits" = 1 ] && break
    kill -0 $waiter 2>/dev/null || break
    sleep 0.1
  done
  q -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(60)'" >/dev/null
  wait $holder || true
  wait $waiter || fail "the waiting id failed: $(cat "$WORK/waited.txt")"
  [ "$waits" = 1 ] || fail "a takeover did not wait for the runs' lock"
  expect "a takeover waits for the runs' lock, then starts the run" \
    "SELECT public.locality_uuid_counter(id, true)
            = (ids.locality_uuid_window_base(floor(extract(epoch FROM public.locality_uuid_timestamp(id)) / 600)::int8) + 1 + $start)
              % 4294967296
     FROM (VALUES ('$(cat "$WORK/waited.txt")'::uuid)) v(id)" "t"

  # 16 clients at once, each making ids in both modes, after every run was
  # set back to an older window (so they race to take the runs over): no
  # two sequential ids of one window share a counter, no two variable ids
  # share a draw.
  g -c "SELECT setval(r, (($now_w - 70) << 32) + 12345) FROM unnest(ids.locality_uuid_runs()) r" >/dev/null
  # The clients are a role with only the README's grants.
  q -c "CREATE ROLE app_user" -c "GRANT USAGE ON SCHEMA ids TO app_user" \
    -c "GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ids TO app_user"
  g -c "CREATE TABLE public.made (id uuid NOT NULL, sequential bool NOT NULL)" -c "GRANT INSERT ON public.made TO app_user"
  cat >"$WORK/clients.sql" <<'PGB'
SET ROLE app_user;
INSERT INTO public.made SELECT ids.locality_uuid(true), true FROM generate_series(1, 20);
INSERT INTO public.made SELECT ids.locality_uuid(false), false FROM generate_series(1, 20);
PGB
  "/usr/lib/postgresql/$PG_MAJOR/bin/pgbench" -n -c 16 -j 2 -t 50 -f "$WORK/clients.sql" app >"$WORK/pgbench.txt" 2>&1 ||
    { cat "$WORK/pgbench.txt"; fail "pgbench"; }
  expect "16 clients: distinct counters per window and mode" \
    "SELECT count(*) || ' ids by ' || count(DISTINCT public.locality_uuid_pid(id)) || ' backends, '
            || count(*) - count(DISTINCT (sequential, public.locality_uuid_counter(id, sequential),
                                          CASE WHEN sequential THEN floor(extract(epoch FROM public.locality_uuid_timestamp(id)) / 600) END))
            || ' repeated counters'
     FROM public.made" "32000 ids by 16 backends, 0 repeated counters"
  # What that role cannot do: set a run or a counter back, push a run into
  # the future through the takeover, or change the node value.
  for call in "SELECT setval('ids_private.locality_uuid_run_00', 1)|permission denied for schema ids_private" \
              "SELECT setval('ids_private.locality_uuid_at_seq', 1)|permission denied for schema ids_private" \
              "SELECT ids.locality_uuid_run_place(now(), floor(extract(epoch FROM now()) / 600)::int8 + 5, 0)|window [0-9]* is not a window of the clock" \
              "SELECT ids.locality_uuid_set_node(1, 'x')|permission denied for locality_uuid_set_node" \
              "SELECT * FROM ids.locality_uuid_release_future_windows()|permission denied for locality_uuid_release_future_windows"; do
    if out=$(psql -X -q -At -d app -v ON_ERROR_STOP=1 -c "SET ROLE app_user" -c "${call%|*}" 2>&1); then
      fail "app_user could: ${call%|*}"
    fi
    grep -q "^ERROR:  ${call#*|}" <<<"$out" || fail "app_user's ${call%|*}: $out"
    echo "ok: app_user cannot ${call%|*}: $(echo "$out" | grep -o 'ERROR: .*')"
  done
  out=$(psql -X -q -At -d app -v ON_ERROR_STOP=1 -c "SET ROLE app_user" \
          -c "SELECT ids_left + ids_drawn + $(psql -X -q -At -d app -c "SELECT $start") FROM ids.locality_uuid_window_usage()" 2>&1) ||
    fail "app_user's window usage: $out"
  [ "$out" = 2147483648 ] || fail "app_user's window usage: $out"
  echo "ok: app_user reads the window's usage: ids_left + ids_drawn + the run start = $out"

  # An immediate stop (a crash): the sequences, WAL-logged, continue past
  # every value handed out before it. A fresh install, so the ids before
  # the stop are its first ones: sequences that restarted would repeat them.
  g -c "CREATE SCHEMA fresh"
  psql -X -q -d app -c "SET ROLE app_owner" -v locality_schema=fresh -f "$SCRIPT" >/dev/null
  g -c "CREATE TABLE public.before_crash AS
          SELECT fresh.locality_uuid(false) AS v, fresh.locality_uuid(true) AS s, fresh.hot_guid(1) AS h
          FROM generate_series(1, 1000)"
  pg_ctlcluster "$PG_MAJOR" regress stop -m immediate
  pg_ctlcluster "$PG_MAJOR" regress start
  expect "after an immediate stop, no counter repeats one made before it" \
    "SELECT count(*) FILTER (WHERE public.locality_uuid_counter(v) IN (SELECT public.locality_uuid_counter(v) FROM public.before_crash))
            || ' ' || count(*) FILTER (WHERE (public.locality_uuid_counter(s, true), floor(extract(epoch FROM public.locality_uuid_timestamp(s)) / 600))
                                             IN (SELECT public.locality_uuid_counter(s, true), floor(extract(epoch FROM public.locality_uuid_timestamp(s)) / 600)
                                                 FROM public.before_crash))
            || ' ' || count(*) FILTER (WHERE public.hot_guid_counter(h) IN (SELECT public.hot_guid_counter(h) FROM public.before_crash))
     FROM (SELECT fresh.locality_uuid(false) AS v, fresh.locality_uuid(true) AS s, fresh.hot_guid(1) AS h
           FROM generate_series(1, 1000)) a" "0 0 0"

  # A new node value reaches a session whose generator plans already
  # inlined the old one.
  got=$(psql -X -q -At -d app -v ON_ERROR_STOP=1 <<'SQL'
SET ROLE app_owner;
SELECT public.locality_uuid_node(ids.locality_uuid()) = ids.locality_uuid_node_id();
\! psql -X -q -d app -c "SET ROLE app_owner" -c "SELECT ids.locality_uuid_set_node(4242, 'other-host')" >/dev/null
SELECT public.locality_uuid_node(ids.locality_uuid()) || ' ' || public.hot_guid_machine(ids.hot_guid(1));
SQL
  )
  [ "$got" = "$(printf 't\n4242 %s' "$(printf 'other-host' | md5sum | cut -c1-6)")" ] || fail "a new node value in a running session: $got"
  echo "ok: a running session's next ids carry the new node value and machine bytes: $(echo $got)"

  # MD5 without md5(): the PL/pgSQL MD5 gives RFC 1321's test-suite digests
  # and md5()'s on random text (multibyte included); then, with md5() off
  # for the role (as a FIPS server refuses it: here its EXECUTE is revoked,
  # since a server whose OpenSSL allows FIPS algorithms only cannot start
  # without a FIPS provider), window bases and machine bytes still come out
  # right.
  expect "PL/pgSQL MD5: RFC 1321's test suite" \
    "SELECT string_agg(ids.locality_uuid_md5_plpgsql(convert_to(m, 'UTF8')), ' ' ORDER BY n)
     FROM (VALUES (1, ''), (2, 'a'), (3, 'abc'), (4, 'message digest'), (5, 'abcdefghijklmnopqrstuvwxyz'),
                  (6, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'),
                  (7, repeat('1234567890', 8))) v(n, m)" \
    "d41d8cd98f00b204e9800998ecf8427e 0cc175b9c0f1b6a831c399e269772661 900150983cd24fb0d6963f7d28e17f72 f96b697d7cb7938d525a2f31aaf161d0 c3fcd3d76192e4007dfb496cca67e13b d174ab98d277d9f5a5611c2c9f419d9f 57edf4a22be3c955ac49da2e2107b67a"
  expect "PL/pgSQL MD5 equals md5() on random text" \
    "SELECT count(*) FILTER (WHERE ids.locality_uuid_md5_plpgsql(convert_to(m, 'UTF8')) <> md5(convert_to(m, 'UTF8')))
            || ' of ' || count(*)
     FROM (SELECT repeat(md5(random()::text) || 'é', (random() * 6)::int) || left(md5(random()::text), (random() * 32)::int) AS m
           FROM generate_series(1, 300)) r" "0 of 300"
  q -c "REVOKE EXECUTE ON FUNCTION md5(bytea), md5(text) FROM PUBLIC"
  if g -c "SELECT md5('a')" >/dev/null 2>&1; then fail "md5() still works for app_owner"; fi
  echo "ok: md5() is off for app_owner: $(g -c "SELECT md5('a')" 2>&1 | grep -o 'ERROR: .*')"
  out=$(g -c "SELECT ids.locality_uuid_set_node(5, 'abc')" 2>&1) || fail "locality_uuid_set_node without md5(): $out"
  expect "without md5(): window bases and machine bytes" \
    "SET ROLE app_owner;
     SELECT to_hex(ids.locality_uuid_window_base(0)) || ' ' || to_hex(ids.locality_uuid_window_base(2250545))
            || ' ' || ids.hot_guid_machine_id()" "2d567b87 1b8543f 900150"
  expect "without md5(): sequential ids" \
    "SET ROLE app_owner;
     SELECT count(*) FILTER (WHERE (public.locality_uuid_counter(id, true)
                                    - ids.locality_uuid_window_base(floor(extract(epoch FROM public.locality_uuid_timestamp(id)) / 600)::int8)
                                    + 4294967296) % 4294967296
                                   BETWEEN 1 AND 2147483648) || ' of ' || count(*)
     FROM (SELECT ids.locality_uuid(true) AS id FROM generate_series(1, 100)) s" "100 of 100"

  # locality_uuid_fill: the C edition's procedure, word for word, filling
  # a table with this edition's ids across batches, as the database's owner.
  expect "locality_uuid_fill is the C edition's, word for word" \
    "SELECT count(*) FROM pg_proc s, pg_proc c
     WHERE s.oid = 'ids.locality_uuid_fill'::regproc AND c.oid = 'public.locality_uuid_fill'::regproc
       AND s.prosrc = c.prosrc AND s.prokind = 'p' AND c.prokind = 'p'" "1"
  g -c "CREATE TABLE public.to_fill (n int PRIMARY KEY, created_at timestamptz NOT NULL, id uuid)" \
    -c "INSERT INTO public.to_fill SELECT n, timestamptz '2024-03-01 00:00:00+00' + n * interval '1.5 s'
        FROM generate_series(1, 1000) n"
  got=$(g -c "CALL ids.locality_uuid_fill('public.to_fill', 'id', 'ids.locality_uuid_at(t.created_at, true)', batch_size => 300)" 2>&1) ||
    fail "locality_uuid_fill: $got"
  [ "$got" = "$(printf '%s\n%s' 'NOTICE:  locality_uuid_fill: to_fill.id: 1000 rows filled in 4 batches, no row without a value left' 1000)" ] ||
    fail "locality_uuid_fill: $got"
  echo "ok: locality_uuid_fill as the database's owner, with the SQL edition's ids: $(echo $got)"
  expect "the filled ids: distinct, each at its row's time, sequential counters of the window" \
    "SELECT count(DISTINCT id) || ' distinct, ' || count(*) FILTER (WHERE public.locality_uuid_timestamp(id) = created_at)
            || ' at their time, ' || count(*) FILTER (WHERE ((public.locality_uuid_counter(id, true)
                 - ids.locality_uuid_window_base(floor(extract(epoch FROM created_at) / 600)::int8)) % 4294967296 + 4294967296)
                 % 4294967296 > 2147483648) || ' given-time counters'
     FROM public.to_fill" "1000 distinct, 1000 at their time, 1000 given-time counters"

  # The uninstall script: stopped by a DEFAULT that uses the edition
  # (2BP01, nothing dropped), then every object gone; never the C
  # edition's schema.
  UNINSTALL="$ROOT/locality_uuid_sql_uninstall.sql"
  g -c "CREATE SCHEMA gone"
  psql -X -q -d app -c "SET ROLE app_owner" -v locality_schema=gone -f "$SCRIPT" >/dev/null
  objects="SELECT (SELECT count(*) FROM pg_proc WHERE pronamespace = 'gone'::regnamespace) || ' routines, '
                  || (SELECT count(*) FROM pg_class WHERE relnamespace IN ('gone'::regnamespace, coalesce(to_regnamespace('gone_private'), 0)))
                  || ' relations, ' || (SELECT count(*) FROM pg_namespace WHERE nspname = 'gone_private') || ' private schema'"
  installed=$(q -c "$objects")
  [ "$installed" = "62 routines, 73 relations, 1 private schema" ] || fail "installed into gone: $installed"
  g -c "CREATE TABLE public.uses_gone (id uuid DEFAULT gone.locality_uuid())"
  if out=$(psql -X -q -d app -c "SET ROLE app_owner" -v locality_schema=gone -f "$UNINSTALL" 2>&1); then
    fail "uninstalled under a DEFAULT that uses it"
  fi
  grep -q '^psql:.*ERROR:  cannot drop function gone.locality_uuid() because other objects depend on it$' <<<"$out" ||
    fail "the uninstall under a DEFAULT: $out"
  echo "ok: a DEFAULT stops the uninstall: $(echo "$out" | grep -o 'ERROR: .*')"
  expect "nothing dropped by the stopped uninstall" "$objects" "$installed"
  g -c "DROP TABLE public.uses_gone"
  # A function of the same name with other arguments is not the edition's.
  g -c "CREATE FUNCTION gone.locality_uuid(n int) RETURNS int LANGUAGE sql AS 'SELECT n'"
  psql -X -q -d app -c "SET ROLE app_owner" -v locality_schema=gone -f "$UNINSTALL" >/dev/null
  expect "the uninstall drops every routine and sequence of the edition, no other" \
    "$objects || ': ' || (SELECT string_agg(oid::regprocedure::text, ',') FROM pg_proc WHERE pronamespace = 'gone'::regnamespace)" \
    "1 routines, 0 relations, 0 private schema: gone.locality_uuid(integer)"
  c_members="SELECT count(*) FROM pg_depend WHERE refobjid = (SELECT oid FROM pg_extension WHERE extname = 'locality_uuid')"
  members=$(q -c "$c_members")
  if out=$(psql -X -q -d app -v locality_schema=public -f "$UNINSTALL" 2>&1); then
    fail "the uninstall ran in the C edition's schema"
  fi
  echo "ok: the uninstall refuses the C edition's schema: $(echo "$out" | grep -o 'ERROR: .*')"
  expect "the C edition keeps its $members objects" "$c_members" "$members"

  # The data-only extension (make -C locality_uuid_sql install, as from
  # PGXN), created by a superuser in a schema only superusers control: the
  # same routines as the psql script's, word for word (only the random
  # constants differ); a role with the README's grants makes ids; pg_dump
  # and a restore keep the counters. Refused: a schema another role owns,
  # one that already holds a routine of the edition's names (planted), the
  # C edition's.
  psql -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE ext OWNER app_owner"
  e() { psql -X -q -At -v ON_ERROR_STOP=1 -d ext -c "SET ROLE app_owner" "$@"; }
  psql -X -q -d ext -v ON_ERROR_STOP=1 -c "CREATE EXTENSION locality_uuid" -c "CREATE SCHEMA planted" \
    -c "CREATE FUNCTION planted.locality_uuid_variable_start() RETURNS int8 LANGUAGE sql AS 'SELECT 0'" \
    -c "CREATE SCHEMA granted" -c "GRANT CREATE ON SCHEMA granted TO app_owner" \
    -c "CREATE SCHEMA leftover" -c "CREATE FUNCTION leftover.f() RETURNS int LANGUAGE sql AS 'SELECT 1'" \
    -c "ALTER FUNCTION leftover.f() OWNER TO app_owner"
  # In the schema app_owner owns, operators for the near-miss operand types
  # of the install's checks, which would run as the superuser: never.
  e -c "CREATE SCHEMA mine" \
    -c "CREATE FUNCTION mine.trap(a name, b name) RETURNS bool LANGUAGE plpgsql AS
          \$\$ BEGIN RAISE WARNING 'PLANTED OPERATOR RAN AS %', current_user; RETURN false; END \$\$" \
    -c "CREATE FUNCTION mine.trap_on(a oid, b regnamespace) RETURNS bool LANGUAGE plpgsql AS
          \$\$ BEGIN RAISE WARNING 'PLANTED OPERATOR RAN AS %', current_user; RETURN false; END \$\$" \
    -c "CREATE FUNCTION mine.trap_oi(a oid, b int4) RETURNS bool LANGUAGE plpgsql AS
          \$\$ BEGIN RAISE WARNING 'PLANTED OPERATOR RAN AS %', current_user; RETURN false; END \$\$" \
    -c "CREATE OPERATOR mine.~ (LEFTARG = name, RIGHTARG = name, FUNCTION = mine.trap)" \
    -c "CREATE OPERATOR mine.!~ (LEFTARG = name, RIGHTARG = name, FUNCTION = mine.trap)" \
    -c "CREATE OPERATOR mine.= (LEFTARG = oid, RIGHTARG = regnamespace, FUNCTION = mine.trap_on)" \
    -c "CREATE OPERATOR mine.= (LEFTARG = oid, RIGHTARG = int4, FUNCTION = mine.trap_oi)"
  for case in "mine|42501: locality_uuid: install refused: schema mine is owned by role app_owner|A schema's owner can drop and replace" \
              "granted|42501: locality_uuid: install refused: other roles may create objects in schema granted|CREATE on schema granted is granted to app_owner" \
              "leftover|42501: locality_uuid: install refused: schema leftover holds objects of other roles|Found: function leftover.f() of app_owner" \
              "planted|42710: locality_uuid: install refused: schema planted already holds objects of the edition's names|Found: function planted.locality_uuid_variable_start() of postgres" \
              "public|42710: locality_uuid: install refused: schema public holds the extension locality_uuid|The C edition's functions have the SQL edition's names"; do
    IFS='|' read -r bad message detail <<<"$case"
    if out=$(psql -X -q -d ext -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -c "CREATE EXTENSION locality_uuid_sql SCHEMA $bad" 2>&1); then
      fail "the extension went into schema $bad"
    fi
    grep -q "^ERROR:  $message\$" <<<"$out" && grep -q "^DETAIL: .*$detail" <<<"$out" && ! grep -q 'PLANTED' <<<"$out" ||
      fail "the extension in schema $bad: $out"
    echo "ok: no extension in schema $bad: $(grep -E '^(ERROR|DETAIL)' <<<"$out" | tr '\n' ' ')"
  done
  [ "$(psql -X -At -d ext -c "SELECT count(*) FROM pg_extension WHERE extname = 'locality_uuid_sql'")" = 0 ] ||
    fail "a refused extension is there"
  psql -X -q -d ext -v ON_ERROR_STOP=1 -c "CREATE SCHEMA ids" -c "CREATE EXTENSION locality_uuid_sql SCHEMA ids" \
    -c "GRANT USAGE ON SCHEMA ids TO app_owner" -c "GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ids TO app_owner"
  routines="SELECT md5(string_agg(p.proname || '(' || pg_get_function_arguments(p.oid) || ') ' || p.prosrc || ' '
                                  || p.prosecdef || coalesce(array_to_string(p.proconfig, ','), '')
                                  || coalesce(obj_description(p.oid, 'pg_proc'), ''), E'\n' ORDER BY p.proname, p.oid::regprocedure::text))
                   || ' ' || count(*)
            FROM pg_proc p WHERE p.pronamespace = 'ids'::regnamespace
              AND p.proname NOT IN ('locality_uuid_node_id', 'hot_guid_machine_name', 'hot_guid_machine_id', 'locality_uuid_variable_start')"
  DB=ext expect "the extension's routines are the psql script's, word for word" "$routines" "$(q -c "$routines")"
  DB=ext expect "the extension: members, config sequences, owner a superuser" \
    "SELECT (SELECT count(*) FROM pg_depend d WHERE d.refobjid = x.oid AND d.classid = 'pg_proc'::regclass) || ' routines, '
            || (SELECT count(*) FROM pg_depend d WHERE d.refobjid = x.oid AND d.classid = 'pg_class'::regclass) || ' relations, '
            || cardinality(x.extconfig) || ' dumped, owner superuser: ' || (SELECT rolsuper FROM pg_roles WHERE oid = x.extowner)
     FROM pg_extension x WHERE x.extname = 'locality_uuid_sql'" "62 routines, 73 relations, 72 dumped, owner superuser: true"
  out=$(psql -X -q -At -v ON_ERROR_STOP=1 -d ext -c "SELECT ids.locality_uuid_set_node(77, 'ext-host')" 2>&1) ||
    fail "set_node by a superuser: $out"
  got=$(e -c "SELECT public.locality_uuid_node(ids.locality_uuid()) || ' ' || public.locality_uuid_node(ids.locality_uuid(true))
                     || ' ' || public.hot_guid_machine(ids.hot_guid(3)) || ' ' || public.hot_guid_shard_key(ids.hot_guid(3))" 2>&1) || true
  [ "$got" = "77 77 $(printf 'ext-host' | md5sum | cut -c1-6) 3" ] || fail "the extension's ids after set_node: $got"
  echo "ok: a role with the README's grants makes the extension's ids; the C edition decodes them: $got"
  out=$(e -c "SELECT ids.locality_uuid(false), ids.locality_uuid(true), ids.locality_uuid_at(now(), true), ids.hot_guid(1)
              FROM generate_series(1, 700)" 2>&1) || fail "ids by a role with the README's grants: $out"
  counters="SELECT string_agg(sequencename || '=' || coalesce(last_value::text, '-'), ' ' ORDER BY sequencename)
            FROM pg_sequences WHERE schemaname = 'ids_private'"
  before=$(psql -X -q -At -v ON_ERROR_STOP=1 -d ext -c "$counters")
  psql -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE ext_restored OWNER app_owner"
  pg_dump -d ext >"$WORK/ext.sql"
  psql -X -q -d ext_restored -v ON_ERROR_STOP=1 -f "$WORK/ext.sql" >/dev/null
  after=$(psql -X -q -At -v ON_ERROR_STOP=1 -d ext_restored -c "$counters")
  [ "$after" = "$before" ] || fail "pg_dump and a restore lost counters: $after, wanted $before"
  echo "ok: pg_dump and a restore keep the extension's 72 counters: $(echo "$after" | cut -c1-120)..."
  psql -X -q -d ext -v ON_ERROR_STOP=1 -c "DROP EXTENSION locality_uuid_sql"
  DB=ext expect "DROP EXTENSION locality_uuid_sql leaves nothing in ids, and no ids_private" \
    "SELECT (SELECT count(*) FROM pg_proc WHERE pronamespace = 'ids'::regnamespace)
            + (SELECT count(*) FROM pg_class WHERE relnamespace = 'ids'::regnamespace)
            + (SELECT count(*) FROM pg_namespace WHERE nspname = 'ids_private')" "0"

  # pg_tle: the script hands pgtle.install_extension exactly the tested
  # extension script (without the \echo guard a file needs). A stand-in
  # records the call: pg_tle itself is not packaged for Debian.
  psql -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE tle"
  psql -X -q -At -v ON_ERROR_STOP=1 -d tle \
    -c "CREATE SCHEMA pgtle" -c "CREATE TABLE pgtle.calls (name text, version text, description text, ext text, requires text[])" \
    -c "CREATE FUNCTION pgtle.install_extension(name text, version text, description text, ext text, requires text[] DEFAULT NULL)
          RETURNS text LANGUAGE sql AS \$\$ INSERT INTO pgtle.calls VALUES (name, version, description, ext, requires); SELECT 'OK' \$\$" \
    -c "CREATE FUNCTION pgtle.install_update_path(name text, fromvers text, tovers text, ext text)
          RETURNS bool LANGUAGE sql AS \$\$ INSERT INTO pgtle.calls VALUES (name, fromvers || '--' || tovers, NULL, ext); SELECT true \$\$" \
    -c "CREATE FUNCTION pgtle.available_extension_versions(OUT name name, OUT version text)
          RETURNS SETOF record LANGUAGE sql AS \$\$ SELECT name::name, version FROM pgtle.calls WHERE description IS NOT NULL \$\$" \
    -c "CREATE FUNCTION pgtle.extension_update_paths(name name, OUT source text, OUT target text, OUT path text)
          RETURNS SETOF record LANGUAGE sql AS \$\$ SELECT split_part(version, '--', 1), split_part(version, '--', 2), version
                                                      FROM pgtle.calls WHERE description IS NULL \$\$" >/dev/null
  psql -X -q -At -v ON_ERROR_STOP=1 -d tle -f "$ROOT/locality_uuid_sql_pgtle.sql" >/dev/null
  version=$(sed -n "s/^default_version = '\(.*\)'$/\1/p" "$ROOT/locality_uuid_sql/locality_uuid_sql.control")
  ext_script="$ROOT/locality_uuid_sql/locality_uuid_sql--$version.sql"
  want="locality_uuid_sql $version $({ echo; grep -v '^\\echo ' "$ext_script"; } | md5sum | cut -c1-32) $(sed -n "s/^comment = '\(.*\)'$/\1/p" "$ROOT/locality_uuid_sql/locality_uuid_sql.control")"
  got=$(psql -X -At -d tle -c "SELECT name || ' ' || version || ' ' || md5(ext) || ' ' || description FROM pgtle.calls WHERE description IS NOT NULL")
  [ "$got" = "$want" ] || fail "the pg_tle script: $got, wanted $want"
  echo "ok: the pg_tle script installs the extension script of ${ext_script##*/}: ${got:0:60}..."
  # Its update paths: each update script's text, once.
  for update in "$ROOT"/locality_uuid_sql/locality_uuid_sql--*--*.sql; do
    path=$(basename "$update" .sql); path=${path#locality_uuid_sql--}
    want="$path $({ echo; grep -v '^\\echo ' "$update"; } | md5sum | cut -c1-32)"
    got=$(psql -X -At -d tle -c "SELECT version || ' ' || md5(ext) FROM pgtle.calls WHERE version = '$path'")
    [ "$got" = "$want" ] || fail "the pg_tle update path $path: $got, wanted $want"
    echo "ok: the pg_tle script installs the update path $path"
  done
  # Run again (after an upgrade of the script itself, to add a version):
  # what pg_tle holds already is not installed twice.
  psql -X -q -At -v ON_ERROR_STOP=1 -d tle -f "$ROOT/locality_uuid_sql_pgtle.sql" >/dev/null
  DB=tle expect "the pg_tle script run twice installs each once" "SELECT count(*) = count(DISTINCT version) FROM pgtle.calls" "t"

  # The README's examples, as a managed service's user runs them.
  # (Before PostgreSQL 15, every role may create in public and a superuser
  # owns it: the steps doc/sql-edition.md gives, which the install would
  # otherwise ask for; on 15 and later they change nothing.)
  psql -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE managed OWNER app_owner"
  psql -X -q -d managed -v ON_ERROR_STOP=1 -c "REVOKE CREATE ON SCHEMA public FROM PUBLIC" \
    -c "ALTER SCHEMA public OWNER TO app_owner"
  psql -X -q -d managed -v ON_ERROR_STOP=1 -c "SET ROLE app_owner" -f "$SCRIPT" >/dev/null
  PGTZ=UTC psql -X -q -A -t -F ' | ' -v ON_ERROR_STOP=1 -d managed -c "SET ROLE app_owner" \
    -f "$WORK/examples.sql" >"$WORK/output.txt"
  [ "$(psql -X -At -d managed -c "SELECT count(*) FROM pg_extension WHERE extname = 'locality_uuid'")" = 0 ] ||
    fail "the C edition is in the examples' database"
  python3 "$ROOT/test/integration/lib/readme_blocks.py" compare "$WORK" || fail "README's SQL edition examples"

  # A copy of that database (CREATE DATABASE ... TEMPLATE): its first
  # session's first id moves the counters and warns once; later sessions
  # and the original never (sql_edition_safety.sh counts what a copy and
  # its origin make).
  psql -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE managed_copy TEMPLATE managed OWNER app_owner"
  two_ids() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$1" -c "SET ROLE app_owner" -c "SELECT locality_uuid() IS NOT NULL" \
                -c "SELECT hot_guid(1) IS NOT NULL" -c "SELECT locality_uuid(true) IS NOT NULL" 2>&1; }
  out=$(two_ids managed_copy)
  [ "$(grep -c '^WARNING:  locality_uuid: this database is a copy: its counters moved past fresh random points$' <<<"$out")" = 1 ] &&
    grep -q '^DETAIL:  The counters were bound to database [0-9]* of system [0-9]*; this is [0-9]* of system [0-9]*. A copy continues' <<<"$out" ||
    fail "a copy's first ids: $out"
  echo "ok: a copy's first session warns once, at its first id: $(grep -E '^(WARNING|HINT)' <<<"$out" | tr '\n' ' ')"
  out=$(two_ids managed_copy)
  [ "$out" = "$(printf 't\nt\nt')" ] || fail "the copy's second session warned: $out"
  out=$(two_ids managed)
  [ "$out" = "$(printf 't\nt\nt')" ] || fail "the original warned: $out"
  echo "ok: neither the copy's later sessions nor the original warn"
}
export -f run
# The C edition, the oracle, counts per session on purpose (no warnings).
with_cluster -o locality_uuid.shared_counter=off -- bash -c run
echo "the SQL edition answers as the C edition on PostgreSQL $PG_MAJOR"
