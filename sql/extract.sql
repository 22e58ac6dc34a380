-- Extractors over stored columns, in expression indexes and filters.
CREATE TABLE events (id uuid PRIMARY KEY, note text);
INSERT INTO events
SELECT locality_uuid('2024-01-01 00:00:00+00'::timestamptz + g * interval '1 second'), 'e' || g
FROM generate_series(1, 20000) g;
INSERT INTO events VALUES ('8d6d1986-5ab8-41eb-8e9f-3ae007836a71', 'not a locality id');

-- The fields of every stored id.
SELECT count(*) AS rows,
       count(locality_uuid_timestamp(id)) AS with_time,
       min(locality_uuid_timestamp(id)) AT TIME ZONE 'UTC' AS first,
       max(locality_uuid_timestamp(id)) AT TIME ZONE 'UTC' AS last,
       count(DISTINCT locality_uuid_pid(id)) AS pids,
       count(DISTINCT locality_uuid_mac(id)) AS macs,
       count(DISTINCT locality_uuid_counter(id)) AS counters
FROM events;

-- An expression index on the embedded time answers range queries.
CREATE INDEX events_created ON events (locality_uuid_timestamp(id));
ANALYZE events;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM events
WHERE locality_uuid_timestamp(id) >= '2024-01-01 01:00:00+00'
  AND locality_uuid_timestamp(id) <  '2024-01-01 02:00:00+00';
SELECT count(*) FROM events
WHERE locality_uuid_timestamp(id) >= '2024-01-01 01:00:00+00'
  AND locality_uuid_timestamp(id) <  '2024-01-01 02:00:00+00';
RESET enable_seqscan;

-- Extractors run in parallel workers too.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET min_parallel_index_scan_size = 0;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM events WHERE locality_uuid_pid(id) = 1 OR locality_uuid_counter(id) = 1;
RESET ALL;
DROP TABLE events;
