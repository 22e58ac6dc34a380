#!/usr/bin/env bash
# The SQL edition under a tenant's own search_path (issue #42): nothing a
# role with the README's grants can create changes what the edition
# computes.
#   discover  every function of the edition is called (the readers and
#             every other IMMUTABLE or STABLE one over 40 sample rows of
#             each argument type, every maker of every kind and mode, the
#             errors) with debug_print_plan and debug_print_rewritten on:
#             every operator, function and type their bodies use, inlined
#             or planned inside PL/pgSQL, is read from the plans
#   plant     mallory, a tenant with a schema of its own, creates in it an
#             exact-typed look-alike of each (an operator of the same name
#             and operand types, a function of the same name and argument
#             types, a domain of each type's name): each counts in a trap
#             sequence that it ran, warns, and returns NULL
#   compare   with search_path = mine, pg_catalog: every IMMUTABLE or
#             STABLE function answers as under a clean path, row for row
#             (values and errors); the makers' ids of every kind decode to
#             the node value, time, shard key and counter rules they must
#             carry; a CHECK on a reader refuses what it refuses under a
#             clean path; a STORED generated column holds the reader's
#             value; an expression index answers as a sequential scan; the
#             trap never ran
# Break one OPERATOR(pg_catalog.x) back into x and this suite fails.
# (locality_uuid_fill, a procedure, runs its statements as the caller
# typed them, under the caller's path by design: the C edition's, word for
# word; it is not among the functions here.)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
make -s -C "$ROOT" PG_CONFIG="$PG_CONFIG" sql-edition
export SCRIPT="$ROOT/locality_uuid_sql.sql"
export WORK
WORK=$(mktemp -d)
chmod 755 "$WORK"
trap 'rm -rf "$WORK"' EXIT

run() {
  set -euo pipefail
  fail() { echo "FAIL: $*"; exit 1; }
  as() { local role=$1; shift; psql -X -q -At -v ON_ERROR_STOP=1 -U "$role" -d shop "$@"; }
  q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "${DB:-shop}" "$@"; }
  for role in dba mallory; do q -d postgres -c "CREATE ROLE $role LOGIN PASSWORD '$PGPASSWORD'"; done
  q -d postgres -c "CREATE DATABASE shop OWNER dba"
  as dba -c "CREATE SCHEMA ids"
  psql -X -q -v ON_ERROR_STOP=1 -U dba -d shop -v locality_schema=ids -f "$SCRIPT" >/dev/null
  as dba -c "SELECT ids.locality_uuid_set_node(4242, 'db-4242')" >/dev/null
  # The README's grants for a role that makes ids, and a schema of its own
  # (a usual per-tenant layout).
  as dba -c "GRANT USAGE ON SCHEMA ids TO mallory" -c "GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ids TO mallory"
  q -c "CREATE SCHEMA mine AUTHORIZATION mallory" -c "CREATE SCHEMA trap AUTHORIZATION mallory"
  as mallory -c "CREATE SEQUENCE trap.ran" -c "GRANT USAGE ON SCHEMA trap TO PUBLIC" \
    -c "GRANT USAGE ON SEQUENCE trap.ran TO PUBLIC"

  # ---- samples: 40 rows, a column per argument type --------------------
  as dba <<'SQL'
CREATE TABLE public.samples AS
SELECT i,
       CASE WHEN i % 10 = 0 THEN NULL
            WHEN i % 4 = 0 THEN ids.locality_uuid_pack((i * 2654435761) % 4294967296, i * 977, i * 104729 % 268435456,
                                                       1000000000000 + i::int8 * 8380800000, i % 8 = 0)
            WHEN i % 4 = 1 THEN ids.hot_guid(i * 7919, timestamptz '2024-01-01 00:00:00+00' + i * interval '13 days')
            WHEN i % 4 = 2 THEN ids.form_uuid_v1(timestamptz '1999-01-01 00:00:00+00' + i * interval '11 days 3 hours',
                                                 i * 409 % 16384, ('02:00:5e:00:' || lpad(to_hex(i), 2, '0') || ':01')::macaddr)
            ELSE md5(i::text)::uuid END AS u,
       (ARRAY[timestamptz '1970-01-01 00:00:00+00', '1969-12-31 23:59:59.999+00', '2024-02-29 12:34:56.789123+00',
              '2106-02-07 06:28:15+00', '2106-02-07 06:28:16+00', '10889-08-02 05:31:50.655+00', 'infinity', '-infinity',
              '1582-10-15 00:00:00+00', NULL])[1 + i % 10] AS ts,
       (ARRAY[0, 1, 7, 4294967295, -1, 4294967296, 208, NULL]::int8[])[1 + i % 8] AS k,
       (ARRAY[true, false, NULL])[1 + i % 3] AS b,
       (ARRAY[0, 1, 16383, 16384, -1, 4242, NULL]::int4[])[1 + i % 7] AS n,
       (ARRAY['', 'db-1', 'abc', NULL])[1 + i % 4] AS t,
       (ARRAY['44:88:99:36:57:32'::macaddr, '00:00:00:00:00:00', NULL])[1 + i % 3] AS m,
       (ARRAY['\x'::bytea, '\x00ff10', NULL])[1 + i % 3] AS by,
       timestamptz '2023-05-06 07:08:09.123456+00' + i * interval '37 days 5 hours 7 minutes' AS good
FROM generate_series(1, 40) i;
GRANT SELECT ON public.samples TO mallory;
SQL
  # One query per IMMUTABLE or STABLE function: its arguments from the
  # sample columns of their types, row order fixed (ORDER BY needs no
  # operator name); no operator or unqualified name of the test's own.
  # Owner-only functions run as mallory too: their refusal is compared.
  readers=$(as dba -c "
    SELECT pg_catalog.format('SELECT %s FROM public.samples s ORDER BY s.i OFFSET %s LIMIT 1;',
             pg_catalog.format('ids.%I(%s)', p.proname,
               coalesce((SELECT pg_catalog.string_agg(CASE t WHEN 'uuid'::regtype THEN 's.u' WHEN 'timestamptz'::regtype THEN 's.ts'
                                                            WHEN 'int8'::regtype THEN 's.k' WHEN 'bool'::regtype THEN 's.b'
                                                            WHEN 'int4'::regtype THEN 's.n' WHEN 'text'::regtype THEN 's.t'
                                                            WHEN 'macaddr'::regtype THEN 's.m' WHEN 'bytea'::regtype THEN 's.by' END, ', ')
                         FROM unnest(p.proargtypes::regtype[]) t), '')), row_number)
    FROM pg_proc p, generate_series(0, 39) row_number
    WHERE p.pronamespace = 'ids'::regnamespace AND p.prokind = 'f' AND p.provolatile IN ('i', 's')
      AND NOT p.proretset AND p.prorettype <> 'record'::regtype
    ORDER BY p.proname, p.oid, row_number")
  n_readers=$(( $(wc -l <<<"$readers") / 40 ))
  unmapped=$(as dba -c "SELECT coalesce(string_agg(p.oid::regprocedure::text, ', '), '') FROM pg_proc p
                        WHERE p.pronamespace = 'ids'::regnamespace AND p.prokind = 'f' AND EXISTS (SELECT FROM unnest(p.proargtypes::regtype[]) t
                          WHERE t NOT IN ('uuid', 'timestamptz', 'int8', 'bool', 'int4', 'text', 'macaddr', 'bytea'))")
  [ -z "$unmapped" ] || fail "functions with arguments of types the samples lack: $unmapped"
  # Every maker, each kind and mode, for the clock and for given times;
  # the ids land in a table for the clean-path checks below.
  as dba -c "CREATE TABLE public.made (kind text, ts timestamptz, k int8, id uuid)" -c "GRANT INSERT, SELECT ON public.made TO mallory"
  makers="
INSERT INTO public.made SELECT 'clock', NULL, NULL, ids.locality_uuid() FROM pg_catalog.generate_series(1, 300);
INSERT INTO public.made SELECT 'clock variable', NULL, NULL, ids.locality_uuid(false) FROM pg_catalog.generate_series(1, 300);
INSERT INTO public.made SELECT 'clock sequential', NULL, NULL, ids.locality_uuid(true) FROM pg_catalog.generate_series(1, 300);
INSERT INTO public.made SELECT 'at variable', s.good, NULL, ids.locality_uuid_at(s.good, false) FROM public.samples s;
INSERT INTO public.made SELECT 'at sequential', s.good, NULL, ids.locality_uuid(s.good, true) FROM public.samples s;
INSERT INTO public.made SELECT 'at sequential', s.good, NULL, ids.locality_uuid_at(s.good, true) FROM public.samples s;
INSERT INTO public.made SELECT 'at mode', s.good, NULL, ids.locality_uuid_at(s.good) FROM public.samples s;
INSERT INTO public.made SELECT 'at mode', s.good, NULL, ids.locality_uuid(s.good) FROM public.samples s;
INSERT INTO public.made SELECT 'hot clock', NULL, 77, ids.hot_guid(77) FROM pg_catalog.generate_series(1, 300);
INSERT INTO public.made SELECT 'hot at', s.good, 4294967295, ids.hot_guid(4294967295, s.good) FROM public.samples s;
SELECT ids.locality_uuid_use_sequential_ids();
INSERT INTO public.made SELECT 'clock sequential', NULL, NULL, ids.locality_uuid() FROM pg_catalog.generate_series(1, 300);
SELECT ids.locality_uuid_use_variable_ids();"
  # The errors the makers raise (each its own statement: the message is
  # compared). The window report's columns name the clock's 10-minute
  # window, which may turn between the two runs: its length is compared.
  errors="
SELECT ids.locality_uuid_at('infinity', true);
SELECT ids.locality_uuid_at('1969-12-31 23:59:59.999+00', false);
SELECT ids.hot_guid(-1);
SELECT ids.hot_guid(7, '2106-02-07 06:28:16+00');
SELECT ids.hot_guid_lower('2106-02-08 00:00:00+00');
SELECT ids.form_uuid_v1('1582-10-14 23:59:59+00', 1, '44:88:99:36:57:32');
SELECT w.window_end OPERATOR(pg_catalog.-) w.window_start FROM ids.locality_uuid_window_usage() w;
SELECT ids.locality_uuid_set_node(1, 'x');"

  # ---- discover: what the bodies use, from the plans -------------------
  # (A fresh session: PL/pgSQL plans its statements at their first call.)
  printf '%s\n' "SET client_min_messages = log;" "SET debug_print_plan = on;" "SET debug_print_rewritten = on;" \
    "SET debug_pretty_print = off;" "$readers" "$makers" "$errors" >"$WORK/discover.sql"
  psql -X -q -U mallory -d shop -f "$WORK/discover.sql" >"$WORK/discover.out" 2>&1 || true
  ops=$(grep -o ':opno [0-9]*' "$WORK/discover.out" | awk '{print $2}' | sort -un | paste -sd, -)
  fns=$(grep -oE ':(funcid|opfuncid|aggfnoid) [0-9]*' "$WORK/discover.out" | awk '{print $2}' | sort -un | paste -sd, -)
  [ -n "$ops" ] && [ -n "$fns" ] || fail "no operator or function found in the plans: $(head -c 2000 "$WORK/discover.out")"
  # Each as a plant: operators and functions of pg_catalog (and of any
  # schema but the edition's) with their exact operand types, and the
  # types they take and give.
  as dba -c "SET search_path = pg_catalog" -c "
    CREATE TABLE public.used AS
    SELECT 'operator' AS kind, o.oid, o.oprname::text AS name, o.oprleft::regtype AS l, o.oprright::regtype AS r,
           o.oprresult::regtype AS result, false AS setof
    FROM pg_operator o WHERE o.oid = ANY ('{$ops}'::oid[]) AND o.oprnamespace <> 'ids'::regnamespace
    UNION ALL
    SELECT 'function', p.oid, p.proname::text, NULL, NULL, p.prorettype::regtype, p.proretset
    FROM pg_proc p WHERE p.oid = ANY ('{$fns}'::oid[]) AND p.pronamespace <> 'ids'::regnamespace"
  counts=$(as dba -c "SELECT count(*) FILTER (WHERE kind = 'operator') || ' operators, '
                             || count(*) FILTER (WHERE kind = 'function') || ' functions' FROM public.used")
  plants=$(as dba -c "SET search_path = pg_catalog" -c "
    WITH fn AS (
      SELECT u.*, pg_get_function_identity_arguments(u.oid) AS args,
             (SELECT bool_or(t.typtype = 'p' AND t.oid NOT IN ('anyelement'::regtype, 'anyarray'::regtype, 'anynonarray'::regtype))
              FROM pg_proc p, unnest(p.proargtypes) a JOIN pg_type t ON t.oid = a WHERE p.oid = u.oid)
             OR (SELECT t.typtype = 'p' AND t.oid NOT IN ('anyelement'::regtype, 'anyarray'::regtype, 'void'::regtype)
                 FROM pg_type t WHERE t.oid = u.result) AS pseudo,
             (SELECT p.prokind FROM pg_proc p WHERE p.oid = u.oid) AS prokind
      FROM public.used u WHERE u.kind = 'function')
    SELECT format(\$f\$CREATE FUNCTION mine.%I(%s) RETURNS %s%s LANGUAGE plpgsql AS \$b\$
BEGIN PERFORM pg_catalog.nextval('trap.ran'); RAISE WARNING 'PLANTED %% RAN', %L; %s END \$b\$;\$f\$,
                  name, args, CASE WHEN setof THEN 'SETOF ' ELSE '' END,
                  (SELECT pg_catalog.format_type(p.prorettype, NULL) FROM pg_proc p WHERE p.oid = fn.oid),
                  name || '(' || args || ')',
                  CASE WHEN setof THEN 'RETURN;' WHEN result = 'void'::regtype THEN 'RETURN;' ELSE 'RETURN NULL;' END)
    FROM fn WHERE NOT pseudo AND prokind = 'f'
    UNION ALL
    SELECT format(\$f\$CREATE FUNCTION mine.op_%s(%s) RETURNS %s LANGUAGE plpgsql AS \$b\$
BEGIN PERFORM pg_catalog.nextval('trap.ran'); RAISE WARNING 'PLANTED OPERATOR %% RAN', %L; RETURN NULL; END \$b\$;
CREATE OPERATOR mine.%s (%sFUNCTION = mine.op_%s);\$f\$,
                  oid, concat_ws(', ', CASE WHEN l::oid <> 0 THEN format_type(l, NULL) END, format_type(r, NULL)),
                  format_type(result, NULL), name, name,
                  CASE WHEN l::oid <> 0 THEN format('LEFTARG = %s, ', format_type(l, NULL)) ELSE '' END
                  || format('RIGHTARG = %s, ', format_type(r, NULL)), oid)
    FROM public.used WHERE kind = 'operator'")
  skipped=$(as dba -c "SET search_path = pg_catalog" -c "
    SELECT coalesce(string_agg(DISTINCT u.name || '(' || pg_get_function_identity_arguments(u.oid) || ')', ', '), 'none')
    FROM public.used u JOIN pg_proc p ON p.oid = u.oid
    WHERE u.kind = 'function' AND (p.prokind <> 'f'
           OR EXISTS (SELECT FROM unnest(p.proargtypes) a JOIN pg_type t ON t.oid = a
                      WHERE t.typtype = 'p' AND t.oid NOT IN ('anyelement'::regtype, 'anyarray'::regtype, 'anynonarray'::regtype))
           OR EXISTS (SELECT FROM pg_type t WHERE t.oid = p.prorettype AND t.typtype = 'p'
                      AND t.oid NOT IN ('anyelement'::regtype, 'anyarray'::regtype, 'void'::regtype)))")
  # Types last (a domain named int8 in mine would change the plants' own
  # text): every base type the operators and functions take or give.
  domains=$(as dba -c "SET search_path = pg_catalog" -c "
    SELECT format('CREATE DOMAIN mine.%I AS pg_catalog.%I CHECK (VALUE IS NULL);', t.typname, t.typname)
    FROM pg_type t
    WHERE t.typnamespace = 'pg_catalog'::regnamespace AND t.typtype = 'b' AND t.typcategory <> 'A'
      AND t.oid IN (SELECT l FROM public.used UNION SELECT r FROM public.used UNION SELECT result FROM public.used
                    UNION SELECT a FROM public.used u JOIN pg_proc p ON p.oid = u.oid, unnest(p.proargtypes) a)")
  n_plants=$(grep -c '^CREATE \(FUNCTION mine\.[a-z_0-9"]*(\|OPERATOR\)' <<<"$plants" || true)
  printf '%s\n' "SET search_path = pg_catalog;" "$plants" "$domains" >"$WORK/plant.sql"
  psql -X -q -At -U mallory -d shop -f "$WORK/plant.sql" >"$WORK/plant.out" 2>&1 || true
  ! grep -q 'ERROR' "$WORK/plant.out" || fail "plants that could not be made: $(grep -A1 ERROR "$WORK/plant.out" | head -20)"
  planted=$(as dba -c "SELECT (SELECT count(*) FROM pg_operator WHERE oprnamespace = 'mine'::regnamespace) || ' operators, '
                              || (SELECT count(*) FROM pg_proc WHERE pronamespace = 'mine'::regnamespace AND proname NOT LIKE 'op\_%') || ' functions, '
                              || (SELECT count(*) FROM pg_type WHERE typnamespace = 'mine'::regnamespace AND typtype = 'd') || ' types'")
  echo "ok: the bodies use $counts of other schemas; mallory planted look-alikes in schema mine: $planted (not plantable: $skipped)"
  # The plants are chosen under mallory's path (a sanity check of the
  # trap itself: an unqualified operator of the test's own runs it).
  got=$(as mallory -c "SET search_path = mine, pg_catalog" -c "SELECT ('a'::pg_catalog.text || 'b'::pg_catalog.text) IS NULL" 2>/dev/null)
  ran=$(q -c "SELECT count(*) FROM trap.ran WHERE is_called")
  [ "$got" = "t" ] && [ "$ran" = 1 ] || fail "an unqualified || under mallory's path did not run the plant: $got, trap called: $ran"
  q -c "SELECT pg_catalog.setval('trap.ran', 1, false)" >/dev/null
  echo "ok: the trap works: an unqualified text || text under search_path = mine, pg_catalog ran mallory's (NULL)"

  # ---- compare: the readers, clean path and mallory's ------------------
  {
    echo "SET search_path = \"\$user\", public;"
    echo "$readers"
    echo "SELECT '--- mallory''s path';"
    echo "SET search_path = mine, pg_catalog;"
    echo "$readers"
  } >"$WORK/readers.sql"
  psql -X -q -At -U mallory -d shop -f "$WORK/readers.sql" 2>&1 | sed 's/^psql:[^:]*:[0-9]*: //' >"$WORK/readers.out" || true
  sed -n '1,/^--- mallory.s path$/p' "$WORK/readers.out" | sed '$d' >"$WORK/clean.out"
  sed -n '/^--- mallory.s path$/,$p' "$WORK/readers.out" | sed '1d' >"$WORK/hostile.out"
  rows=$(wc -l <"$WORK/clean.out")
  diff "$WORK/clean.out" "$WORK/hostile.out" >"$WORK/readers.diff" || fail "the readers differ under mallory's path: $(head -20 "$WORK/readers.diff")"
  grep -q 'PLANTED' "$WORK/readers.out" && fail "a plant ran: $(grep -m3 PLANTED "$WORK/readers.out")"
  [ "$rows" -ge $((n_readers * 40)) ] || fail "the readers gave $rows lines for $n_readers functions x 40 rows"
  errors_seen=$(grep -c '^ERROR' "$WORK/clean.out" || true)
  echo "ok: $n_readers IMMUTABLE or STABLE functions x 40 sample rows answer alike under search_path = mine, pg_catalog ($rows lines, $errors_seen of them errors)"

  # ---- the makers -------------------------------------------------------
  { echo "SET search_path = mine, pg_catalog;"; echo "$makers"; } >"$WORK/makers.sql"
  out=$(psql -X -q -At -v ON_ERROR_STOP=1 -U mallory -d shop -f "$WORK/makers.sql" 2>&1) || fail "the makers under mallory's path: $out"
  grep -q 'PLANTED' <<<"$out" && fail "a plant ran in a maker: $(grep -m3 PLANTED <<<"$out")"
  # Decoded under a clean path: the node value, the time, the shard key,
  # each mode's counter rule (clock sequential: window base + 1 + place,
  # below 2^31 past the base; given time: 2^31 + 1 or more past it), all
  # distinct.
  check() {  # check WHAT SQL-GIVING-ZERO-BAD-ROWS
    local got
    got=$(as dba -c "$2")
    [ "$got" = "$3" ] || fail "$1: $got, wanted $3"
    echo "ok: $1: $got"
  }
  check "makers' ids under mallory's path: count, distinct, NULL" \
    "SELECT count(*) || ' ' || count(DISTINCT id) || ' ' || count(*) FILTER (WHERE id IS NULL) FROM public.made" \
    "$(as dba -c "SELECT count(*) || ' ' || count(*) || ' 0' FROM public.made")"
  check "Locality ids carry node 4242, version b, their time" \
    "SELECT count(*) FROM public.made WHERE kind NOT LIKE 'hot%' AND (ids.locality_uuid_node(id) <> 4242
       OR ids.locality_uuid_version(id) <> 'b'
       OR (ts IS NOT NULL AND ids.locality_uuid_timestamp(id) <> date_trunc('milliseconds', ts))
       OR (ts IS NULL AND abs(extract(epoch FROM ids.locality_uuid_timestamp(id) - now())) > 300))" "0"
  check "sequential ids follow the window base rules" \
    "SELECT count(*) FROM (SELECT kind, (ids.locality_uuid_counter(id, true)
                                         - ids.locality_uuid_window_base(floor(extract(epoch FROM ids.locality_uuid_timestamp(id)) / 600)::int8)
                                         + 4294967296) % 4294967296 AS past
                           FROM public.made WHERE kind IN ('clock sequential', 'at sequential')) x
     WHERE (kind = 'clock sequential' AND NOT past BETWEEN 1 AND 2147483648)
        OR (kind = 'at sequential' AND NOT (past BETWEEN 2147483649 AND 4294967295 OR past = 0))" "0"
  check "Hot Guids carry their key, the machine bytes of db-4242 and their second" \
    "SELECT count(*) FROM public.made WHERE kind LIKE 'hot%' AND (ids.hot_guid_shard_key(id) <> k
       OR ids.hot_guid_machine(id) <> left(md5('db-4242'), 6)
       OR (ts IS NOT NULL AND ids.hot_guid_timestamp(id) <> date_trunc('second', ts))
       OR (ts IS NULL AND abs(extract(epoch FROM ids.hot_guid_timestamp(id) - now())) > 300))" "0"
  # The errors, message for message.
  err_clean=$(printf '%s\n' 'SET search_path = "$user", public;' "$errors" | psql -X -q -At -U mallory -d shop 2>&1 | sed 's/^psql:[^:]*:[0-9]*: //' || true)
  err_hostile=$(printf '%s\n' 'SET search_path = mine, pg_catalog;' "$errors" | psql -X -q -At -U mallory -d shop 2>&1 | sed 's/^psql:[^:]*:[0-9]*: //' || true)
  [ "$err_clean" = "$err_hostile" ] && ! grep -q PLANTED <<<"$err_hostile" ||
    fail "the errors differ: clean: $err_clean / mallory's path: $err_hostile"
  echo "ok: $(grep -c '^ERROR' <<<"$err_clean") errors alike under mallory's path"

  # ---- a CHECK, a STORED generated column, an expression index ---------
  as dba <<'SQL'
CREATE SCHEMA appdata;
CREATE TABLE appdata.events (id uuid PRIMARY KEY,
  made_at timestamptz GENERATED ALWAYS AS (ids.locality_uuid_timestamp(id)) STORED,
  key8 int8 GENERATED ALWAYS AS (ids.hot_guid_shard_key(id)) STORED,
  CHECK (ids.locality_uuid_node(id) = 4242));
CREATE INDEX events_pid ON appdata.events (ids.locality_uuid_pid(id));
CREATE INDEX events_counter ON appdata.events (ids.locality_uuid_counter(id, true));
GRANT USAGE ON SCHEMA appdata TO mallory;
GRANT SELECT, INSERT ON appdata.events TO mallory;
INSERT INTO appdata.events (id) VALUES (ids.locality_uuid_pack(1, 77, 4242, 1700000000000, true));
SQL
  out=$(as mallory -c "SET search_path = mine, pg_catalog" \
          -c "INSERT INTO appdata.events (id) VALUES (ids.locality_uuid_pack(2, 77, 999, 1700000000000, true))" 2>&1) &&
    fail "a row with node 999 passed the CHECK under mallory's path"
  grep -q 'violates check constraint "events_id_check"' <<<"$out" || fail "the node-999 row: $out"
  as mallory -c "SET search_path = mine, pg_catalog" \
    -c "INSERT INTO appdata.events (id) VALUES (ids.locality_uuid_pack(3, 77, 4242, 1700000000000, true))" >/dev/null
  check "the node-999 row refused under mallory's path (as under a clean path); the generated columns hold the readers' values" \
    "SELECT count(*) || ' rows, ' || count(*) FILTER (WHERE made_at IS DISTINCT FROM ids.locality_uuid_timestamp(id)
                                                      OR key8 IS DISTINCT FROM ids.hot_guid_shard_key(id)) || ' wrong'
     FROM appdata.events" "2 rows, 0 wrong"
  idx=$(as dba -c "SET enable_seqscan = off" -c "SET enable_bitmapscan = off" \
          -c "SELECT count(*) FROM appdata.events WHERE ids.locality_uuid_pid(id) = 77")
  seq=$(as dba -c "SET enable_indexscan = off" -c "SET enable_bitmapscan = off" -c "SET enable_indexonlyscan = off" \
          -c "SELECT count(*) FROM appdata.events WHERE ids.locality_uuid_pid(id) = 77")
  [ "$idx" = "$seq" ] && [ "$idx" = 2 ] || fail "the expression index answers $idx rows, a sequential scan $seq"
  echo "ok: the expression index and a sequential scan both answer $idx rows"
  ran=$(q -c "SELECT is_called FROM trap.ran")
  [ "$ran" = f ] || fail "mallory's trap ran"
  echo "ok: mallory's trap never ran"

  # ---- the README's grants reach no counter, by name or by oid --------
  # Review finding 3 (1.3): with USAGE on every sequence, nextval on the
  # binding and run-start sequences forced moves and closed the window's
  # run; and (1.4) raw nextval on the counters burnt draws every role
  # shares. Since 1.5 no role but the owner holds anything on the
  # sequences, and none can name them (the private schema).
  seqs="SELECT c.oid FROM pg_class c WHERE c.relnamespace = 'ids_private'::regnamespace AND c.relkind = 'S' ORDER BY c.relname"
  values="SELECT md5(string_agg(coalesce(pg_sequence_last_value(c.oid), -1)::text, ' ' ORDER BY c.relname)) || ' ' || count(*)
          FROM pg_class c WHERE c.relnamespace = 'ids_private'::regnamespace AND c.relkind = 'S'"
  before=$(as dba -c "$values")
  refused=0
  for oid in $(as dba -c "$seqs"); do
    name=$(as dba -c "SELECT relname FROM pg_class WHERE oid = $oid")
    out=$(as mallory -c "SELECT nextval('ids_private.$name')" 2>&1) && fail "mallory drew from $name by name"
    grep -q "permission denied for schema ids_private" <<<"$out" || fail "nextval on $name by name: $out"
    for call in "nextval($oid)" "setval($oid, 1)" "currval($oid)"; do
      out=$(as mallory -c "SELECT $call" 2>&1) && fail "mallory could: $call ($name)"
      grep -q "permission denied for sequence $name" <<<"$out" || fail "$call ($name): $out"
    done
    refused=$((refused + 1))
  done
  [ "$refused" = 72 ] || fail "$refused sequences tried, not 72"
  after=$(as dba -c "$values")
  out=$(as dba -c "SELECT ids.locality_uuid_node(ids.locality_uuid(true))" 2>&1)
  [ "$before" = "$after" ] && [ "$out" = 4242 ] || fail "the counters changed ($before / $after) or an id warned: $out"
  echo "ok: with the README's grants, mallory can neither name the 72 sequences (42501 on schema ids_private) nor nextval, setval or currval them by oid (42501): unchanged, and another session makes ids without a WARNING"

  # ---- the session's cache: set only by the edition's own functions ----
  # Review finding 8: locality_uuid_sql.window_base and home_checked were
  # settings a session (or a pooled connection's previous client) could
  # set; the cache is now the session's currval of locality_uuid_session.
  # An id's place is 1 + the run start (below 2^24) + the ids drawn before
  # it in its window (far fewer than 2^20 here); the forged base lies 2^31
  # from the window's, so an id counted from it would lie 2^31 off.
  w=$(as dba -c "SELECT floor(extract(epoch FROM clock_timestamp()) / 600)::int8")
  forged=$(as dba -c "SELECT ($w::int8 << 32) | ((ids.locality_uuid_window_base($w) + 2147483648) % 4294967296)")
  got=$(as mallory -c "SET locality_uuid_sql.window_base = '$forged'" -c "SET locality_uuid_sql.home_checked = 'on'" \
          -c "SELECT (ids.locality_uuid_counter(id, true)
                      - ids.locality_uuid_window_base(floor(extract(epoch FROM ids.locality_uuid_timestamp(id)) / 600)::int8)
                      + 4294967296) % 4294967296 BETWEEN 1 AND 16777216 + 1048576
              FROM (SELECT ids.locality_uuid(true) AS id) x" 2>&1)
  [ "$got" = t ] || fail "the old settings, forged, changed the counter rule: $got"
  out=$(as mallory -c "SET locality_uuid_sql.session_ids = 'on'" -c "SELECT ids.locality_uuid(true)" 2>&1) && fail "a forged hint made an id: $out"
  grep -q 'currval of sequence "locality_uuid_session" is not yet defined in this session' <<<"$out" || fail "a forged hint: $out"
  out=$(as mallory -c "SET locality_uuid_sql.session_ids = 'on'" -c "SELECT ids.hot_guid(1)" 2>&1) && fail "a forged hint made a Hot Guid: $out"
  got=$(as mallory -c "SELECT ids.locality_uuid_remember_base($w) = ($w::int8 << 32) | ids.locality_uuid_window_base($w)")
  [ "$got" = t ] || fail "remember_base: $got"
  echo "ok: the session's window base and its binding check cannot be forged: the old settings change nothing, a hint set by hand fails the id (55000, currval not defined), and the owner's function sets only the window's own base"
  # A window that would alias another (w + 2^32 wraps onto w) is refused.
  out=$(as mallory -c "SELECT ids.locality_uuid_remember_base($w + 4294967296)" 2>&1) && fail "remember_base took an aliased window: $out"
  grep -q "no 10-minute window $((w + 4294967296)) in 48-bit milliseconds" <<<"$out" || fail "remember_base, aliased window: $out"
  echo "ok: remember_base refuses a window beyond 48-bit milliseconds (22003), which would alias another's base"

  # ---- a pooled connection's reset (review of 1.3's tenant-proofing) ----
  # DISCARD ALL (PgBouncer, pgpool-II, Npgsql when a connection is reused)
  # clears currval and resets the hint to '': the next id binds again.
  # DISCARD SEQUENCES alone keeps the hint: RESET clears it (the runbook's
  # remedy).
  out=$(as dba -c "SELECT ids.locality_uuid(true) IS NOT NULL, ids.hot_guid(1) IS NOT NULL" -c "DISCARD ALL" \
          -c "SELECT ids.locality_uuid(true) IS NOT NULL, ids.locality_uuid(false) IS NOT NULL, ids.hot_guid(1) IS NOT NULL,
                     ids.locality_uuid_at(now(), true) IS NOT NULL" 2>&1) || fail "ids after DISCARD ALL: $out"
  [ "$out" = "t|t
t|t|t|t" ] || fail "ids after DISCARD ALL: $out"
  out=$(as dba -c "SELECT ids.locality_uuid(true) IS NOT NULL" -c "DISCARD SEQUENCES" -c "RESET locality_uuid_sql.session_ids" \
          -c "SELECT ids.locality_uuid(true) IS NOT NULL, ids.hot_guid(1) IS NOT NULL" 2>&1) || fail "ids after DISCARD SEQUENCES and RESET: $out"
  [ "$out" = "t
t|t" ] || fail "ids after DISCARD SEQUENCES and RESET: $out"
  echo "ok: after DISCARD ALL every kind of id is made at once; after DISCARD SEQUENCES, once the hint is RESET"
}
export -f run
with_cluster -- bash -c run
echo "the SQL edition computes the same under a tenant's search_path on PostgreSQL $PG_MAJOR"
