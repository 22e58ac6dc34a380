-- Benchmark database for bench/cost.sh. The seed functions are the ones
-- from the reference article, under other names, only in this database.
CREATE EXTENSION locality_uuid;
CREATE EXTENSION "uuid-ossp";

-- uuid_nil() is IMMUTABLE, so the planner folds count(uuid_nil()) to a
-- constant and calls nothing per row. The same C function declared
-- VOLATILE is called per row: the floor of any uuid-returning C function.
CREATE FUNCTION uuid_nil_called() RETURNS uuid
  AS '$libdir/uuid-ossp', 'uuid_nil' LANGUAGE C VOLATILE;

CREATE FUNCTION seed_form_uuid_v1(ts TIMESTAMPTZ, clock_seq INTEGER, mac MACADDR)
RETURNS UUID AS $$
DECLARE
  t BIT(60) := (extract(EPOCH FROM ts) * 10000000 + 122192928000000000) :: BIGINT :: BIT(60);
  uuid_hi BIT(64) := substring(t FROM 29 FOR 32) || substring(t FROM 13 FOR 16) || b'0001' ||
                     substring(t FROM 1 FOR 12);
BEGIN
  RETURN lpad(to_hex(uuid_hi :: BIGINT) :: TEXT, 16, '0') ||
         (to_hex((b'10' || clock_seq :: BIT(14)) :: BIT(16) :: INTEGER)) :: TEXT ||
         replace(mac :: TEXT, ':', '');
END
$$ LANGUAGE plpgsql;

CREATE FUNCTION seed_uuid_v1_timestamp(_uuid UUID)
RETURNS TIMESTAMP WITH TIME ZONE AS $$
SELECT to_timestamp(
  (('x' || lpad(h, 16, '0')) :: BIT(64) :: BIGINT :: DOUBLE PRECISION - 122192928000000000) / 10000000)
FROM (SELECT substring(u FROM 16 FOR 3) || substring(u FROM 10 FOR 4) || substring(u FROM 1 FOR 8) AS h
      FROM (VALUES (_uuid :: TEXT)) s (u)) s;
$$ LANGUAGE SQL IMMUTABLE;

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
