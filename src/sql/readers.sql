-- Reading a Locality UUID's fields back, as the C edition's
-- src/pg/extract_functions.cpp does:
--
--   wwwwwwww-xxxx-byyy-yyyy-zzzzzzzzzzzz     (the text form, 36 characters)
--   bytes 0-3 counter as written   4-5 pid   6 high nibble version 'b'
--   6 low nibble, 7-9 node (28 bits)   10-15 UTC milliseconds (48 bits)
--
-- Each is one SQL expression over pg_catalog built-ins, so the planner
-- inlines it: an expression index or a WHERE clause on it works as on a
-- built-in. Inlining needs CALLED ON NULL INPUT (a STRICT SQL function is
-- inlined only if its body is strict, and CASE is not); NULL still gives
-- NULL, as every branch reads the bytes of the id. A uuid whose version
-- nibble is not 'b' gives NULL.
--
-- Bytes are read with pg_catalog.get_byte(pg_catalog.uuid_send(id), n):
-- the uuid's 16 bytes in order, an int4 each, put together with shifts,
-- several times faster than reading the text form through bit strings.
--
-- The bodies are parsed when called, under the caller's search_path, and
-- a caller may list a schema of its own before pg_catalog, whose operators
-- and functions of the same names and operand types would then be chosen.
-- So every operator is written OPERATOR(pg_catalog.x), in parentheses (all
-- such share one precedence, left to right), every function and type is
-- schema-qualified, and nothing hides an operator looked up by name
-- (NULLIF, IS DISTINCT FROM, BETWEEN, IN, a simple CASE). The other SQL
-- bodies are written the same way. test/integration/sql_edition_tenant.sh
-- plants a look-alike of each operator and function the bodies use and
-- checks that nothing changes.

CREATE OR REPLACE FUNCTION locality_uuid_timestamp(id pg_catalog.uuid) RETURNS pg_catalog.timestamptz
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT CASE WHEN ((pg_catalog.get_byte(pg_catalog.uuid_send(id), 6) OPERATOR(pg_catalog.&) 240) OPERATOR(pg_catalog.=) 176) THEN
  -- Milliseconds below 2^46 (until the year 4199) times 1000 are an
  -- integer count of microseconds that a double holds exactly, so one
  -- product; later ones as two 24-bit halves, each product exact (the high
  -- half's times 2^24 * 1000). So every millisecond up to year 10889 is
  -- exact. (timestamp + interval, then UTC by a zero offset, is IMMUTABLE,
  -- unlike timestamptz + interval: a STABLE operator would keep the reader
  -- from being inlined; a zero interval, unlike 'UTC', needs no time zone
  -- lookup.)
  pg_catalog.timezone(pg_catalog.interval '0', CASE WHEN (pg_catalog.get_byte(pg_catalog.uuid_send(id), 10) OPERATOR(pg_catalog.<) 64)
    THEN (pg_catalog.timestamp '1970-01-01 00:00:00'
          OPERATOR(pg_catalog.+) (('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.substring(pg_catalog.uuid_send(id), 11, 6), 'hex'))::pg_catalog.bit(48)
                                  ::pg_catalog.int8::pg_catalog.float8 OPERATOR(pg_catalog.*) pg_catalog.interval '1 millisecond'))
    ELSE ((pg_catalog.timestamp '1970-01-01 00:00:00'
           OPERATOR(pg_catalog.+) ((((pg_catalog.get_byte(pg_catalog.uuid_send(id), 10) OPERATOR(pg_catalog.<<) 16)
                                     OPERATOR(pg_catalog.|) (pg_catalog.get_byte(pg_catalog.uuid_send(id), 11) OPERATOR(pg_catalog.<<) 8))
                                    OPERATOR(pg_catalog.|) pg_catalog.get_byte(pg_catalog.uuid_send(id), 12))::pg_catalog.float8
                                   OPERATOR(pg_catalog.*) pg_catalog.interval '16777.216 seconds'))
          OPERATOR(pg_catalog.+) ((((pg_catalog.get_byte(pg_catalog.uuid_send(id), 13) OPERATOR(pg_catalog.<<) 16)
                                    OPERATOR(pg_catalog.|) (pg_catalog.get_byte(pg_catalog.uuid_send(id), 14) OPERATOR(pg_catalog.<<) 8))
                                   OPERATOR(pg_catalog.|) pg_catalog.get_byte(pg_catalog.uuid_send(id), 15))::pg_catalog.float8
                                  OPERATOR(pg_catalog.*) pg_catalog.interval '1 millisecond'))
  END)
END
$$;
COMMENT ON FUNCTION locality_uuid_timestamp(pg_catalog.uuid) IS
    'Generation time (millisecond precision) of a Locality UUID';

CREATE OR REPLACE FUNCTION locality_uuid_pid(id pg_catalog.uuid) RETURNS pg_catalog.int4
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT CASE WHEN ((pg_catalog.get_byte(pg_catalog.uuid_send(id), 6) OPERATOR(pg_catalog.&) 240) OPERATOR(pg_catalog.=) 176) THEN
  ((pg_catalog.get_byte(pg_catalog.uuid_send(id), 4) OPERATOR(pg_catalog.<<) 8) OPERATOR(pg_catalog.|) pg_catalog.get_byte(pg_catalog.uuid_send(id), 5))
END
$$;
COMMENT ON FUNCTION locality_uuid_pid(pg_catalog.uuid) IS
    'Process id (mod 65536) that generated a Locality UUID';

CREATE OR REPLACE FUNCTION locality_uuid_node(id pg_catalog.uuid) RETURNS pg_catalog.int4
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT CASE WHEN ((pg_catalog.get_byte(pg_catalog.uuid_send(id), 6) OPERATOR(pg_catalog.&) 240) OPERATOR(pg_catalog.=) 176) THEN
  (((((pg_catalog.get_byte(pg_catalog.uuid_send(id), 6) OPERATOR(pg_catalog.&) 15) OPERATOR(pg_catalog.<<) 24)
     OPERATOR(pg_catalog.|) (pg_catalog.get_byte(pg_catalog.uuid_send(id), 7) OPERATOR(pg_catalog.<<) 16))
    OPERATOR(pg_catalog.|) (pg_catalog.get_byte(pg_catalog.uuid_send(id), 8) OPERATOR(pg_catalog.<<) 8))
   OPERATOR(pg_catalog.|) pg_catalog.get_byte(pg_catalog.uuid_send(id), 9))
END
$$;
COMMENT ON FUNCTION locality_uuid_node(pg_catalog.uuid) IS
    '28-bit node value of a Locality UUID (compare with locality_uuid_node_id())';

-- The MAC fragment with the unknown leading bits zero: the node's seven
-- hex digits after five zeros, read as a macaddr8 (whose input parses hex
-- itself, where macaddr's tries sscanf formats: 3x slower), then cast to
-- macaddr.
CREATE OR REPLACE FUNCTION locality_uuid_mac(id pg_catalog.uuid) RETURNS pg_catalog.macaddr
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT CASE WHEN ((pg_catalog.get_byte(pg_catalog.uuid_send(id), 6) OPERATOR(pg_catalog.&) 240) OPERATOR(pg_catalog.=) 176) THEN
  ('00000' OPERATOR(pg_catalog.||) pg_catalog.substr(pg_catalog.encode(pg_catalog.substring(pg_catalog.uuid_send(id), 7, 4), 'hex'), 2))
    ::pg_catalog.macaddr8::pg_catalog.macaddr
END
$$;
COMMENT ON FUNCTION locality_uuid_mac(pg_catalog.uuid) IS
    'MAC fragment (last 28 bits, unknown leading bits zero) of a Locality UUID';

-- Variable mode writes the counter nibble-reversed: reversing its eight
-- hex digits reads it back. The id has no mode bit, so the caller says.
CREATE OR REPLACE FUNCTION locality_uuid_counter(id pg_catalog.uuid, sequential pg_catalog.bool DEFAULT false)
    RETURNS pg_catalog.int8
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT CASE WHEN ((pg_catalog.get_byte(pg_catalog.uuid_send(id), 6) OPERATOR(pg_catalog.&) 240) OPERATOR(pg_catalog.=) 176) THEN
  CASE WHEN sequential
       THEN ((pg_catalog.get_byte(pg_catalog.uuid_send(id), 0)::pg_catalog.int8 OPERATOR(pg_catalog.<<) 24)
             OPERATOR(pg_catalog.|) (((pg_catalog.get_byte(pg_catalog.uuid_send(id), 1) OPERATOR(pg_catalog.<<) 16)
                                      OPERATOR(pg_catalog.|) (pg_catalog.get_byte(pg_catalog.uuid_send(id), 2) OPERATOR(pg_catalog.<<) 8))
                                     OPERATOR(pg_catalog.|) pg_catalog.get_byte(pg_catalog.uuid_send(id), 3))::pg_catalog.int8)
       WHEN NOT sequential
       THEN ('x' OPERATOR(pg_catalog.||) pg_catalog.reverse(pg_catalog.encode(pg_catalog.substring(pg_catalog.uuid_send(id), 1, 4), 'hex')))
            ::pg_catalog.bit(32)::pg_catalog.int8
  END
END
$$;
COMMENT ON FUNCTION locality_uuid_counter(pg_catalog.uuid, pg_catalog.bool) IS
    'Counter of a Locality UUID: read nibble-reversed (variable mode) unless sequential is true';

CREATE OR REPLACE FUNCTION locality_uuid_version(id pg_catalog.uuid) RETURNS pg_catalog.text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT pg_catalog.to_hex((pg_catalog.get_byte(pg_catalog.uuid_send(id), 6) OPERATOR(pg_catalog.>>) 4))
$$;
COMMENT ON FUNCTION locality_uuid_version(pg_catalog.uuid) IS
    'Version nibble of any uuid as one hex character (b for Locality UUIDs)';
