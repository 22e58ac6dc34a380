-- locality_uuid_fill: a column filled from an expression of each row in
-- batches, a COMMIT each, resuming at the first row without a value, never
-- writing a NULL. Errors print with DETAIL and HINT and their SQLSTATE.
SET TimeZone = 'UTC';
\set SHOW_CONTEXT never

CREATE TABLE fill_t (n bigint PRIMARY KEY, created_at timestamptz, id uuid);
INSERT INTO fill_t
SELECT g, '2024-05-01 00:00:00+00'::timestamptz + g * interval '1.5 s', NULL
FROM generate_series(1, 25000) g;

-- A call bounded by max_rows: 5,000 rows, 5 batches of 1,000 in key
-- order, each its own transaction (5 transaction ids).
CALL locality_uuid_fill('fill_t', 'id', 'locality_uuid_at(t.created_at, true)',
                        batch_size => 1000, max_rows => 5000);
SELECT count(id), min(n), max(n), count(DISTINCT xmin::text) AS transactions
FROM fill_t WHERE id IS NOT NULL;
CREATE TEMP TABLE first_pass AS SELECT n, id, xmin::text AS x FROM fill_t WHERE id IS NOT NULL;

-- Meanwhile a row gets its id elsewhere; the next call resumes at row
-- 5001, keeps that row, rewrites none of the first 5,000 and fills the
-- rest (19,999 rows in batches of 7,000).
UPDATE fill_t SET id = '00000000-0000-b000-0000-000000000000' WHERE n = 7000;
CALL locality_uuid_fill('fill_t', 'id', 'locality_uuid_at(t.created_at, true)', batch_size => 7000);
SELECT count(*) FROM first_pass p JOIN fill_t f USING (n) WHERE f.xmin::text <> p.x OR f.id <> p.id;
SELECT id FROM fill_t WHERE n = 7000;
SELECT count(*), count(id), count(DISTINCT id),
       count(*) FILTER (WHERE locality_uuid_timestamp(id) = date_trunc('milliseconds', created_at)) AS carry_created_at
FROM fill_t;
-- Nothing left: 0 rows, 0 batches.
CALL locality_uuid_fill('fill_t', 'id', 'locality_uuid_at(t.created_at, true)');

-- Any unique NOT NULL key, of any ordered type, with names that need quoting.
CREATE TABLE "Fill Me" ("Key" text PRIMARY KEY, "Created At" timestamptz NOT NULL, "New Id" uuid);
INSERT INTO "Fill Me" SELECT 'k' || g, '2024-05-01 00:00:00+00'::timestamptz + g * interval '1 min', NULL
FROM generate_series(1, 2500) g;
CALL locality_uuid_fill('"Fill Me"', 'New Id', 'locality_uuid_at(t."Created At")', batch_size => 1000);
SELECT count("New Id"), count(DISTINCT "New Id"),
       count(*) FILTER (WHERE locality_uuid_timestamp("New Id") = "Created At") FROM "Fill Me";

-- A key named by key_col: a unique NOT NULL column other than the primary key.
CREATE TABLE fill_k (pk1 int, pk2 int, ext_no bigint NOT NULL UNIQUE, id uuid, PRIMARY KEY (pk1, pk2));
INSERT INTO fill_k SELECT g % 7, g, g * 3 FROM generate_series(1, 1500) g;
CALL locality_uuid_fill('fill_k', 'id', 'gen_random_uuid()', key_col => 'ext_no', batch_size => 400);
SELECT count(id), count(DISTINCT id) FROM fill_k;

-- A uuid key (no min() or max() for uuid in core): a second column made
-- from the first, as when re-keying variable-mode ids to sequential ones.
CREATE TABLE fill_u (id uuid PRIMARY KEY, seq_id uuid);
INSERT INTO fill_u SELECT locality_uuid_at('2024-05-01 00:00:00+00'::timestamptz + g * interval '1 s', false)
FROM generate_series(1, 2000) g;
CALL locality_uuid_fill('fill_u', 'seq_id', 'locality_uuid_at(locality_uuid_timestamp(t.id), true)', batch_size => 300);
SELECT count(seq_id), count(DISTINCT seq_id),
       count(*) FILTER (WHERE locality_uuid_timestamp(seq_id) = locality_uuid_timestamp(id)) FROM fill_u;

-- A timestamptz key, in a session whose DateStyle prints a zone
-- abbreviation that reads back as another zone (IST is +05:30 here and
-- +02 in the default abbreviations): the batches still meet end to end.
-- A primary key with INCLUDE columns is still a one-column key.
CREATE TABLE fill_ts (at timestamptz, note text, id uuid, PRIMARY KEY (at) INCLUDE (note));
INSERT INTO fill_ts SELECT '2024-05-01 00:00:00+00'::timestamptz + g * interval '1 min', 'n' || g, NULL
FROM generate_series(1, 2000) g;
SET DateStyle = 'SQL, DMY';
SET TimeZone = 'Asia/Kolkata';
CALL locality_uuid_fill('fill_ts', 'id', 'locality_uuid_at(t.at)', batch_size => 300);
RESET DateStyle;
SET TimeZone = 'UTC';
SELECT count(id), count(*) FILTER (WHERE locality_uuid_timestamp(id) = at) FROM fill_ts;

-- Never a NULL: the batch holding one is rolled back, the earlier ones stay.
CREATE TABLE fill_nulls (k int PRIMARY KEY, created_at timestamptz, id uuid);
INSERT INTO fill_nulls
SELECT g, CASE WHEN g NOT IN (2500, 2600) THEN '2024-05-01 00:00:00+00'::timestamptz END, NULL
FROM generate_series(1, 3000) g;
CALL locality_uuid_fill('fill_nulls', 'id', 'locality_uuid_at(t.created_at)', batch_size => 1000);
\echo :LAST_ERROR_SQLSTATE
SELECT count(id), max(k) FILTER (WHERE id IS NOT NULL) FROM fill_nulls;
-- Covered by the expression, the rest is filled.
CALL locality_uuid_fill('fill_nulls', 'id', 'locality_uuid_at(coalesce(t.created_at, to_timestamp(0)))', batch_size => 1000);
SELECT count(id), count(*) FILTER (WHERE locality_uuid_timestamp(id) = 'epoch') FROM fill_nulls;

-- An error of the expression stops the call at that batch, as it is.
CREATE TABLE fill_bad (k int PRIMARY KEY, created_at timestamptz, id uuid);
INSERT INTO fill_bad SELECT g, CASE WHEN g = 1200 THEN '-infinity'::timestamptz ELSE '2024-05-01 00:00:00+00' END, NULL
FROM generate_series(1, 1500) g;
CALL locality_uuid_fill('fill_bad', 'id', 'locality_uuid_at(t.created_at)', batch_size => 500);
\echo :LAST_ERROR_SQLSTATE
SELECT count(id) FROM fill_bad;

-- Outside a transaction block only: its COMMIT fails in one, and the
-- first batch is rolled back with the block.
BEGIN;
CALL locality_uuid_fill('fill_bad', 'id', 'gen_random_uuid()', batch_size => 100);
\echo :LAST_ERROR_SQLSTATE
ROLLBACK;
SELECT count(id) FROM fill_bad;

-- Nothing to batch by, or a bad argument: refused before any row is read.
CREATE TABLE fill_nokey (n bigint, k bigint UNIQUE, p bigint, id uuid);
CREATE UNIQUE INDEX fill_nokey_p ON fill_nokey (p) WHERE p > 0;
CALL locality_uuid_fill('fill_nokey', 'id', 'gen_random_uuid()');
\echo :LAST_ERROR_SQLSTATE
CALL locality_uuid_fill('fill_nokey', 'id', 'gen_random_uuid()', key_col => 'k');
\echo :LAST_ERROR_SQLSTATE
CALL locality_uuid_fill('fill_nokey', 'id', 'gen_random_uuid()', key_col => 'no_such_column');
\echo :LAST_ERROR_SQLSTATE
CALL locality_uuid_fill('fill_k', 'no_such_column', 'gen_random_uuid()');
\echo :LAST_ERROR_SQLSTATE
CALL locality_uuid_fill('fill_k', 'ext_no', '1', key_col => 'ext_no');
\echo :LAST_ERROR_SQLSTATE
CALL locality_uuid_fill('fill_k', 'id', 'gen_random_uuid()', key_col => 'ext_no', batch_size => 0);
\echo :LAST_ERROR_SQLSTATE
CALL locality_uuid_fill('fill_k', 'id', 'gen_random_uuid()', key_col => 'ext_no', max_rows => -1);
\echo :LAST_ERROR_SQLSTATE
CALL locality_uuid_fill(NULL, 'id', 'gen_random_uuid()');
\echo :LAST_ERROR_SQLSTATE
CALL locality_uuid_fill('fill_k', NULL, 'gen_random_uuid()');
\echo :LAST_ERROR_SQLSTATE
CALL locality_uuid_fill('fill_k', 'id', NULL, key_col => 'ext_no');
\echo :LAST_ERROR_SQLSTATE
CALL locality_uuid_fill('fill_k', 'id', '  ', key_col => 'ext_no');
\echo :LAST_ERROR_SQLSTATE
CALL locality_uuid_fill('fill_k', 'id', E'\t\n', key_col => 'ext_no');
\echo :LAST_ERROR_SQLSTATE
-- An array key cannot travel as a list of keys.
CREATE TABLE fill_arr (k int[] PRIMARY KEY, id uuid);
CALL locality_uuid_fill('fill_arr', 'id', 'gen_random_uuid()');
\echo :LAST_ERROR_SQLSTATE
DROP TABLE fill_arr;
-- An expression may end in a comment.
CREATE TABLE fill_c (k int PRIMARY KEY, id uuid);
INSERT INTO fill_c SELECT g, NULL FROM generate_series(1, 3) g;
CALL locality_uuid_fill('fill_c', 'id', 'gen_random_uuid() -- random, for now');
DROP TABLE fill_c;

-- READ COMMITTED only; no inheritance parents (a partitioned table is fine).
SET default_transaction_isolation = 'repeatable read';
CALL locality_uuid_fill('fill_k', 'id', 'gen_random_uuid()', key_col => 'ext_no');
\echo :LAST_ERROR_SQLSTATE
RESET default_transaction_isolation;
CREATE TABLE fill_parent (k int PRIMARY KEY, id uuid);
CREATE TABLE fill_child () INHERITS (fill_parent);
CALL locality_uuid_fill('fill_parent', 'id', 'gen_random_uuid()');
\echo :LAST_ERROR_SQLSTATE
CREATE TABLE fill_parts (k int PRIMARY KEY, id uuid) PARTITION BY RANGE (k);
CREATE TABLE fill_parts_1 PARTITION OF fill_parts FOR VALUES FROM (0) TO (1000);
CREATE TABLE fill_parts_2 PARTITION OF fill_parts FOR VALUES FROM (1000) TO (2000);
INSERT INTO fill_parts SELECT g, NULL FROM generate_series(1, 1999) g;
CALL locality_uuid_fill('fill_parts', 'id', 'gen_random_uuid()', batch_size => 500);
SELECT count(id), count(DISTINCT id) FROM fill_parts;

-- The caller's privileges: a role that may read the table but not update it.
CREATE ROLE regress_locality_filler NOLOGIN;
GRANT SELECT ON fill_bad TO regress_locality_filler;
SET ROLE regress_locality_filler;
CALL locality_uuid_fill('fill_bad', 'id', 'gen_random_uuid()');
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;
SELECT count(id) FROM fill_bad;
DROP TABLE fill_bad;
DROP ROLE regress_locality_filler;

-- Rows left without a value are counted in the last NOTICE, with the
-- reason: here a trigger that keeps every even row from changing.
CREATE TABLE fill_trig (k int PRIMARY KEY, id uuid);
INSERT INTO fill_trig SELECT g, NULL FROM generate_series(1, 10) g;
CREATE FUNCTION fill_trig_skip() RETURNS trigger LANGUAGE plpgsql AS
  $$BEGIN IF NEW.k % 2 = 0 THEN RETURN NULL; END IF; RETURN NEW; END$$;
CREATE TRIGGER fill_trig_skip BEFORE UPDATE ON fill_trig FOR EACH ROW EXECUTE FUNCTION fill_trig_skip();
CALL locality_uuid_fill('fill_trig', 'id', 'gen_random_uuid()', batch_size => 4);
SELECT count(id) AS filled, count(*) - count(id) AS still_null FROM fill_trig;

-- Row security: a role that sees half the rows fills those, and is told
-- that more may be hidden from it.
DROP TRIGGER fill_trig_skip ON fill_trig;
UPDATE fill_trig SET id = NULL;
ALTER TABLE fill_trig ENABLE ROW LEVEL SECURITY;
CREATE POLICY fill_trig_low ON fill_trig USING (k <= 5);
CREATE ROLE regress_locality_rls NOLOGIN;
GRANT SELECT, UPDATE ON fill_trig TO regress_locality_rls;
SET ROLE regress_locality_rls;
CALL locality_uuid_fill('fill_trig', 'id', 'gen_random_uuid()');
RESET ROLE;
SELECT count(id) AS filled, count(*) - count(id) AS still_null FROM fill_trig;
DROP TABLE fill_trig;
DROP FUNCTION fill_trig_skip();
DROP ROLE regress_locality_rls;

-- From PL/pgSQL: the INOUT parameter takes a variable, and the block must
-- run outside a transaction block (the batches COMMIT).
CREATE TABLE fill_do (k int PRIMARY KEY, id uuid);
INSERT INTO fill_do SELECT g, NULL FROM generate_series(1, 25) g;
DO $$
DECLARE
  n bigint;
BEGIN
  CALL locality_uuid_fill('fill_do', 'id', 'gen_random_uuid()', batch_size => 10, filled => n);
  RAISE NOTICE 'filled % rows', n;
END
$$;
UPDATE fill_do SET id = NULL WHERE k <= 5;
BEGIN;
DO $$ DECLARE n bigint; BEGIN CALL locality_uuid_fill('fill_do', 'id', 'gen_random_uuid()', filled => n); END $$;
\echo :LAST_ERROR_SQLSTATE
ROLLBACK;
DROP TABLE fill_do;
