#!/usr/bin/env bash
# The SQL edition (src/sql/, make sql-edition) against the C edition, its
# oracle, on this major:
#   install     as a role that is neither superuser nor CREATEROLE (as on a
#               managed service), into a schema named on the command line
#               and into the current schema; running the script again over
#               an install succeeds (the upgrade path)
#   surface     every function the editions share has the C edition's
#               arguments, result, volatility and comment
#   vectors     the original libraries' known answers
#   equality    every reader, form_uuid_v1(_nth) and hot_guid_lower on
#               random inputs (and the edges) give exactly the C edition's
#               answer; locality_uuid_pack is what the C readers decode
#   errors      the same SQLSTATE, message, DETAIL and HINT for bad input
#   inlining    the readers are inlined: an expression index on one is used
#   time zone   the readers' answers do not move with the session TimeZone
#   README      the ```pgsql examples of README.md (Managed services) print
#               what their result comments say, in a database that has only
#               the SQL edition, installed in public by the database's owner
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
make -s -C "$ROOT" PG_CONFIG="$PG_CONFIG" sql-edition
export SCRIPT="$ROOT/locality_uuid_sql.sql" ROUNDS=${SQL_EDITION_ROUNDS:-20000}
export WORK
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 "$ROOT/test/integration/lib/readme_blocks.py" extract pgsql "$WORK" "$ROOT/README.md"

run() {
  set -euo pipefail
  fail() { echo "FAIL: $*"; exit 1; }
  q() { psql -X -q -At -v ON_ERROR_STOP=1 -d app "$@"; }
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
  psql -X -q -d app -c "SET ROLE app_owner" -v locality_schema=ids -f "$SCRIPT" >/dev/null
  expect "installed by a role that is not superuser" \
    "SELECT count(*) FILTER (WHERE n.nspname = 'ids') || ' in ids, ' || count(*) FILTER (WHERE n.nspname = 'here')
            || ' in here, owners: ' || string_agg(DISTINCT pg_get_userbyid(p.proowner), ',')
            || ', superuser: ' || (SELECT rolsuper FROM pg_roles WHERE rolname = 'app_owner')
     FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname IN ('ids', 'here')" \
    "22 in ids, 22 in here, owners: app_owner, superuser: false"

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
    "17 shared; unlike the C edition: none"

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
FROM (SELECT g, gen_random_uuid()::text AS r FROM generate_series(1, $ROUNDS) g) s
UNION ALL
SELECT u::uuid FROM (VALUES ('00000000-0000-0000-0000-000000000000'), ('ffffffff-ffff-ffff-ffff-ffffffffffff'),
                            ('00000000-0000-b000-0000-000000000000'), ('ffffffff-ffff-bfff-ffff-ffffffffffff'),
                            ('00000000-0000-1000-8000-000000000000'), ('ffffffff-ffff-1fff-bfff-ffffffffffff'),
                            ('ffffffff-ffff-1fff-7fff-ffffffffffff'), ('ffffffff-ffff-1fff-cfff-ffffffffffff')) v(u);
-- Version 1 forming: any microsecond of the range, clock sequence, MAC
-- and ordinal, and the range's two ends.
CREATE TABLE v1_inputs AS
SELECT timestamptz '1970-01-01 00:00:00+00' + us * interval '1 microsecond' AS ts,
       (random() * 16383)::int AS clock_seq, (random() * 163839)::int8 AS ordinal,
       substr(md5(random()::text), 1, 12)::macaddr AS mac
FROM (SELECT -12219292800000000 + floor(random() * 115292150460)::int8 * 1000000
             + floor(random() * 1000000)::int8 AS us
      FROM generate_series(1, $ROUNDS)) s
UNION ALL
SELECT t::timestamptz, 16383, 16383, 'ff:ff:ff:ff:ff:ff'
FROM (VALUES ('1582-10-15 00:00:00+00'), ('5236-03-31 21:21:00.684697+00'), ('1969-12-31 23:59:59.999999+00'),
             ('1970-01-01 00:00:00+00')) v(t);
CREATE TABLE bounds AS
SELECT timestamptz '1970-01-01 00:00:00+00' + floor(random() * 4294967295000000)::int8 * interval '1 microsecond' AS ts
FROM generate_series(1, $ROUNDS)
UNION ALL
SELECT t::timestamptz FROM (VALUES ('-infinity'), ('1969-12-31 23:59:59.5+00'), ('1900-01-01 00:00:00+00'),
                                   ('1970-01-01 00:00:00+00'), ('2106-02-07 06:28:15+00'),
                                   ('2106-02-07 06:28:14.000001+00')) v(t);
SQL
  # name|differing rows, for every shared function over its inputs.
  diffs=$(q <<'SQL'
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
  )
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
                                  OR public.locality_uuid_timestamp(u) <> ids.locality_uuid_from_unix_micros(ms * 1000))
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
                                  ids.locality_uuid_unix_micros(public.locality_uuid_timestamp(id)) / 1000, false) <> id)
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
  [ "$(echo "$outcomes" | grep -c '^same: ')" = 24 ] || fail "the editions answer bad input differently (above)"
  [ "$(echo "$outcomes" | grep -c '^same: 22008 \|^same: 22003 ')" = 15 ] || fail "fewer errors than the calls above make"

  # Inlined readers: the plan shows built-ins, never the function, and an
  # expression index on a reader serves a range query.
  for f in locality_uuid_timestamp locality_uuid_pid locality_uuid_node locality_uuid_mac locality_uuid_counter \
           locality_uuid_version uuid_v1_timestamp uuid_v1_clock_seq uuid_v1_node hot_guid_shard_key \
           hot_guid_timestamp hot_guid_counter hot_guid_pid hot_guid_machine; do
    plan=$(q -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT ids.$f(id) FROM inputs")
    if echo "$plan" | grep -q "$f"; then echo "$plan"; fail "$f is not inlined"; fi
  done
  echo "ok: 14 readers inlined (no function call in their plans)"
  q -c "CREATE INDEX inputs_hot_time ON inputs (ids.hot_guid_timestamp(id))" -c "ANALYZE inputs"
  plan=$(q -c "SET enable_seqscan = off" \
           -c "EXPLAIN (COSTS OFF) SELECT count(*) FROM inputs WHERE ids.hot_guid_timestamp(id) >= '2100-01-01'")
  echo "$plan" | grep -q "Index.* on inputs_hot_time\|Index.* using inputs_hot_time" ||
    { echo "$plan"; fail "the expression index on hot_guid_timestamp is not used"; }
  echo "ok: an expression index on ids.hot_guid_timestamp(id) serves a range query"

  # The README's examples, as a managed service's user runs them.
  psql -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE managed OWNER app_owner"
  psql -X -q -d managed -v ON_ERROR_STOP=1 -c "SET ROLE app_owner" -f "$SCRIPT" >/dev/null
  PGTZ=UTC psql -X -q -A -t -F ' | ' -v ON_ERROR_STOP=1 -d managed -c "SET ROLE app_owner" \
    -f "$WORK/examples.sql" >"$WORK/output.txt"
  [ "$(psql -X -At -d managed -c "SELECT count(*) FROM pg_extension WHERE extname = 'locality_uuid'")" = 0 ] ||
    fail "the C edition is in the examples' database"
  python3 "$ROOT/test/integration/lib/readme_blocks.py" compare "$WORK" || fail "README's SQL edition examples"
}
export -f run
with_cluster -- bash -c run
echo "the SQL edition answers as the C edition on PostgreSQL $PG_MAJOR"
