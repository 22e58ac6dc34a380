-- Retrospective v1 ids for rows that share timestamps, without collisions.
CREATE TABLE logs (log_no bigint PRIMARY KEY, created_at timestamptz NOT NULL, id uuid);
INSERT INTO logs
SELECT g, '2015-06-01 08:00:00+00'::timestamptz + (g % 100) * interval '1.000001 seconds', NULL
FROM generate_series(1, 100000) g;
SELECT count(*) AS rows, count(DISTINCT created_at) AS timestamps FROM logs;

-- The naive way: a random clock_seq per row collides as the birthday bound
-- predicts for 1000 rows per timestamp in 16384 clock sequences,
-- 100 * (1000 - 16384 * (1 - (1 - 1/16384)^1000)) duplicates.  (random()
-- differs between majors, so the count is checked against the bound.)
SELECT setseed(0.42);
SELECT round(expected) AS expected_duplicates,
       naive BETWEEN 0.9 * expected AND 1.1 * expected AS naive_collides_as_predicted
FROM (SELECT count(*) - count(DISTINCT u) AS naive
      FROM (SELECT form_uuid_v1(created_at, floor(random() * 16384)::int, '44:88:99:36:57:32') AS u
            FROM logs) s) n,
     (SELECT 100 * (1000 - 16384 * (1 - power(1 - 1 / 16384.0, 1000))) AS expected) e;

-- The recipe: number the rows of each timestamp and use that number.
CREATE UNIQUE INDEX logs_id ON logs (id);
UPDATE logs l
SET id = form_uuid_v1_nth(l.created_at, n.ordinal, '44:88:99:36:57:32')
FROM (SELECT log_no, row_number() OVER (PARTITION BY created_at ORDER BY log_no) - 1 AS ordinal
      FROM logs) n
WHERE l.log_no = n.log_no;
SELECT count(*) AS rows, count(id) AS with_id, count(DISTINCT id) AS distinct_ids,
       count(*) FILTER (WHERE uuid_v1_timestamp(id) <> created_at) AS wrong_time,
       count(*) FILTER (WHERE uuid_v1_node(id) <> '44:88:99:36:57:32') AS wrong_node
FROM logs;
-- Below 16384 rows per timestamp it is exactly form_uuid_v1(ts, ordinal, mac).
SELECT count(*) FILTER (WHERE id <> form_uuid_v1(created_at, uuid_v1_clock_seq(id), '44:88:99:36:57:32'))
       AS differs_from_form_uuid_v1
FROM logs;

-- 20000 rows in one microsecond: more than 16384 clock sequences; the
-- ordinal moves on to the next 100-ns tick inside the same microsecond.
CREATE TABLE burst (n int PRIMARY KEY, created_at timestamptz, id uuid UNIQUE);
INSERT INTO burst SELECT g, '2015-06-01 08:00:00.123456+00', NULL FROM generate_series(1, 20000) g;
UPDATE burst b
SET id = form_uuid_v1_nth(b.created_at, r.ordinal, '44:88:99:36:57:32')
FROM (SELECT n, row_number() OVER (PARTITION BY created_at ORDER BY n) - 1 AS ordinal FROM burst) r
WHERE b.n = r.n;
SELECT count(DISTINCT id) AS distinct_ids,
       count(*) FILTER (WHERE uuid_v1_timestamp(id) = created_at) AS same_microsecond
FROM burst;

-- A functional index on the v1 time serves range queries.
CREATE INDEX logs_v1_time ON logs (uuid_v1_timestamp(id));
ANALYZE logs;
-- (Bitmap scans off: majors differ in which index scan they pick.)
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM logs
WHERE uuid_v1_timestamp(id) BETWEEN '2015-06-01 08:00:10+00' AND '2015-06-01 08:00:20+00';
SELECT count(*) FROM logs
WHERE uuid_v1_timestamp(id) BETWEEN '2015-06-01 08:00:10+00' AND '2015-06-01 08:00:20+00';
RESET enable_seqscan;
RESET enable_bitmapscan;

-- Past 163839 rows per microsecond and MAC there is no distinct v1 id left.
SELECT form_uuid_v1_nth('2015-06-01 08:00:00+00', 163839, '44:88:99:36:57:32') AS last_ordinal;
SELECT form_uuid_v1_nth('2015-06-01 08:00:00+00', 163840, '44:88:99:36:57:32');
SELECT form_uuid_v1_nth('2015-06-01 08:00:00+00', -1, '44:88:99:36:57:32');
DROP TABLE logs, burst;

-- The Spark/eaio retrospective converter (shared/reference): 100-ns time =
-- ms * 10000 + r, r the 0-based count of earlier rows with that
-- millisecond, with one fixed clock sequence and node.  Its ids are
-- form_uuid_v1_nth(ms + floor(r / 10) microseconds, 16384 * (r % 10) +
-- clock_seq, mac); the converter's bytes are built here independently from
-- the RFC 4122 field layout.
SELECT count(*) AS compared, count(*) FILTER (WHERE ours <> spark) AS differ
FROM (SELECT form_uuid_v1_nth('1970-01-01 00:00:00+00'::timestamptz + ms * interval '1 ms'
                              + (r / 10) * interval '1 us',
                              16384 * (r % 10) + cs, '44:88:99:36:57:32') AS ours,
             (lpad(to_hex(t & 4294967295), 8, '0') || '-' ||
              lpad(to_hex((t >> 32) & 65535), 4, '0') || '-' ||
              lpad(to_hex(4096 | ((t >> 48) & 4095)), 4, '0') || '-' ||
              lpad(to_hex(32768 | cs), 4, '0') || '-448899365732')::uuid AS spark
      FROM (SELECT ms, r, cs, ms * 10000 + 122192928000000000 + r AS t
            FROM (SELECT 1349000000000 + (g * 7919) % 100000000 AS ms, g % 25000 AS r,
                         (g * 31) % 16384 AS cs
                  FROM generate_series(0, 50000) g) s) s) v;
