-- Hot Guids: the .NET layout read back from the worked examples, new ids
-- carrying this server's machine bytes, this backend's pid and the time,
-- ordering by second, uniqueness, and the ways DBAs make them.

-- The worked examples: machine "web01", pid 0xABCD, counters 123456 and
-- 123457, 2022-02-06T00:00:00Z, shard keys 208 and 0xDEADBEEF.
SELECT id, hot_guid_shard_key(id) AS shard_key, hot_guid_timestamp(id) AT TIME ZONE 'UTC' AS utc,
       hot_guid_counter(id) AS counter, to_hex(hot_guid_pid(id)) AS pid,
       hot_guid_machine(id) AS machine, hot_guid_machine(id) = left(md5('web01'), 6) AS md5_of_web01
FROM (VALUES ('61ff0f80-522f-ab76-cd01-e240d0000000'::uuid),
             ('61ff0f80-522f-ab76-cd01-e241efbeadde')) v(id);

-- Any uuid decodes (there is no version marker), as in the original.
SELECT hot_guid_shard_key(u) AS shard_key, hot_guid_counter(u) AS counter,
       hot_guid_timestamp(u) AT TIME ZONE 'UTC' AS utc
FROM (VALUES ('00000000-0000-0000-0000-000000000000'::uuid),
             ('ffffffff-ffff-ffff-ffff-ffffffffffff')) v(u);

-- This server's machine bytes are the first three of MD5(machine name).
SELECT hot_guid_machine_id() = left(md5(hot_guid_machine_name()), 6) AS machine_id_is_md5_of_name,
       hot_guid_machine_name() <> '' AS has_name;

-- New ids carry the shard key, the machine bytes, this backend's pid and
-- the clock's second (not the transaction start).
BEGIN;
SELECT pg_sleep(1.1);
CREATE TEMP TABLE fresh AS
SELECT clock_timestamp() AS before, hot_guid(208) AS a, hot_guid(4294967295) AS b, hot_guid(0) AS c,
       clock_timestamp() AS after
FROM generate_series(1, 1000);
SELECT bool_and(hot_guid_shard_key(a) = 208 AND hot_guid_shard_key(b) = 4294967295
                AND hot_guid_shard_key(c) = 0) AS keys_ok,
       bool_and(hot_guid_pid(a) = pg_backend_pid() % 65536) AS pid_ok,
       bool_and(hot_guid_machine(a) = hot_guid_machine_id()) AS machine_ok,
       bool_and(hot_guid_timestamp(a) BETWEEN date_trunc('second', before) AND after) AS clock_second,
       bool_and(hot_guid_timestamp(a) > date_trunc('second', now())) AS not_transaction_start
FROM fresh;
COMMIT;

-- Ids of one second take consecutive counters (mod 2^24).
SELECT count(*) FILTER (WHERE (hot_guid_counter(id) - hot_guid_counter(prev) + 16777216) % 16777216 <> 1)
           AS not_consecutive
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev
      FROM (SELECT n, hot_guid(7, '2024-01-01 00:00:00+00') AS id FROM generate_series(1, 10000) n) s) t
WHERE prev IS NOT NULL;

-- For a given time: whole seconds, truncated toward the past, over the
-- whole unsigned 32-bit range.
SELECT hot_guid_timestamp(hot_guid(1, t)) AT TIME ZONE 'UTC' AS utc,
       hot_guid_shard_key(hot_guid(4294967295, t)) AS max_key
FROM (VALUES ('1970-01-01 00:00:00+00'::timestamptz), ('2022-02-06 00:00:00.999999+00'),
             ('2038-01-19 03:14:08+00'), ('2106-02-07 06:28:15.5+00')) v(t);

-- Ids of a later second sort after every id of an earlier one, whatever
-- the shard key.
SELECT hot_guid(4294967295, '2024-01-01 00:00:00+00') < hot_guid(0, '2024-01-01 00:00:01+00') AS later_sorts_after,
       hot_guid(0, '2023-12-31 23:59:59+00') < hot_guid(0, '2024-01-01 00:00:00+00') AS across_midnight;

-- Unique: 200k ids over 16 keys, made now and for one given second.
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids
FROM (SELECT hot_guid(g % 16) AS id FROM generate_series(1, 200000) g) s;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids
FROM (SELECT hot_guid(g % 16, '2024-06-01 12:00:00+00') AS id FROM generate_series(1, 200000) g) s;

-- DEFAULT on a primary key, with the shard key from another column, and an
-- UPDATE backfill that keeps each row's business second.
CREATE TABLE tenant_orders (id uuid PRIMARY KEY, tenant_id bigint NOT NULL, created_at timestamptz);
INSERT INTO tenant_orders
SELECT hot_guid(g % 5, '2024-01-01 00:00:00+00'::timestamptz + (g % 50) * interval '1 s'), g % 5,
       '2024-01-01 00:00:00+00'::timestamptz + (g % 50) * interval '1 s'
FROM generate_series(1, 20000) g;
SELECT count(*) FILTER (WHERE hot_guid_shard_key(id) = tenant_id AND hot_guid_timestamp(id) = created_at)
           AS rows_ok,
       count(DISTINCT hot_guid_shard_key(id)) AS shards
FROM tenant_orders;
UPDATE tenant_orders SET id = hot_guid(tenant_id + 100, created_at);
SELECT count(DISTINCT id) AS distinct_after_backfill,
       bool_and(hot_guid_shard_key(id) = tenant_id + 100) AS keys_ok
FROM tenant_orders;
CREATE TABLE events (id uuid PRIMARY KEY DEFAULT hot_guid(42), what text);
INSERT INTO events (what) VALUES ('a'), ('b');
SELECT count(*) AS rows, bool_and(hot_guid_shard_key(id) = 42) AS key_42 FROM events;
DROP TABLE tenant_orders, events;

-- Time ranges as key ranges: hot_guid_lower(ts) is ts rounded up to its
-- second, big-endian in the first four bytes, the rest zero.
SELECT hot_guid_lower('2022-02-06 00:00:00+00') AS whole_second,
       hot_guid_lower('2022-02-06 00:00:00.000001+00') AS rounded_up,
       hot_guid_lower('2022-02-05 23:59:59.999999+00') AS just_before,
       hot_guid_lower('1970-01-01 00:00:00+00') AS epoch,
       hot_guid_lower('1960-01-01 00:00:00+00') AS before_epoch,
       hot_guid_lower('-infinity') AS minus_infinity,
       hot_guid_lower('2106-02-07 06:28:15+00') AS last_second;
SELECT hot_guid_lower('2106-02-07 06:28:15.000001+00');
SELECT hot_guid_lower('infinity');
-- Exactly the ids of [a, b), whatever their shard key, counter and machine:
-- 30,000 ids over 3,000 seconds with fractional bounds.
CREATE TABLE hot_range (id uuid PRIMARY KEY);
INSERT INTO hot_range
SELECT hot_guid((g * 2654435761) % 4294967296, '2024-01-01 00:00:00+00'::timestamptz + (g % 3000) * interval '1 s')
FROM generate_series(1, 30000) g;
SELECT count(*) AS by_key,
       (SELECT count(*) FROM hot_range
        WHERE hot_guid_timestamp(id) >= '2024-01-01 00:10:00.5+00'
          AND hot_guid_timestamp(id) < '2024-01-01 00:20:00.5+00') AS by_time
FROM hot_range
WHERE id >= hot_guid_lower('2024-01-01 00:10:00.5+00') AND id < hot_guid_lower('2024-01-01 00:20:00.5+00');
-- A range scan of the primary key (an index or a bitmap scan, as the planner
-- likes, whose index condition is the range of the two constant bounds).
ANALYZE hot_range;
CREATE FUNCTION plan_of(query text) RETURNS SETOF text LANGUAGE plpgsql AS
$$ BEGIN RETURN QUERY EXECUTE 'EXPLAIN (COSTS OFF) ' || query; END $$;
SELECT count(*) FILTER (WHERE line ~ 'Index (Only )?Scan|Bitmap Index Scan') AS index_scans,
       count(*) FILTER (WHERE line LIKE '%Index Cond: ((id >= ''659202d8-0000-0000-0000-000000000000''::uuid) AND (id < ''65920314-0000-0000-0000-000000000000''::uuid))') AS key_range
FROM plan_of($$SELECT * FROM hot_range WHERE id >= hot_guid_lower('2024-01-01 00:10:00+00')
                                        AND id < hot_guid_lower('2024-01-01 00:11:00+00')$$) AS p(line);
DROP FUNCTION plan_of(text);
DROP TABLE hot_range;

-- The functions, their volatility and comments.
SELECT p.oid::regprocedure AS function, p.provolatile AS volatility, p.proparallel AS parallel,
       p.proisstrict AS strict, obj_description(p.oid, 'pg_proc') AS comment
FROM pg_proc p
WHERE p.proname LIKE 'hot\_guid%'
ORDER BY 1::text;
