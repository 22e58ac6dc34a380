-- The Locality UUID layout, read back field by field from the reference
-- examples of the original library.

-- 20be0ffc-314a-bd53-7a50-013a65ca76d2:
--   counter 3,488,672,514  pid 12,618  MAC __:__:_d:53:7a:50
--   timestamp 1,350,327,498,450 (Mon, 15 Oct 2012 18:58:18.450 UTC)
SELECT locality_uuid_counter(id)                         AS counter,
       locality_uuid_pid(id)                             AS pid,
       locality_uuid_mac(id)                             AS mac,
       locality_uuid_node(id)                            AS node,
       locality_uuid_timestamp(id) AT TIME ZONE 'UTC'    AS utc,
       (extract(epoch FROM locality_uuid_timestamp(id)) * 1000)::bigint AS millis,
       locality_uuid_version(id)                         AS version
FROM (VALUES ('20be0ffc-314a-bd53-7a50-013a65ca76d2'::uuid)) v(id);

-- The counter's hex digits read backwards are the id's first 8 hex digits.
SELECT to_hex(locality_uuid_counter('20be0ffc-314a-bd53-7a50-013a65ca76d2')) AS counter_hex;

-- Sequential-mode reference ids: the counter is written as is.
SELECT id, to_hex(locality_uuid_counter(id, sequential => true)) AS counter_hex,
       locality_uuid_counter(id, true) AS counter,
       locality_uuid_pid(id) AS pid,
       locality_uuid_timestamp(id) AT TIME ZONE 'UTC' AS utc
FROM (VALUES ('f5166777-7a7f-bd53-7a50-013e4e2afc26'::uuid),
             ('f5166778-7a7f-bd53-7a50-013e4e2afc26'::uuid),
             ('f516677e-7a7f-bd53-7a50-013e4e2afc26'::uuid)) v(id);

-- Variable-mode reference ids made one after another by one process (the
-- original README's list, made by the Java library).  Its nibble reversal
-- sign-extends: with counter bit 31 set, (count & 0xF0000000) >> 28 is
-- negative and forces hex digit 7 of the id to 'f', so such ids decode to
-- counter | 0x0F000000 (README, "Compatibility").  With that digit restored
-- to one of its possible values, a start counter advanced by the prime
-- 198491317 per id gives all eight samples exactly.
CREATE TEMP TABLE java_samples AS
SELECT n, id, locality_uuid_counter(id) AS counter
FROM (VALUES (1, 'c8c9cef9-7a7f-bd53-7a50-013e4e2afbde'::uuid),
             (2, '14951cfa-7a7f-bd53-7a50-013e4e2afbde'),
             (3, '6f5169fb-7a7f-bd53-7a50-013e4e2afbde'),
             (4, 'ba2da6fc-7a7f-bd53-7a50-013e4e2afbde'),
             (5, '06f8f3fc-7a7f-bd53-7a50-013e4e2afbde'),
             (6, '51c441fd-7a7f-bd53-7a50-013e4e2afbde'),
             (7, 'ac809efe-7a7f-bd53-7a50-013e4e2afbde'),
             (8, 'f75cdbff-7a7f-bd53-7a50-013e4e2afbde')) v(n, id);
SELECT n, id, to_hex(counter) AS counter_hex FROM java_samples ORDER BY n;
-- 4043309055 = 0xF0FFFFFF, 251658240 = 0x0F000000.
SELECT to_hex(start) AS start_counter, count(*) AS samples_matched
FROM (SELECT ((SELECT counter FROM java_samples WHERE n = 1) & 4043309055) | (k << 24) AS start
      FROM generate_series(0, 15) k) s,
     LATERAL (SELECT (start + (n - 1) * 198491317) % 4294967296 AS c, counter FROM java_samples) j
WHERE CASE WHEN c >= 2147483648 THEN c | 251658240 ELSE c END = counter
GROUP BY start HAVING count(*) = 8
ORDER BY start;

-- Extremes of every field.
SELECT locality_uuid_counter(id) AS counter, locality_uuid_counter(id, true) AS seq_counter,
       locality_uuid_pid(id) AS pid, locality_uuid_mac(id) AS mac, locality_uuid_node(id) AS node,
       locality_uuid_timestamp(id) AT TIME ZONE 'UTC' AS utc
FROM (VALUES ('00000000-0000-b000-0000-000000000000'::uuid),
             ('ffffffff-ffff-bfff-ffff-ffffffffffff'::uuid),
             ('10000000-0001-b800-0001-000000000001'::uuid)) v(id);

-- Other versions: the field extractors return NULL, the version is reported.
SELECT id, locality_uuid_version(id) AS version,
       locality_uuid_counter(id) IS NULL AS counter_null,
       locality_uuid_counter(id, true) IS NULL AS seq_counter_null,
       locality_uuid_pid(id) IS NULL AS pid_null,
       locality_uuid_mac(id) IS NULL AS mac_null,
       locality_uuid_node(id) IS NULL AS node_null,
       locality_uuid_timestamp(id) IS NULL AS ts_null
FROM (VALUES ('6b54058a-a413-11e6-b501-a0999b048337'::uuid),
             ('8d6d1986-5ab8-41eb-8e9f-3ae007836a71'::uuid),
             ('00000000-0000-0000-0000-000000000000'::uuid),
             ('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid),
             ('ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid)) v(id);

-- STRICT: NULL in, NULL out.
SELECT locality_uuid_counter(NULL) IS NULL AS a, locality_uuid_counter(NULL, true) IS NULL AS b,
       locality_uuid_counter('20be0ffc-314a-bd53-7a50-013a65ca76d2', NULL) IS NULL AS c,
       locality_uuid_pid(NULL) IS NULL AS d, locality_uuid_mac(NULL) IS NULL AS e,
       locality_uuid_node(NULL) IS NULL AS f, locality_uuid_timestamp(NULL) IS NULL AS g,
       locality_uuid_version(NULL) IS NULL AS h;

-- The catalog says what the planner may do with each function.
SELECT p.oid::regprocedure AS function, p.provolatile AS volatility, p.proparallel AS parallel,
       p.proisstrict AS strict, p.prosecdef AS security_definer
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'locality_uuid'
ORDER BY 1::text;
