-- Benchmark database for bench/cost.sh, with the reference article's seed
-- functions (renamed) for comparison.
CREATE EXTENSION locality_uuid;
CREATE EXTENSION "uuid-ossp";

-- uuid_nil() is IMMUTABLE, so the planner folds count(uuid_nil()) to a
-- constant and calls nothing per row: the harness floor. The least a C
-- function returning a fresh uuid costs on top of it (palloc, and the
-- per-row reset of the memory that makes necessary), without and with the
-- clock read a time-stamped id needs: bench/floor/bench_floor.c.
CREATE FUNCTION bench_floor_uuid() RETURNS uuid
  AS :'floor_lib', 'bench_floor_uuid' LANGUAGE C VOLATILE;
CREATE FUNCTION bench_floor_clock_uuid() RETURNS uuid
  AS :'floor_lib', 'bench_floor_clock_uuid' LANGUAGE C VOLATILE;

\ir ../../test/reference/seed_uuid_v1.sql

-- What a user would write in SQL to read a Locality UUID's fields.
CREATE FUNCTION sql_locality_timestamp(id uuid) RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN substr(id::text, 15, 1) = 'b'
              THEN to_timestamp(('x' || lpad(right(id::text, 12), 16, '0'))::bit(64)::bigint / 1000.0) END $$;
CREATE FUNCTION sql_locality_counter(id uuid) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN substr(id::text, 15, 1) = 'b'
              THEN ('x' || lpad(reverse(left(id::text, 8)), 16, '0'))::bit(64)::bigint END $$;

CREATE TABLE bench_locality AS SELECT locality_uuid() AS id FROM generate_series(1, :rows);
CREATE TABLE bench_v1 AS
  SELECT form_uuid_v1('2016-01-01+00'::timestamptz + g * interval '1 ms', g % 16384, '44:88:99:36:57:32') AS id
  FROM generate_series(1, :rows) g;
VACUUM ANALYZE bench_locality, bench_v1;
