-- The reference article's PL/pgSQL form_uuid_v1 and SQL uuid_v1_timestamp
-- (shared/reference/uuid-v1-form-and-extract-postgres.txt), renamed, so
-- tests and benchmarks compare against exactly what users know.
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
