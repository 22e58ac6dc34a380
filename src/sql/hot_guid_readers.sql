-- Reading Hot Guids back, as the C edition's src/core/hot_guid.hpp (the
-- layout of .NET's HotGuid). Any uuid decodes: the layout has no version
-- marker. Its bytes (pg_catalog.get_byte of pg_catalog.uuid_send):
--
--   0-3    unix seconds, big-endian          4, 5  machine bytes 1, 0
--   6      pid high byte   7 machine byte 2   8 pid low byte
--   9-11   counter (24 bits, big-endian)     12-15 shard key, little-endian
--
-- One inlinable expression each, written as the Locality readers are
-- (readers.sql: immune to the caller's search_path).

CREATE OR REPLACE FUNCTION hot_guid_shard_key(id pg_catalog.uuid) RETURNS pg_catalog.int8
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT ((pg_catalog.get_byte(pg_catalog.uuid_send(id), 15)::pg_catalog.int8 OPERATOR(pg_catalog.<<) 24)
        OPERATOR(pg_catalog.|) (((pg_catalog.get_byte(pg_catalog.uuid_send(id), 14) OPERATOR(pg_catalog.<<) 16)
                                 OPERATOR(pg_catalog.|) (pg_catalog.get_byte(pg_catalog.uuid_send(id), 13) OPERATOR(pg_catalog.<<) 8))
                                OPERATOR(pg_catalog.|) pg_catalog.get_byte(pg_catalog.uuid_send(id), 12))::pg_catalog.int8)
$$;
COMMENT ON FUNCTION hot_guid_shard_key(pg_catalog.uuid) IS
    'Shard key of a Hot Guid (its last four bytes, little-endian)';

CREATE OR REPLACE FUNCTION hot_guid_timestamp(id pg_catalog.uuid) RETURNS pg_catalog.timestamptz
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT pg_catalog.timezone(pg_catalog.interval '0', (pg_catalog.timestamp '1970-01-01 00:00:00'
       OPERATOR(pg_catalog.+) (((pg_catalog.get_byte(pg_catalog.uuid_send(id), 0)::pg_catalog.int8 OPERATOR(pg_catalog.<<) 24)
                                OPERATOR(pg_catalog.|) (((pg_catalog.get_byte(pg_catalog.uuid_send(id), 1) OPERATOR(pg_catalog.<<) 16)
                                                         OPERATOR(pg_catalog.|) (pg_catalog.get_byte(pg_catalog.uuid_send(id), 2) OPERATOR(pg_catalog.<<) 8))
                                                        OPERATOR(pg_catalog.|) pg_catalog.get_byte(pg_catalog.uuid_send(id), 3))::pg_catalog.int8)::pg_catalog.float8
                               OPERATOR(pg_catalog.*) pg_catalog.interval '1 second')))
$$;
COMMENT ON FUNCTION hot_guid_timestamp(pg_catalog.uuid) IS
    'Time of a Hot Guid, in whole seconds';

CREATE OR REPLACE FUNCTION hot_guid_counter(id pg_catalog.uuid) RETURNS pg_catalog.int4
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT (((pg_catalog.get_byte(pg_catalog.uuid_send(id), 9) OPERATOR(pg_catalog.<<) 16)
         OPERATOR(pg_catalog.|) (pg_catalog.get_byte(pg_catalog.uuid_send(id), 10) OPERATOR(pg_catalog.<<) 8))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(pg_catalog.uuid_send(id), 11))
$$;
COMMENT ON FUNCTION hot_guid_counter(pg_catalog.uuid) IS
    'The 24-bit counter of a Hot Guid';

CREATE OR REPLACE FUNCTION hot_guid_pid(id pg_catalog.uuid) RETURNS pg_catalog.int4
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT ((pg_catalog.get_byte(pg_catalog.uuid_send(id), 6) OPERATOR(pg_catalog.<<) 8) OPERATOR(pg_catalog.|) pg_catalog.get_byte(pg_catalog.uuid_send(id), 8))
$$;
COMMENT ON FUNCTION hot_guid_pid(pg_catalog.uuid) IS
    'Process id (mod 65536) of the process that made a Hot Guid';

CREATE OR REPLACE FUNCTION hot_guid_machine(id pg_catalog.uuid) RETURNS pg_catalog.text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT pg_catalog.lpad(pg_catalog.to_hex((((pg_catalog.get_byte(pg_catalog.uuid_send(id), 5) OPERATOR(pg_catalog.<<) 16)
                                           OPERATOR(pg_catalog.|) (pg_catalog.get_byte(pg_catalog.uuid_send(id), 4) OPERATOR(pg_catalog.<<) 8))
                                          OPERATOR(pg_catalog.|) pg_catalog.get_byte(pg_catalog.uuid_send(id), 7))), 6, '0')
$$;
COMMENT ON FUNCTION hot_guid_machine(pg_catalog.uuid) IS
    'Machine bytes of a Hot Guid: the first three bytes of MD5(machine name), as hex';

-- The smallest id of the Hot Guids made at ts or later: its second rounded
-- up, in the first four bytes, the rest zero. PL/pgSQL for the C edition's
-- error past the last Hot Guid second; the message shows ts as the C
-- edition's timestamptz_to_str does (ISO, whatever the session DateStyle).
CREATE OR REPLACE FUNCTION hot_guid_lower(ts pg_catalog.timestamptz) RETURNS pg_catalog.uuid
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET datestyle = 'ISO, MDY' SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    seconds pg_catalog.int8;
BEGIN
    IF ts = '-infinity' THEN
        RETURN '00000000-0000-0000-0000-000000000000';
    END IF;
    IF ts >= pg_catalog.timestamptz '2106-02-07 06:28:15.000001+00' THEN
        RAISE EXCEPTION 'timestamp % is out of range for a Hot Guid bound', ts
            USING ERRCODE = '22008',
                  DETAIL = 'Every Hot Guid is earlier than 2106-02-07 06:28:16 UTC; no uuid lies above them all.',
                  HINT = 'Leave out the upper bound to take every later Hot Guid.';
    END IF;
    -- Whole seconds rounded up (a Hot Guid of second s was made at s or
    -- later); any time before 1970 is second 0.
    seconds := (GREATEST(@extschema@.locality_uuid_unix_micros(ts), 0) + 999999) / 1000000;
    RETURN (pg_catalog.lpad(pg_catalog.to_hex(seconds), 8, '0') || '000000000000000000000000')::pg_catalog.uuid;
END
$$;
COMMENT ON FUNCTION hot_guid_lower(pg_catalog.timestamptz) IS
    'Smallest id of the Hot Guids made at ts or later: id >= hot_guid_lower(a) AND id < hot_guid_lower(b) is a key range';
