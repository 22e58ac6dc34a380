-- Making ids: uniqueness, the fields every new id carries, and the ways
-- DBAs make them (DEFAULT, INSERT ... SELECT, UPDATE backfill).

-- 100k ids in each mode are unique.
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids
FROM (SELECT locality_uuid() AS id FROM generate_series(1, 100000)) s;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids
FROM (SELECT locality_uuid(true) AS id FROM generate_series(1, 100000)) s;

-- Every new id is version b and carries this backend's pid, the node value
-- in use, and the clock time at generation (not the transaction start).
BEGIN;
SELECT pg_sleep(0.05);
CREATE TEMP TABLE fresh AS
SELECT clock_timestamp() AS before, locality_uuid() AS v, locality_uuid(true) AS s,
       clock_timestamp() AS after
FROM generate_series(1, 1000);
SELECT bool_and(locality_uuid_version(v) = 'b' AND locality_uuid_version(s) = 'b') AS version_b,
       bool_and(locality_uuid_pid(v) = pg_backend_pid() % 65536
                AND locality_uuid_pid(s) = pg_backend_pid() % 65536) AS pid_ok,
       bool_and(locality_uuid_node(v) = locality_uuid_node_id()
                AND locality_uuid_node(s) = locality_uuid_node_id()) AS node_ok,
       bool_and(locality_uuid_timestamp(v) BETWEEN date_trunc('milliseconds', before) AND after
                AND locality_uuid_timestamp(s) BETWEEN date_trunc('milliseconds', before) AND after)
           AS clock_time,
       bool_and(locality_uuid_timestamp(v) > now()) AS not_transaction_start
FROM fresh;
COMMIT;

-- Variable mode: consecutive ids differ in their first hex digit, and each
-- counter is the previous plus the prime 198491317, mod 2^32.
WITH ids AS (SELECT n, locality_uuid(false) AS id FROM generate_series(1, 10000) n)
SELECT count(*) FILTER (WHERE left(id::text, 1) = left(prev::text, 1)) AS same_first_digit,
       count(*) FILTER (WHERE (locality_uuid_counter(id) - locality_uuid_counter(prev) + 4294967296)
                              % 4294967296 <> 198491317) AS other_steps
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM ids) s
WHERE prev IS NOT NULL;

-- The first hex digit spreads evenly over the 16 ranges.
SELECT count(*) AS ranges, min(c) >= 6000 AND max(c) <= 6500 AS even
FROM (SELECT left(locality_uuid(false)::text, 1) AS digit, count(*) AS c
      FROM generate_series(1, 100000) GROUP BY 1) s;

-- DEFAULT on a uuid primary key.
CREATE TABLE orders (id uuid PRIMARY KEY DEFAULT locality_uuid(), item text);
INSERT INTO orders (item) VALUES ('trampoline'), ('pizza');
SELECT count(*) AS rows, bool_and(locality_uuid_version(id) = 'b') AS locality_ids FROM orders;

-- INSERT ... SELECT of many rows.
INSERT INTO orders (item) SELECT 'bulk ' || g FROM generate_series(1, 300000) g;
SELECT count(*) AS rows, count(DISTINCT id) AS distinct_ids FROM orders;

-- Two tables' DEFAULTs choose their own mode in one session.
CREATE TABLE spread (id uuid PRIMARY KEY DEFAULT locality_uuid(sequential => false), n int);
CREATE TABLE together (id uuid PRIMARY KEY DEFAULT locality_uuid(sequential => true), n int);
INSERT INTO spread (n) SELECT g FROM generate_series(1, 1000) g;
INSERT INTO together (n) SELECT g FROM generate_series(1, 1000) g;
SELECT (SELECT count(DISTINCT left(id::text, 1)) FROM spread) AS spread_first_digits,
       (SELECT count(DISTINCT left(id::text, 4)) <= 2 FROM together) AS together_shares_prefix;

-- UPDATE backfill of a new key column.
CREATE TABLE legacy (n int, created_at timestamptz);
INSERT INTO legacy SELECT g, '2020-03-01 12:00:00+00'::timestamptz + (g % 100) * interval '1 minute'
FROM generate_series(1, 50000) g;
ALTER TABLE legacy ADD COLUMN id uuid;
UPDATE legacy SET id = locality_uuid();
ALTER TABLE legacy ADD PRIMARY KEY (id);
SELECT count(*) AS rows, count(DISTINCT id) AS distinct_ids FROM legacy;

-- ... or with ids that carry each row's business time (milliseconds).
UPDATE legacy SET id = locality_uuid(created_at);
SELECT count(*) AS rows,
       count(*) FILTER (WHERE locality_uuid_timestamp(id) = created_at) AS time_matches
FROM legacy;
-- A sequential-mode key goes into a column of its own: the id carries no
-- mode bit, so re-keying one column from one mode to the other in place can
-- meet an old id of the other mode (README, Backfills).
ALTER TABLE legacy ADD COLUMN seq_id uuid UNIQUE;
UPDATE legacy SET seq_id = locality_uuid(created_at, sequential => true);
SELECT count(*) AS rows,
       count(*) FILTER (WHERE locality_uuid_timestamp(seq_id) = created_at) AS time_matches,
       count(DISTINCT seq_id) AS distinct_ids
FROM legacy;

-- locality_uuid_at(ts [, sequential]) is the same as locality_uuid(ts
-- [, sequential]) under a name that takes an untyped literal.
SELECT locality_uuid_timestamp(locality_uuid_at('2024-01-01 00:00:00.1239+00')) AT TIME ZONE 'UTC' AS at_literal,
       locality_uuid_version(locality_uuid_at('2024-01-01')) AS version,
       (locality_uuid_counter(locality_uuid_at('2013-04-28 01:04:00+00', true), true)
        - x'f5166775'::bigint + 4294967296) % 4294967296 > 2147483648 AS sequential_upper_half;
UPDATE legacy SET id = locality_uuid_at(created_at);
SELECT count(*) FILTER (WHERE locality_uuid_timestamp(id) = created_at) AS time_matches,
       count(DISTINCT id) AS distinct_ids
FROM legacy;

-- locality_uuid(ts) keeps milliseconds, truncating toward the past.
SELECT locality_uuid_timestamp(locality_uuid(t)) AT TIME ZONE 'UTC' AS utc
FROM (VALUES ('1970-01-01 00:00:00+00'::timestamptz), ('2012-10-15 18:58:18.450999+00'),
             ('2038-01-19 03:14:08+00'), ('10889-08-02 05:31:50.655+00')) v(t);

-- Parallel workers generate too (each with its own pid): with the leader
-- left out, every id of this plan is made in a worker.
CREATE TABLE big AS SELECT g FROM generate_series(1, 200000) g;
ANALYZE big;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT locality_uuid() AS id FROM big;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids,
       bool_and(locality_uuid_pid(id) <> pg_backend_pid() % 65536) AS made_in_workers
FROM (SELECT locality_uuid() AS id FROM big) s;
RESET ALL;
DROP TABLE orders, spread, together, legacy, big;
