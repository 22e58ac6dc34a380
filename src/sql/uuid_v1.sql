-- RFC 4122 version-1 UUIDs for given times and reading them back, as the C
-- edition's src/core/uuid_v1.* and src/pg/uuid_v1_functions.cpp: 60-bit
-- count of 100-ns ticks since 1582-10-15 00:00 UTC, 14-bit clock sequence,
-- 48-bit node, all on integers (Unix microseconds in and out), with the
-- same errors for the same bad input.

-- The exact Unix microseconds of a finite timestamptz. The difference of
-- two timestamptz is exact (days and microseconds, justified to 24-hour
-- days), and each of its parts is an integer a double holds exactly;
-- extract(epoch ...) is not exact on PostgreSQL 13 (a double). One
-- expression, so a call with a column or variable is inlined. Exact for
-- times up to 294247-01-10 04:00:54.775807 UTC (the last microsecond since
-- 1970 that int8 holds); callers refuse later ones first.
CREATE OR REPLACE FUNCTION locality_uuid_unix_micros(ts pg_catalog.timestamptz) RETURNS pg_catalog.int8
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
SELECT ((((pg_catalog.date_part('day', (ts OPERATOR(pg_catalog.-) pg_catalog.timestamptz '1970-01-01 00:00:00+00'))::pg_catalog.int8
           OPERATOR(pg_catalog.*) 86400000000)
          OPERATOR(pg_catalog.+) (pg_catalog.date_part('hour', (ts OPERATOR(pg_catalog.-) pg_catalog.timestamptz '1970-01-01 00:00:00+00'))::pg_catalog.int8
                                  OPERATOR(pg_catalog.*) 3600000000))
         OPERATOR(pg_catalog.+) (pg_catalog.date_part('minute', (ts OPERATOR(pg_catalog.-) pg_catalog.timestamptz '1970-01-01 00:00:00+00'))::pg_catalog.int8
                                 OPERATOR(pg_catalog.*) 60000000))
        OPERATOR(pg_catalog.+) pg_catalog.date_part('microseconds', (ts OPERATOR(pg_catalog.-) pg_catalog.timestamptz '1970-01-01 00:00:00+00'))::pg_catalog.int8)
$$;
COMMENT ON FUNCTION locality_uuid_unix_micros(pg_catalog.timestamptz) IS
    'SQL edition: microseconds since 1970-01-01 00:00 UTC of a finite timestamptz, exactly';

-- The timestamptz of Unix microseconds: whole seconds, then microseconds,
-- each product an integer a double holds exactly.
CREATE OR REPLACE FUNCTION locality_uuid_from_unix_micros(us pg_catalog.int8) RETURNS pg_catalog.timestamptz
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT pg_catalog.timezone('UTC', ((pg_catalog.timestamp 'epoch'
         OPERATOR(pg_catalog.+) ((us OPERATOR(pg_catalog./) 1000000)::pg_catalog.float8 OPERATOR(pg_catalog.*) pg_catalog.interval '1 second'))
         OPERATOR(pg_catalog.+) (pg_catalog.mod(us, 1000000)::pg_catalog.float8 OPERATOR(pg_catalog.*) pg_catalog.interval '1 microsecond')))
$$;
COMMENT ON FUNCTION locality_uuid_from_unix_micros(pg_catalog.int8) IS
    'SQL edition: the timestamptz of microseconds since 1970-01-01 00:00 UTC';

-- Both forming functions (internal: they check clock_seq and sub_tick
-- first): ticks of the first 100 ns of ts's microsecond, plus sub_tick,
-- then the fields in their RFC 4122 places. The checks and
-- their order are the C edition's: infinity, the number, then the range.
CREATE OR REPLACE FUNCTION locality_uuid_form_v1(ts pg_catalog.timestamptz, clock_seq pg_catalog.int4,
                                                 sub_tick pg_catalog.int4, mac pg_catalog.macaddr)
    RETURNS pg_catalog.uuid
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    us pg_catalog.int8;
    ticks pg_catalog.int8;
    hex pg_catalog.text;
BEGIN
    IF NOT pg_catalog.isfinite(ts) THEN
        RAISE EXCEPTION 'timestamp out of range for a version 1 UUID'
            USING ERRCODE = '22008', DETAIL = 'Infinite timestamps have no version 1 time.';
    END IF;
    -- Far beyond the 60 bits, the microseconds since 1970 would overflow
    -- on the way: such a time is out of range before it is computed.
    us := CASE WHEN ts < pg_catalog.timestamptz '6000-01-01 00:00:00+00'
               THEN @extschema@.locality_uuid_unix_micros(ts) ELSE pg_catalog.int8 '9223372036854775807' END;
    IF us < -12219292800000000 THEN
        RAISE EXCEPTION 'timestamp out of range for a version 1 UUID'
            USING ERRCODE = '22008', DETAIL = 'Version 1 UUIDs start at 1582-10-15 00:00:00 UTC.';
    END IF;
    -- The last microsecond whose first tick fits 60 bits, and a sub-tick
    -- that would carry past them.
    IF us > 103072857660684697
       OR (us + 12219292800000000) * 10 + sub_tick > 1152921504606846975 THEN
        RAISE EXCEPTION 'timestamp out of range for a version 1 UUID'
            USING ERRCODE = '22008', DETAIL = 'The 60-bit time field ends at 5236-03-31 21:21:00.684697 UTC.';
    END IF;
    ticks := (us + 12219292800000000) * 10 + sub_tick;
    hex := pg_catalog.lpad(pg_catalog.to_hex(ticks), 15, '0');     -- time_hi (3), time_mid (4), time_low (8)
    RETURN (pg_catalog.substr(hex, 8, 8) || pg_catalog.substr(hex, 4, 4) || '1' || pg_catalog.substr(hex, 1, 3)
            || pg_catalog.lpad(pg_catalog.to_hex(32768 | clock_seq), 4, '0')        -- variant 10
            || pg_catalog.replace(mac::pg_catalog.text, ':', ''))::pg_catalog.uuid;
END
$$;
COMMENT ON FUNCTION locality_uuid_form_v1(pg_catalog.timestamptz, pg_catalog.int4, pg_catalog.int4, pg_catalog.macaddr) IS
    'SQL edition: the version 1 UUID of ts''s microsecond plus sub_tick 100-ns ticks, clock_seq and mac';

CREATE OR REPLACE FUNCTION form_uuid_v1(ts pg_catalog.timestamptz, clock_seq pg_catalog.int4, mac pg_catalog.macaddr)
    RETURNS pg_catalog.uuid
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    -- The C edition reads the time first: a time whose microseconds since
    -- 1970 overflow is out of range before the clock sequence is checked.
    IF pg_catalog.isfinite(ts) AND ts <= pg_catalog.timestamptz '294247-01-10 04:00:54.775807+00'
       AND (clock_seq < 0 OR clock_seq > 16383) THEN
        RAISE EXCEPTION 'clock_seq % is out of range for a version 1 UUID', clock_seq
            USING ERRCODE = '22003', DETAIL = 'A version 1 UUID holds a 14-bit clock sequence, 0 to 16383.';
    END IF;
    RETURN @extschema@.locality_uuid_form_v1(ts, clock_seq, 0, mac);
END
$$;
COMMENT ON FUNCTION form_uuid_v1(pg_catalog.timestamptz, pg_catalog.int4, pg_catalog.macaddr) IS
    'Version 1 UUID a machine with this MAC would have made at ts with this clock sequence';

-- Ordinals use every clock sequence, then the 10 ticks of the microsecond.
CREATE OR REPLACE FUNCTION form_uuid_v1_nth(ts pg_catalog.timestamptz, ordinal pg_catalog.int8, mac pg_catalog.macaddr)
    RETURNS pg_catalog.uuid
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF pg_catalog.isfinite(ts) AND ts <= pg_catalog.timestamptz '294247-01-10 04:00:54.775807+00'
       AND (ordinal < 0 OR ordinal >= 163840) THEN
        RAISE EXCEPTION 'ordinal % is out of range for a version 1 UUID', ordinal
            USING ERRCODE = '22003',
                  DETAIL = 'One microsecond and node hold ordinals 0 to 163839 (16384 clock sequences times 10 ticks).';
    END IF;
    RETURN @extschema@.locality_uuid_form_v1(ts, (ordinal % 16384)::pg_catalog.int4,
                                             (ordinal / 16384)::pg_catalog.int4, mac);
END
$$;
COMMENT ON FUNCTION form_uuid_v1_nth(pg_catalog.timestamptz, pg_catalog.int8, pg_catalog.macaddr) IS
    'The ordinal-th (0..163839) distinct version 1 UUID of one microsecond and MAC';

-- Readers: NULL unless version 1 with the RFC 4122 variant (byte 6's high
-- nibble is the version, byte 8's two high bits the variant, 10), read from
-- the uuid's bytes (pg_catalog.get_byte of pg_catalog.uuid_send). The
-- ticks' microseconds since 1582-10-15 (ticks / 10) as whole seconds and
-- microseconds after it, each product exact in a double (timestamp +
-- interval, IMMUTABLE, then UTC: timestamptz + interval is STABLE and would
-- keep the reader from being inlined); written out rather than through
-- locality_uuid_from_unix_micros, whose argument here would be too costly
-- to inline twice.
CREATE OR REPLACE FUNCTION uuid_v1_timestamp(id pg_catalog.uuid) RETURNS pg_catalog.timestamptz
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT CASE WHEN ((pg_catalog.get_byte(pg_catalog.uuid_send(id), 6) OPERATOR(pg_catalog.>>) 4) OPERATOR(pg_catalog.=) 1)
             AND ((pg_catalog.get_byte(pg_catalog.uuid_send(id), 8) OPERATOR(pg_catalog.&) 192) OPERATOR(pg_catalog.=) 128) THEN
  pg_catalog.timezone(pg_catalog.interval '0', ((pg_catalog.timestamp '1582-10-15 00:00:00'
    OPERATOR(pg_catalog.+) (((('x' OPERATOR(pg_catalog.||) pg_catalog.encode(((pg_catalog.substring(pg_catalog.uuid_send(id), 7, 2)
                                                                               OPERATOR(pg_catalog.||) pg_catalog.substring(pg_catalog.uuid_send(id), 5, 2))
                                                                              OPERATOR(pg_catalog.||) pg_catalog.substring(pg_catalog.uuid_send(id), 1, 4)), 'hex'))
                              ::pg_catalog.bit(64)::pg_catalog.int8 OPERATOR(pg_catalog.&) 1152921504606846975)
                             OPERATOR(pg_catalog./) 10000000)::pg_catalog.float8
                            OPERATOR(pg_catalog.*) pg_catalog.interval '1 second'))
    OPERATOR(pg_catalog.+) ((pg_catalog.mod((('x' OPERATOR(pg_catalog.||) pg_catalog.encode(((pg_catalog.substring(pg_catalog.uuid_send(id), 7, 2)
                                                                                              OPERATOR(pg_catalog.||) pg_catalog.substring(pg_catalog.uuid_send(id), 5, 2))
                                                                                             OPERATOR(pg_catalog.||) pg_catalog.substring(pg_catalog.uuid_send(id), 1, 4)), 'hex'))
                                             ::pg_catalog.bit(64)::pg_catalog.int8 OPERATOR(pg_catalog.&) 1152921504606846975), 10000000)
                             OPERATOR(pg_catalog./) 10)::pg_catalog.float8
                            OPERATOR(pg_catalog.*) pg_catalog.interval '1 microsecond')))
END
$$;
COMMENT ON FUNCTION uuid_v1_timestamp(pg_catalog.uuid) IS
    'Time of a version 1 UUID, truncated to the microsecond; NULL for other versions';

CREATE OR REPLACE FUNCTION uuid_v1_clock_seq(id pg_catalog.uuid) RETURNS pg_catalog.int4
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT CASE WHEN ((pg_catalog.get_byte(pg_catalog.uuid_send(id), 6) OPERATOR(pg_catalog.>>) 4) OPERATOR(pg_catalog.=) 1)
             AND ((pg_catalog.get_byte(pg_catalog.uuid_send(id), 8) OPERATOR(pg_catalog.&) 192) OPERATOR(pg_catalog.=) 128) THEN
  (((pg_catalog.get_byte(pg_catalog.uuid_send(id), 8) OPERATOR(pg_catalog.&) 63) OPERATOR(pg_catalog.<<) 8) OPERATOR(pg_catalog.|) pg_catalog.get_byte(pg_catalog.uuid_send(id), 9))
END
$$;
COMMENT ON FUNCTION uuid_v1_clock_seq(pg_catalog.uuid) IS
    'Clock sequence of a version 1 UUID; NULL for other versions';

CREATE OR REPLACE FUNCTION uuid_v1_node(id pg_catalog.uuid) RETURNS pg_catalog.macaddr
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT CASE WHEN ((pg_catalog.get_byte(pg_catalog.uuid_send(id), 6) OPERATOR(pg_catalog.>>) 4) OPERATOR(pg_catalog.=) 1)
             AND ((pg_catalog.get_byte(pg_catalog.uuid_send(id), 8) OPERATOR(pg_catalog.&) 192) OPERATOR(pg_catalog.=) 128) THEN
  -- (as a macaddr8 first: its input parses hex faster than macaddr's)
  pg_catalog.encode(pg_catalog.substring(pg_catalog.uuid_send(id), 11, 6), 'hex')::pg_catalog.macaddr8::pg_catalog.macaddr
END
$$;
COMMENT ON FUNCTION uuid_v1_node(pg_catalog.uuid) IS
    'Node (MAC) of a version 1 UUID; NULL for other versions';
