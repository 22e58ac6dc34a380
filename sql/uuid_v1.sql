-- RFC 4122 version 1 for given times: exact bytes, exact round trip,
-- clear errors.

-- The seed functions users know (PL/pgSQL and SQL), under other names, to
-- compare against (pg_regress runs from the repository root); the forming
-- function is compared in uuid_v1_seed.
\i test/reference/seed_uuid_v1.sql

-- The seed's usage example and known vectors (also checked against
-- Python's uuid.UUID(fields=...) by test/integration/v1_python_crosscheck.sh).
SELECT form_uuid_v1('2016-11-08 12:38:20.617218+00', 666, '44:88:99:36:57:32') AS v1;
SELECT t AT TIME ZONE 'UTC' AS utc, form_uuid_v1(t, 0, '00:00:00:00:00:00') AS v1
FROM (VALUES ('1582-10-15 00:00:00+00'::timestamptz), ('1970-01-01 00:00:00+00'),
             ('2000-01-01 00:00:00+00'), ('2038-01-19 03:14:08+00'),
             ('5236-03-31 21:21:00.684697+00')) v(t);
SELECT form_uuid_v1('2024-02-29 23:59:59.999999+00', 16383, 'ff:ff:ff:ff:ff:ff') AS max_fields,
       form_uuid_v1('2024-02-29 23:59:59.999999+00', 0, '01:02:03:04:05:06') AS min_clock_seq;

-- Reading back: exact to the microsecond; the seed's double precision is not.
SELECT uuid_v1_timestamp(u) AT TIME ZONE 'UTC' AS ours,
       uuid_v1_clock_seq(u) AS clock_seq, uuid_v1_node(u) AS node
FROM (VALUES (form_uuid_v1('2016-11-08 12:38:20.617219+00', 666, '44:88:99:36:57:32'))) v(u);
SELECT count(*) AS times,
       count(*) FILTER (WHERE uuid_v1_timestamp(form_uuid_v1(t, 0, '44:88:99:36:57:32')) <> t) AS ours_wrong,
       count(*) FILTER (WHERE seed_uuid_v1_timestamp(form_uuid_v1(t, 0, '44:88:99:36:57:32')) <> t)
           AS seed_wrong
FROM (SELECT '2016-11-08 12:38:20+00'::timestamptz + g * interval '0.000001 seconds' AS t
      FROM generate_series(0, 9999) g) s;
SELECT uuid_v1_timestamp('6b54058a-a413-11e6-b501-a0999b048337') AT TIME ZONE 'UTC' AS utc,
       uuid_v1_clock_seq('6b54058a-a413-11e6-b501-a0999b048337') AS clock_seq,
       uuid_v1_node('6b54058a-a413-11e6-b501-a0999b048337') AS node;

-- Ticks below a microsecond are truncated toward the past.
SELECT uuid_v1_timestamp('13814009-1dd2-11b2-8000-000000000000') AT TIME ZONE 'UTC' AS plus_9_ticks,
       uuid_v1_timestamp('13813fff-1dd2-11b2-8000-000000000000') AT TIME ZONE 'UTC' AS minus_1_tick;

-- Round trip for every sampled microsecond across the whole range, with
-- each clock_seq and node coming back too. The times are stepped by
-- generate_series, integer arithmetic only: g * interval is floating point,
-- and under qemu-i386 (bookworm's 7.2) a signal can spoil the x87 state:
-- a CI run saw 1 mismatch of 119,814 there, and a storm of signals to
-- this query made "interval out of range" (none with the times stepped).
-- In UTC, so no DST shift moves the count.
BEGIN;
SET LOCAL timezone = 'UTC';
SELECT count(*) AS checked,
       count(*) FILTER (WHERE uuid_v1_timestamp(form_uuid_v1(t, cs, m)) <> t
                           OR uuid_v1_clock_seq(form_uuid_v1(t, cs, m)) <> cs
                           OR uuid_v1_node(form_uuid_v1(t, cs, m)) <> m) AS mismatches
FROM (SELECT t, (g % 16384)::integer AS cs,
             ('02:00:' || lpad(to_hex(g % 256), 2, '0') || ':00:00:' || lpad(to_hex(g % 199), 2, '0'))::macaddr AS m
      FROM generate_series('1582-10-15 00:00:00+00'::timestamptz, '5236-03-31 21:21:00.684697+00',
                           interval '11 days 3:17:47.123457') WITH ORDINALITY AS s(t, g)) s;
COMMIT;

-- Not version 1 with the RFC variant: NULL.
SELECT id, uuid_v1_timestamp(id) IS NULL AS ts_null, uuid_v1_clock_seq(id) IS NULL AS cs_null,
       uuid_v1_node(id) IS NULL AS node_null
FROM (VALUES ('20be0ffc-314a-bd53-7a50-013a65ca76d2'::uuid),
             ('8d6d1986-5ab8-41eb-8e9f-3ae007836a71'),
             ('00000000-0000-0000-0000-000000000000'),
             ('6b54058a-a413-11e6-c501-a0999b048337'),   -- version 1, Microsoft variant
             ('6b54058a-a413-11e6-3501-a0999b048337'))   -- version 1, NCS variant
     v(id);
SELECT uuid_v1_timestamp(NULL) IS NULL AS a, uuid_v1_clock_seq(NULL) IS NULL AS b,
       uuid_v1_node(NULL) IS NULL AS c, form_uuid_v1(NULL, 1, '44:88:99:36:57:32') IS NULL AS d,
       form_uuid_v1(now(), NULL, '44:88:99:36:57:32') IS NULL AS e, form_uuid_v1(now(), 1, NULL) IS NULL AS f;

-- Errors: each bad input, with its SQLSTATE.
\set VERBOSITY sqlstate
SELECT form_uuid_v1('2020-01-01+00', -1, '44:88:99:36:57:32');
SELECT form_uuid_v1('2020-01-01+00', 16384, '44:88:99:36:57:32');
SELECT form_uuid_v1('infinity', 0, '44:88:99:36:57:32');
SELECT form_uuid_v1('-infinity', 0, '44:88:99:36:57:32');
SELECT form_uuid_v1('1582-10-14 23:59:59.999999+00', 0, '44:88:99:36:57:32');
SELECT form_uuid_v1('5236-03-31 21:21:00.684698+00', 0, '44:88:99:36:57:32');
\set VERBOSITY default
SELECT form_uuid_v1('2020-01-01+00', 2147483647, '44:88:99:36:57:32');
SELECT form_uuid_v1('infinity', 0, '44:88:99:36:57:32');
SELECT form_uuid_v1('1582-10-14 23:59:59.999999+00', 0, '44:88:99:36:57:32');
SELECT form_uuid_v1('294276-12-31 23:59:59+00', 0, '44:88:99:36:57:32');
DROP FUNCTION seed_form_uuid_v1(timestamptz, integer, macaddr), seed_uuid_v1_timestamp(uuid);
