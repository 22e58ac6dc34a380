-- Every bad input we can think of against every function: the exact
-- SQLSTATE and message, or the NULL / value it gives; for data errors
-- (class 22, the ones this extension raises) also the DETAIL and HINT.
-- Name-resolution errors (class 42) are PostgreSQL's own, whose DETAIL and
-- HINT wording changes between majors. Times in messages print in UTC
-- (pg_regress's default zone has local mean time offsets before 1883,
-- which tzdata versions print differently).
SET TimeZone = 'UTC';
CREATE FUNCTION pg_temp.outcome(call text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE result text; detail text; hint text;
BEGIN
  IF call LIKE 'SET %' THEN
    EXECUTE call;
    RETURN 'ok';
  END IF;
  EXECUTE call INTO result;
  RETURN coalesce(result, 'NULL');
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
  IF left(SQLSTATE, 2) <> '22' THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
  END IF;
  RETURN SQLSTATE || ': ' || SQLERRM || coalesce(E'\n  DETAIL: ' || nullif(detail, ''), '')
         || coalesce(E'\n  HINT: ' || nullif(hint, ''), '');
END $$;

SELECT call, pg_temp.outcome(call) AS outcome FROM (VALUES
  -- Locality ids for a given time: 48-bit milliseconds from 1970-01-01 00:00:00 UTC
  -- to 10889-08-02 05:31:50.655 UTC.
  ($$SELECT locality_uuid('infinity'::timestamptz)$$),
  ($$SELECT locality_uuid('-infinity'::timestamptz)$$),
  ($$SELECT locality_uuid('1969-12-31 23:59:59.999999+00'::timestamptz)$$),
  ($$SELECT locality_uuid('10889-08-02 05:31:50.656+00'::timestamptz)$$),
  ($$SELECT locality_uuid('infinity'::timestamptz, true)$$),
  ($$SELECT locality_uuid('1960-01-01+00'::timestamptz, false)$$),
  ($$SELECT locality_uuid('294276-12-31 23:59:59+00'::timestamptz, true)$$),
  ($$SELECT locality_uuid('4713-01-01 00:00:00+00 BC'::timestamptz, true)$$),
  ($$SELECT 1 FROM (SELECT locality_uuid('294276-12-31 23:59:59.999999+00'::timestamptz)) s$$),
  ($$SELECT locality_uuid_timestamp(locality_uuid('10889-08-02 05:31:50.655999+00'::timestamptz)) AT TIME ZONE 'UTC'$$),
  ($$SELECT locality_uuid_timestamp(locality_uuid('1970-01-01 00:00:00+00'::timestamptz, true)) AT TIME ZONE 'UTC'$$),
  ($$SELECT locality_uuid(NULL::timestamptz)$$),
  ($$SELECT locality_uuid(NULL::boolean)$$),
  ($$SELECT locality_uuid(NULL::timestamptz, true)$$),
  ($$SELECT locality_uuid(now(), NULL)$$),
  ($$SELECT locality_uuid(NULL)$$),
  ($$SELECT locality_uuid('yesterday')$$),
  ($$SELECT locality_uuid_at('infinity')$$),
  ($$SELECT locality_uuid_at('1969-12-31 23:59:59.999+00', true)$$),
  ($$SELECT locality_uuid_at(NULL)$$),
  ($$SELECT locality_uuid_at('2024-01-01', NULL)$$),
  -- Hot Guids: unsigned 32-bit shard key, whole seconds 1970-01-01 00:00:00
  -- to 2106-02-07 06:28:15 UTC.
  ($$SELECT hot_guid(-1)$$),
  ($$SELECT hot_guid(4294967296)$$),
  ($$SELECT hot_guid(-9223372036854775808, now())$$),
  ($$SELECT hot_guid(0, 'infinity')$$),
  ($$SELECT hot_guid(0, '-infinity')$$),
  ($$SELECT hot_guid(0, '1969-12-31 23:59:59.999999+00')$$),
  ($$SELECT hot_guid(0, '2106-02-07 06:28:16+00')$$),
  ($$SELECT hot_guid_timestamp(hot_guid(0, '2106-02-07 06:28:15.999999+00')) AT TIME ZONE 'UTC'$$),
  ($$SELECT hot_guid(0, '294276-12-31 23:59:59+00')$$),
  ($$SELECT hot_guid(NULL)$$),
  ($$SELECT hot_guid(1, NULL)$$),
  ($$SELECT hot_guid_shard_key(NULL)$$),
  ($$SELECT hot_guid_shard_key(hot_guid('1'))$$),
  -- form_uuid_v1: clock_seq is 14 bits, time 1582-10-15 .. 5236-03-31 21:21:00.684697 UTC.
  ($$SELECT form_uuid_v1('2020-01-01+00', -1, '44:88:99:36:57:32')$$),
  ($$SELECT form_uuid_v1('2020-01-01+00', 16384, '44:88:99:36:57:32')$$),
  ($$SELECT form_uuid_v1('2020-01-01+00', 2147483647, '44:88:99:36:57:32')$$),
  ($$SELECT form_uuid_v1('2020-01-01+00', -2147483648, '44:88:99:36:57:32')$$),
  ($$SELECT form_uuid_v1('2020-01-01+00', 2147483648, '44:88:99:36:57:32')$$),
  ($$SELECT form_uuid_v1('infinity', 0, '44:88:99:36:57:32')$$),
  ($$SELECT form_uuid_v1('-infinity', 0, '44:88:99:36:57:32')$$),
  ($$SELECT form_uuid_v1('4713-01-01 00:00:00+00 BC', 0, '44:88:99:36:57:32')$$),
  ($$SELECT form_uuid_v1('1582-10-14 23:59:59.999999+00', 0, '44:88:99:36:57:32')$$),
  ($$SELECT form_uuid_v1('5236-03-31 21:21:00.684698+00', 0, '44:88:99:36:57:32')$$),
  ($$SELECT form_uuid_v1('294276-12-31 23:59:59.999999+00', 0, '44:88:99:36:57:32')$$),
  ($$SELECT form_uuid_v1('2020-01-01+00', 0, 'not a mac')$$),
  ($$SELECT form_uuid_v1('2020-01-01+00', 0, '44:88:99:36:57:32:01:02')$$),
  ($$SELECT form_uuid_v1(NULL, 0, '44:88:99:36:57:32')$$),
  ($$SELECT form_uuid_v1('2020-01-01+00', NULL, '44:88:99:36:57:32')$$),
  ($$SELECT form_uuid_v1('2020-01-01+00', 0, NULL)$$),
  -- form_uuid_v1_nth: ordinals 0 .. 163839 per microsecond and MAC.
  ($$SELECT form_uuid_v1_nth('2020-01-01+00', -1, '44:88:99:36:57:32')$$),
  ($$SELECT form_uuid_v1_nth('2020-01-01+00', 163840, '44:88:99:36:57:32')$$),
  ($$SELECT form_uuid_v1_nth('2020-01-01+00', 9223372036854775807, '44:88:99:36:57:32')$$),
  ($$SELECT form_uuid_v1_nth('2020-01-01+00', -9223372036854775808, '44:88:99:36:57:32')$$),
  ($$SELECT form_uuid_v1_nth('infinity', 0, '44:88:99:36:57:32')$$),
  ($$SELECT form_uuid_v1_nth('1582-10-14 23:59:59.999999+00', 0, '44:88:99:36:57:32')$$),
  ($$SELECT form_uuid_v1_nth('5236-03-31 21:21:00.684697+00', 6 * 16384, '44:88:99:36:57:32')$$),
  ($$SELECT form_uuid_v1_nth('5236-03-31 21:21:00.684697+00', 5 * 16384, '44:88:99:36:57:32')$$),
  ($$SELECT form_uuid_v1_nth(NULL, 0, '44:88:99:36:57:32')$$),
  ($$SELECT form_uuid_v1_nth('2020-01-01+00', NULL, '44:88:99:36:57:32')$$),
  -- Malformed uuids never reach the extension: the uuid type refuses them.
  ($$SELECT locality_uuid_counter('20be0ffc-314a-bd53-7a50-013a65ca76d')$$),
  ($$SELECT locality_uuid_timestamp('20be0ffc-314a-bd53-7a50-013a65ca76d2x')$$),
  ($$SELECT uuid_v1_timestamp('not-a-uuid')$$),
  ($$SELECT uuid_v1_node('')$$),
  -- Extractors on NULL.
  ($$SELECT locality_uuid_counter(NULL, true)$$),
  ($$SELECT locality_uuid_counter('20be0ffc-314a-bd53-7a50-013a65ca76d2', NULL)$$),
  ($$SELECT locality_uuid_version(NULL)$$),
  ($$SELECT uuid_v1_clock_seq(NULL)$$),
  -- Settings: wrong types and ranges (the setting keeps its value).
  ($$SET locality_uuid.sequential = 'sometimes'$$),
  ($$SET locality_uuid.sequential = 2$$),
  ($$SET locality_uuid.sequential = ''$$),
  -- node_id and machine_name belong to the server: not settable in a session.
  ($$SET locality_uuid.node_id = 5$$),
  ($$SET locality_uuid.machine_name = 'web01'$$),
  ($$SELECT current_setting('locality_uuid.sequential') || ' ' || current_setting('locality_uuid.node_id')$$)
) v(call);

-- The server's configuration refuses node ids out of range (ALTER SYSTEM
-- checks the value before writing postgresql.auto.conf).
ALTER SYSTEM SET locality_uuid.node_id = -2;
ALTER SYSTEM SET locality_uuid.node_id = 268435456;
ALTER SYSTEM SET locality_uuid.node_id = 'abc';

-- Nil, max and foreign uuids: NULL from every extractor.
SELECT u, locality_uuid_version(u) AS version,
       num_nulls(locality_uuid_timestamp(u), locality_uuid_pid(u), locality_uuid_mac(u),
                 locality_uuid_node(u), locality_uuid_counter(u), locality_uuid_counter(u, true))
           AS locality_nulls,
       num_nulls(uuid_v1_timestamp(u), uuid_v1_clock_seq(u), uuid_v1_node(u)) AS v1_nulls
FROM (VALUES ('00000000-0000-0000-0000-000000000000'::uuid),
             ('ffffffff-ffff-ffff-ffff-ffffffffffff'),
             ('8d6d1986-5ab8-41eb-8e9f-3ae007836a71'),
             ('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'),
             ('20be0ffc-314a-bd53-7a50-013a65ca76d2'),
             ('6b54058a-a413-11e6-b501-a0999b048337')) v(u);

