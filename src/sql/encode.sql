-- The building blocks of the SQL edition's generators, as the C edition's
-- src/core/locality_id.hpp and src/core/window_base.*.

-- A Locality UUID from its fields: the counter's eight hex digits as the
-- mode writes them, pid mod 65536, the node's 28 bits, 48 bits of
-- milliseconds; as the C encoder, each field keeps only its own bits.
-- Each argument is used once, so a generator's call (whose counter comes
-- from nextval) is inlined; locality_uuid_pack below is the friendlier form.
CREATE OR REPLACE FUNCTION locality_uuid_pack_hex(counter_hex pg_catalog.text, pid pg_catalog.int4,
                                                  node pg_catalog.int4, millis pg_catalog.int8)
    RETURNS pg_catalog.uuid
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT ((((counter_hex
           OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex((pid OPERATOR(pg_catalog.&) 65535)), 4, '0'))
          OPERATOR(pg_catalog.||) 'b')
         OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex((node OPERATOR(pg_catalog.&) 268435455)), 7, '0'))
        OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex((millis OPERATOR(pg_catalog.&) 281474976710655)), 12, '0'))::pg_catalog.uuid
$$;
COMMENT ON FUNCTION locality_uuid_pack_hex(pg_catalog.text, pg_catalog.int4, pg_catalog.int4, pg_catalog.int8) IS
    'SQL edition: the Locality UUID of the counter as written (8 hex digits), pid, node and milliseconds';

-- The same from the counter itself, written nibble-reversed unless
-- sequential; locality_uuid_counter, _pid, _node and _timestamp read the
-- fields back.
CREATE OR REPLACE FUNCTION locality_uuid_pack(counter pg_catalog.int8, pid pg_catalog.int4,
                                              node pg_catalog.int4, millis pg_catalog.int8,
                                              sequential pg_catalog.bool)
    RETURNS pg_catalog.uuid
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT @extschema@.locality_uuid_pack_hex(
    CASE WHEN sequential THEN pg_catalog.lpad(pg_catalog.to_hex((counter OPERATOR(pg_catalog.&) 4294967295)), 8, '0')
         WHEN NOT sequential THEN pg_catalog.reverse(pg_catalog.lpad(pg_catalog.to_hex((counter OPERATOR(pg_catalog.&) 4294967295)), 8, '0'))
    END, pid, node, millis)
$$;
COMMENT ON FUNCTION locality_uuid_pack(pg_catalog.int8, pg_catalog.int4, pg_catalog.int4, pg_catalog.int8, pg_catalog.bool) IS
    'SQL edition: the Locality UUID of counter, pid, node and milliseconds, written in the given mode';

-- Sequential mode's starting counter of a 10-minute window (Unix
-- milliseconds / 600000), derived identically on every node: MD5 of the
-- first 11 characters of the window's start as yyyyMMddHHmm, the digest's
-- first four bytes read little-endian. A five-digit year shifts that cut,
-- as in the original library. NULL for a negative window (before 1970).
-- PARALLEL UNSAFE, as locality_uuid_md5 is.
CREATE OR REPLACE FUNCTION locality_uuid_window_base(window_number pg_catalog.int8) RETURNS pg_catalog.int8
    LANGUAGE sql IMMUTABLE STRICT PARALLEL UNSAFE AS $$
SELECT (((('x' OPERATOR(pg_catalog.||) pg_catalog.substr(h, 7, 2)) OPERATOR(pg_catalog.||) pg_catalog.substr(h, 5, 2))
          OPERATOR(pg_catalog.||) pg_catalog.substr(h, 3, 2)) OPERATOR(pg_catalog.||) pg_catalog.substr(h, 1, 2))::pg_catalog.bit(32)::pg_catalog.int8
FROM (SELECT @extschema@.locality_uuid_md5(pg_catalog.substr(pg_catalog.to_char(
                 (pg_catalog.timestamp 'epoch'
                  OPERATOR(pg_catalog.+) (window_number::pg_catalog.float8 OPERATOR(pg_catalog.*) pg_catalog.interval '10 minutes')),
                 'YYYYMMDDHH24MI'), 1, 11)) AS h
      WHERE (window_number OPERATOR(pg_catalog.>=) 0)) AS digest
$$;
COMMENT ON FUNCTION locality_uuid_window_base(pg_catalog.int8) IS
    'SQL edition: the sequential base counter of a 10-minute window (Unix milliseconds / 600000)';
