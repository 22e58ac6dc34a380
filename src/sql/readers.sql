-- Reading a Locality UUID's fields back, as the C edition's
-- src/pg/extract_functions.cpp does:
--
--   wwwwwwww-xxxx-byyy-yyyy-zzzzzzzzzzzz     (the text form, 36 characters)
--   1-8 counter as written   10-13 pid   15 version 'b'
--   16-18, 20-23 node (28 bits)   25-36 UTC milliseconds (48 bits)
--
-- Each is one SQL expression over pg_catalog built-ins, so the planner
-- inlines it: an expression index or a WHERE clause on it works as on a
-- built-in. Inlining needs CALLED ON NULL INPUT (a STRICT SQL function is
-- inlined only if its body is strict, and CASE is not); NULL still gives
-- NULL, as every branch reads the text of the id. A uuid whose version
-- nibble is not 'b' gives NULL.
--
-- Text positions are read with pg_catalog.substr and turned into numbers
-- through bit strings: ('x' || hex)::bit(n) is exact for any n up to 64,
-- and bit(n)::int8 reads the n bits unsigned.
--
-- The bodies are parsed when called, under the caller's search_path:
-- functions are schema-qualified, and every operator has operands of the
-- exact types of a pg_catalog operator (float8 * interval, not
-- int8 * interval; mod(), not int8 % int4), which pg_catalog, searched
-- first, answers before any operator another schema could define.

CREATE OR REPLACE FUNCTION locality_uuid_timestamp(id pg_catalog.uuid) RETURNS pg_catalog.timestamptz
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT CASE WHEN pg_catalog.substr(id::pg_catalog.text, 15, 1) = 'b' THEN
  -- Whole seconds, then milliseconds: each product is an integer that a
  -- double holds exactly (seconds * 10^6 < 2^53 * 2^6 for 48-bit ms), so
  -- every millisecond up to year 10889 is exact.
  pg_catalog.timezone('UTC', pg_catalog.timestamp 'epoch'
    + (('x' || pg_catalog.substr(id::pg_catalog.text, 25, 12))::pg_catalog.bit(48)::pg_catalog.int8 / 1000)::pg_catalog.float8
      * pg_catalog.interval '1 second'
    + pg_catalog.mod(('x' || pg_catalog.substr(id::pg_catalog.text, 25, 12))::pg_catalog.bit(48)::pg_catalog.int8, 1000)::pg_catalog.float8
      * pg_catalog.interval '1 millisecond')
END
$$;
COMMENT ON FUNCTION locality_uuid_timestamp(pg_catalog.uuid) IS
    'Generation time (millisecond precision) of a Locality UUID';

CREATE OR REPLACE FUNCTION locality_uuid_pid(id pg_catalog.uuid) RETURNS pg_catalog.int4
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT CASE WHEN pg_catalog.substr(id::pg_catalog.text, 15, 1) = 'b' THEN
  ('x' || pg_catalog.substr(id::pg_catalog.text, 10, 4))::pg_catalog.bit(16)::pg_catalog.int4
END
$$;
COMMENT ON FUNCTION locality_uuid_pid(pg_catalog.uuid) IS
    'Process id (mod 65536) that generated a Locality UUID';

CREATE OR REPLACE FUNCTION locality_uuid_node(id pg_catalog.uuid) RETURNS pg_catalog.int4
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT CASE WHEN pg_catalog.substr(id::pg_catalog.text, 15, 1) = 'b' THEN
  ('x' || pg_catalog.substr(id::pg_catalog.text, 16, 3) || pg_catalog.substr(id::pg_catalog.text, 20, 4))
    ::pg_catalog.bit(28)::pg_catalog.int4
END
$$;
COMMENT ON FUNCTION locality_uuid_node(pg_catalog.uuid) IS
    '28-bit node value of a Locality UUID (compare with locality_uuid_node_id())';

-- The MAC fragment with the unknown leading bits zero: the node's seven
-- hex digits after five zeros.
CREATE OR REPLACE FUNCTION locality_uuid_mac(id pg_catalog.uuid) RETURNS pg_catalog.macaddr
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT CASE WHEN pg_catalog.substr(id::pg_catalog.text, 15, 1) = 'b' THEN
  ('00000' || pg_catalog.substr(id::pg_catalog.text, 16, 3) || pg_catalog.substr(id::pg_catalog.text, 20, 4))
    ::pg_catalog.macaddr
END
$$;
COMMENT ON FUNCTION locality_uuid_mac(pg_catalog.uuid) IS
    'MAC fragment (last 28 bits, unknown leading bits zero) of a Locality UUID';

-- Variable mode writes the counter nibble-reversed: reversing the eight
-- hex digits reads it back. The id has no mode bit, so the caller says.
CREATE OR REPLACE FUNCTION locality_uuid_counter(id pg_catalog.uuid, sequential pg_catalog.bool DEFAULT false)
    RETURNS pg_catalog.int8
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT CASE WHEN pg_catalog.substr(id::pg_catalog.text, 15, 1) = 'b' THEN
  ('x' || CASE WHEN sequential THEN pg_catalog.substr(id::pg_catalog.text, 1, 8)
               WHEN NOT sequential THEN pg_catalog.reverse(pg_catalog.substr(id::pg_catalog.text, 1, 8))
          END)::pg_catalog.bit(32)::pg_catalog.int8
END
$$;
COMMENT ON FUNCTION locality_uuid_counter(pg_catalog.uuid, pg_catalog.bool) IS
    'Counter of a Locality UUID: read nibble-reversed (variable mode) unless sequential is true';

CREATE OR REPLACE FUNCTION locality_uuid_version(id pg_catalog.uuid) RETURNS pg_catalog.text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT pg_catalog.substr(id::pg_catalog.text, 15, 1)
$$;
COMMENT ON FUNCTION locality_uuid_version(pg_catalog.uuid) IS
    'Version nibble of any uuid as one hex character (b for Locality UUIDs)';
