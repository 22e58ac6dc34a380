-- Making ids (the counters' rules are in counters.sql). One PL/pgSQL call
-- per id: the C edition's function names are SQL wrappers the planner
-- inlines (a STRICT one only around a STRICT call, so the makers below
-- are STRICT where the wrapper is), each maker reads the clock once, draws
-- once and writes the id from two 64-bit words or hex pieces in one
-- expression. Generators are PARALLEL UNSAFE: nextval is.
--
-- The three PL/pgSQL makers are SECURITY DEFINER: they draw from the
-- counters in the private schema (counters.sql), which no caller can
-- name, and the right to make ids is EXECUTE on them (privileges.sql).
-- They have no SET search_path: it would cost a save and a restore of the
-- setting per id (about 1 us on 1.4 us; SECURITY DEFINER alone costs
-- 0.03 us: BENCHMARKS.md). So they, and the SQL bodies, are parsed under
-- the caller's search_path while they run as the owner: as in readers.sql,
-- every operator is written OPERATOR(pg_catalog.x), in parentheses, every
-- function, type and relation is schema-qualified (so nothing is looked up
-- in the caller's schemas or pg_temp), and nothing hides an operator
-- looked up by name (NULLIF, IS DISTINCT FROM, BETWEEN, IN, a simple
-- CASE). sql_edition_tenant plants a look-alike of every operator and
-- function they use and checks that none runs.

-- The C edition's errors that show a time (as its timestamptz_to_str
-- does: ISO, whatever the session's DateStyle): a time a Locality UUID or
-- a Hot Guid cannot hold, and a clock 64 or more windows behind.
CREATE OR REPLACE FUNCTION locality_uuid_time_error(ts pg_catalog.timestamptz, what pg_catalog.text)
    RETURNS pg_catalog.uuid
    LANGUAGE plpgsql STABLE PARALLEL SAFE SET datestyle = 'ISO, MDY' SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF NOT pg_catalog.isfinite(ts) THEN
        RAISE EXCEPTION 'timestamp out of range for a %', what
            USING ERRCODE = '22008', DETAIL = 'Infinite timestamps cannot be stored in an id.';
    END IF;
    IF what = 'window too old' THEN
        RAISE EXCEPTION 'the clock is 64 or more sequential windows behind the newest run'
            USING ERRCODE = '55000',
                  DETAIL = pg_catalog.format('A sequential id for %s would restart a run that is no longer known, and could repeat ids.',
                                             pg_catalog.date_trunc('milliseconds', ts)),
                  HINT = 'Sequential ids resume when the clock catches up (10 hours 40 minutes from the newest run); variable-mode ids still work. Check the system clock first: only if it is right now, and the newest run was made while it was wrongly ahead, locality_uuid_release_future_windows() releases that run.';
    END IF;
    IF what = 'Hot Guid' THEN
        RAISE EXCEPTION 'timestamp % is out of range for a Hot Guid', pg_catalog.date_trunc('second', ts)
            USING ERRCODE = '22008',
                  DETAIL = 'A Hot Guid holds whole seconds from 1970-01-01 00:00:00 UTC to 2106-02-07 06:28:15 UTC.';
    END IF;
    RAISE EXCEPTION 'timestamp % is out of range for a Locality UUID', pg_catalog.date_trunc('milliseconds', ts)
        USING ERRCODE = '22008',
              DETAIL = 'A Locality UUID holds times from 1970-01-01 00:00:00 UTC to 10889-08-02 05:31:50.655 UTC.';
END
$$;
COMMENT ON FUNCTION locality_uuid_time_error(pg_catalog.timestamptz, pg_catalog.text) IS
    'SQL edition: raises the C edition''s errors that show a time';

-- The C edition's error for a Hot Guid that cannot be made, in its order:
-- the shard key, then the time.
CREATE OR REPLACE FUNCTION locality_uuid_hot_error(shard_key pg_catalog.int8, ts pg_catalog.timestamptz)
    RETURNS pg_catalog.uuid
    LANGUAGE plpgsql STABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF shard_key < 0 OR shard_key > 4294967295 THEN
        RAISE EXCEPTION 'shard key % is out of range for a Hot Guid', shard_key
            USING ERRCODE = '22003', DETAIL = 'A Hot Guid holds an unsigned 32-bit shard key, 0 to 4294967295.';
    END IF;
    RETURN @extschema@.locality_uuid_time_error(ts, 'Hot Guid');
END
$$;
COMMENT ON FUNCTION locality_uuid_hot_error(pg_catalog.int8, pg_catalog.timestamptz) IS
    'SQL edition: raises the C edition''s error for a Hot Guid that cannot be made';

-- Exact Unix microseconds of a timestamptz from its binary form
-- (microseconds since 2000-01-01, an int8 on every major): faster than
-- locality_uuid_unix_micros' four date_part calls. The caller checks the
-- range (the addition overflows for the last 30 years an int8 holds).
CREATE OR REPLACE FUNCTION locality_uuid_micros_of(ts pg_catalog.timestamptz) RETURNS pg_catalog.int8
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT (('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.timestamptz_send(ts), 'hex'))::pg_catalog.bit(64)::pg_catalog.int8
        OPERATOR(pg_catalog.+) 946684800000000::pg_catalog.int8)
$$;
COMMENT ON FUNCTION locality_uuid_micros_of(pg_catalog.timestamptz) IS
    'SQL edition: Unix microseconds of a timestamptz from 1970 to 10889 (from its binary form)';

-- A Locality UUID from the counter as written (8 hex digits), the
-- session's pid and node value and Unix microseconds: the pid, the version
-- nibble and the node are one 48-bit number, the milliseconds another.
-- Each argument is used once, so a maker's call is inlined. PARALLEL
-- RESTRICTED: a worker's pg_backend_pid() is the worker's.
CREATE OR REPLACE FUNCTION locality_uuid_id_of(counter_hex pg_catalog.text, micros pg_catalog.int8)
    RETURNS pg_catalog.uuid
    LANGUAGE sql STABLE PARALLEL RESTRICTED AS $$
SELECT ((counter_hex
         OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(((((pg_catalog.pg_backend_pid() OPERATOR(pg_catalog.&) 65535)::pg_catalog.int8
                                                                      OPERATOR(pg_catalog.<<) 32)
                                                                     OPERATOR(pg_catalog.|) 2952790016::pg_catalog.int8)
                                                                    OPERATOR(pg_catalog.|) (@extschema@.locality_uuid_node_id() OPERATOR(pg_catalog.&) 268435455)::pg_catalog.int8)),
                                                 12, '0'))
        OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex((micros OPERATOR(pg_catalog./) 1000)), 12, '0'))::pg_catalog.uuid
$$;
COMMENT ON FUNCTION locality_uuid_id_of(pg_catalog.text, pg_catalog.int8) IS
    'SQL edition: the Locality UUID of a written counter, this session''s pid and node value, and Unix microseconds';

-- The window base of window w, remembered for the session (one MD5 per
-- window, not per id) as (w << 32) | base in the session's cache
-- (locality_uuid_session's currval, counters.sql), after the session bound
-- the counters here if it had not (its cache unset). SECURITY DEFINER:
-- setval is the owner's, and what it sets is computed here from w, never
-- given.
CREATE OR REPLACE FUNCTION locality_uuid_remember_base(w pg_catalog.int8) RETURNS pg_catalog.int8
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    remembered pg_catalog.int8;
BEGIN
    -- Windows of 48-bit milliseconds only: w << 32 of another would alias
    -- one of them (w + 2^32 wraps onto w) and remember its base for it.
    IF (w OPERATOR(pg_catalog.<) 0) OR (w OPERATOR(pg_catalog.>) 469124961) THEN
        RAISE EXCEPTION 'locality_uuid: no 10-minute window % in 48-bit milliseconds', w
            USING ERRCODE = '22003';
    END IF;
    -- The cache itself, not the hint: a hint set by hand binds nothing.
    BEGIN
        PERFORM pg_catalog.currval('@extschema@_private.locality_uuid_session');
    EXCEPTION WHEN object_not_in_prerequisite_state THEN
        PERFORM @extschema@.locality_uuid_check_home();
    END;
    remembered := (w << 32) | @extschema@.locality_uuid_window_base(w);
    PERFORM pg_catalog.setval('@extschema@_private.locality_uuid_session', remembered, true);
    RETURN remembered;
END
$$;
COMMENT ON FUNCTION locality_uuid_remember_base(pg_catalog.int8) IS
    'SQL edition: (w << 32) | locality_uuid_window_base(w), remembered as the session''s window';

-- An id of the clock's time in the given mode (NULL for NULL).
CREATE OR REPLACE FUNCTION locality_uuid_clock_id(sequential pg_catalog.bool) RETURNS pg_catalog.uuid
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE SECURITY DEFINER AS $$
DECLARE
    us pg_catalog.int8 := @extschema@.locality_uuid_micros_of(pg_catalog.clock_timestamp());
    w pg_catalog.int8;
    v pg_catalog.int8;
    -- The session's cache (counters.sql): NULL until it has bound the
    -- counters here; currval fails if the hint was set by hand.
    base pg_catalog.int8 := CASE WHEN pg_catalog.current_setting('locality_uuid_sql.session_@extschema@', true) OPERATOR(pg_catalog.=) 'on'
                                 THEN pg_catalog.currval('@extschema@_private.locality_uuid_session'::pg_catalog.regclass) END;
BEGIN
    IF NOT sequential THEN
        IF base IS NULL THEN
            PERFORM @extschema@.locality_uuid_check_home();
        END IF;
        RETURN @extschema@.locality_uuid_id_of(pg_catalog.reverse(pg_catalog.lpad(pg_catalog.to_hex(
                   ((@extschema@.locality_uuid_variable_start()
                     OPERATOR(pg_catalog.+) (((pg_catalog.nextval('@extschema@_private.locality_uuid_variable_seq') OPERATOR(pg_catalog.+) 1)
                                              OPERATOR(pg_catalog.&) 4294967295) OPERATOR(pg_catalog.*) 198491317))
                    OPERATOR(pg_catalog.&) 4294967295)), 8, '0')), us);
    END IF;
    w := (us OPERATOR(pg_catalog./) 600000000);
    IF base IS NULL OR ((base OPERATOR(pg_catalog.>>) 32) OPERATOR(pg_catalog.<>) w) THEN
        base := @extschema@.locality_uuid_remember_base(w);
    END IF;
    v := pg_catalog.nextval((@extschema@.locality_uuid_runs())[(pg_catalog.mod(w, 64::pg_catalog.int8)::pg_catalog.int4 OPERATOR(pg_catalog.+) 1)]);
    IF ((v OPERATOR(pg_catalog.>>) 32) OPERATOR(pg_catalog.<>) (w OPERATOR(pg_catalog.+) 1))
       OR ((v OPERATOR(pg_catalog.&) 4294967295) OPERATOR(pg_catalog.>=) 2147483648) THEN
        v := @extschema@.locality_uuid_run_place(@extschema@.locality_uuid_from_unix_micros(us), w, v);
    END IF;
    RETURN @extschema@.locality_uuid_id_of(
        pg_catalog.lpad(pg_catalog.to_hex((((base OPERATOR(pg_catalog.+) 1) OPERATOR(pg_catalog.+) (v OPERATOR(pg_catalog.&) 4294967295))
                                           OPERATOR(pg_catalog.&) 4294967295)), 8, '0'), us);
END
$$;
COMMENT ON FUNCTION locality_uuid_clock_id(pg_catalog.bool) IS
    'SQL edition: a Locality UUID of the clock''s time, in the given mode';

-- An id carrying time ts (floored to milliseconds) in the given mode.
CREATE OR REPLACE FUNCTION locality_uuid_given_id(ts pg_catalog.timestamptz, sequential pg_catalog.bool)
    RETURNS pg_catalog.uuid
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE SECURITY DEFINER AS $$
DECLARE
    -- NULL for a time out of the range, checked before the microseconds
    -- are computed.
    us pg_catalog.int8 := CASE WHEN (ts OPERATOR(pg_catalog.>=) pg_catalog.timestamptz '1970-01-01 00:00:00+00')
                                    AND (ts OPERATOR(pg_catalog.<) pg_catalog.timestamptz '10889-08-02 05:31:50.656+00')
                               THEN @extschema@.locality_uuid_micros_of(ts) END;
    w pg_catalog.int8;
    -- The session's cache, as in locality_uuid_clock_id.
    base pg_catalog.int8 := CASE WHEN pg_catalog.current_setting('locality_uuid_sql.session_@extschema@', true) OPERATOR(pg_catalog.=) 'on'
                                 THEN pg_catalog.currval('@extschema@_private.locality_uuid_session'::pg_catalog.regclass) END;
BEGIN
    IF us IS NULL THEN
        RETURN @extschema@.locality_uuid_time_error(ts, 'Locality UUID');
    END IF;
    IF base IS NULL THEN
        PERFORM @extschema@.locality_uuid_check_home();
    END IF;
    IF NOT sequential THEN
        RETURN @extschema@.locality_uuid_id_of(pg_catalog.reverse(pg_catalog.lpad(pg_catalog.to_hex(
                   ((@extschema@.locality_uuid_variable_start()
                     OPERATOR(pg_catalog.+) (((pg_catalog.nextval('@extschema@_private.locality_uuid_variable_seq') OPERATOR(pg_catalog.+) 1)
                                              OPERATOR(pg_catalog.&) 4294967295) OPERATOR(pg_catalog.*) 198491317))
                    OPERATOR(pg_catalog.&) 4294967295)), 8, '0')), us);
    END IF;
    w := (us OPERATOR(pg_catalog./) 600000000);
    IF base IS NULL OR ((base OPERATOR(pg_catalog.>>) 32) OPERATOR(pg_catalog.<>) w) THEN
        base := @extschema@.locality_uuid_remember_base(w);
    END IF;
    RETURN @extschema@.locality_uuid_id_of(pg_catalog.lpad(pg_catalog.to_hex(
               (((base OPERATOR(pg_catalog.+) 2147483649)
                 OPERATOR(pg_catalog.+) (pg_catalog.nextval('@extschema@_private.locality_uuid_at_seq') OPERATOR(pg_catalog.&) 2147483647::pg_catalog.int8))
                OPERATOR(pg_catalog.&) 4294967295)), 8, '0'), us);
END
$$;
COMMENT ON FUNCTION locality_uuid_given_id(pg_catalog.timestamptz, pg_catalog.bool) IS
    'SQL edition: a Locality UUID carrying time ts, in the given mode';

-- The slow path of a sequential clock id whose draw v from window w's
-- slot is not a place in w's run. The slot holds an earlier window: w
-- takes it over, one caller at a time: the first that still finds the
-- earlier window sets the slot to w's run start (locality_uuid_run_start)
-- and takes that place, a later one the next place. The slot holds a later
-- window: 55000. The run is full: 54000.
-- SECURITY DEFINER: the run's sequence is the owner's alone (roles that
-- make ids hold no privilege on it: they could set a run back). Any role
-- may call it, so it acts only for a caller that drew v from w's slot
-- itself: v must be this session's currval of that sequence (set only by
-- the makers' draws), and w may not be ahead of the clock (no caller
-- pushes a run into the future). Takers wait for each other on a SHARE UPDATE EXCLUSIVE
-- lock of locality_uuid_lock, a view no other role can lock in a
-- conflicting mode (node.sql, locality_uuid_bind_here, says why that mode;
-- advisory locks, which any role can take, are not used), taken in a
-- block that always ends in an error it catches: the lock goes at once,
-- the sequence stays set (sequences are not transactional), and a cancel
-- or a timeout at any point leaves no lock behind.
CREATE OR REPLACE FUNCTION locality_uuid_run_place(ts pg_catalog.timestamptz, w pg_catalog.int8, v pg_catalog.int8)
    RETURNS pg_catalog.int8
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp SET lock_timeout = '10s' AS $$
DECLARE
    run pg_catalog.regclass := (@extschema@.locality_uuid_runs())[pg_catalog.mod(w, 64::pg_catalog.int8)::pg_catalog.int4 + 1];
BEGIN
    IF w IS NULL OR v IS NULL OR w < 0
       OR w > @extschema@.locality_uuid_unix_micros(pg_catalog.clock_timestamp()) / 600000000 THEN
        RAISE EXCEPTION 'window % is not a window of the clock', w USING ERRCODE = '22023';
    END IF;
    IF v <> pg_catalog.currval(run) THEN
        RAISE EXCEPTION 'permission denied for the sequential run of window %', w
            USING ERRCODE = '42501', DETAIL = 'Only a session that drew the value from the run itself may take it over.';
    END IF;
    IF v >> 32 < w + 1 THEN
        BEGIN
            LOCK TABLE @extschema@_private.locality_uuid_lock IN SHARE UPDATE EXCLUSIVE MODE;
            v := pg_catalog.nextval(run);
            IF v >> 32 < w + 1 THEN
                v := ((w + 1) << 32)
                     | (coalesce(pg_catalog.pg_sequence_last_value('@extschema@_private.locality_uuid_run_start'), 0) & 16777215::pg_catalog.int8);
                PERFORM pg_catalog.setval(run, v, true);
            END IF;
            RAISE SQLSTATE 'LU001';  -- leaves the block: its lock goes, the slot stays set
        EXCEPTION WHEN SQLSTATE 'LU001' THEN
            NULL;
        END;
    END IF;
    IF v >> 32 > w + 1 THEN
        PERFORM @extschema@.locality_uuid_time_error(ts, 'window too old');
    END IF;
    IF (v & 4294967295) >= 2147483648 THEN
        RAISE EXCEPTION 'cannot make more than 2147483648 sequential ids in one 10-minute window'
            USING ERRCODE = '54000',
                  DETAIL = 'The window''s run has no place left: it made 2147483648 ids, or its run was closed when a forward clock glitch was released.',
                  HINT = 'The next window starts a new run.';
    END IF;
    RETURN v;
END
$$;
COMMENT ON FUNCTION locality_uuid_run_place(pg_catalog.timestamptz, pg_catalog.int8, pg_catalog.int8) IS
    'SQL edition: the place in window w''s sequential run for a draw v that is not one (takeover, or 55000 / 54000)';

-- Hot Guids (src/core/hot_guid.hpp's layout): the second, machine bytes 1
-- and 0, pid high byte, machine byte 2, pid low byte, the draw's low 24
-- bits, the shard key little-endian. last_second: the clock's ids end one
-- second before ids for given times, as in the C edition.
CREATE OR REPLACE FUNCTION locality_uuid_hot_make(shard_key pg_catalog.int8, ts pg_catalog.timestamptz,
                                                  last_second pg_catalog.int8)
    RETURNS pg_catalog.uuid
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE SECURITY DEFINER AS $$
DECLARE
    -- Unix seconds; NULL out of range (checked before they are computed).
    seconds pg_catalog.int8 := CASE WHEN (ts OPERATOR(pg_catalog.>=) pg_catalog.timestamptz '1970-01-01 00:00:00+00')
                                         AND (ts OPERATOR(pg_catalog.<) pg_catalog.timestamptz '2107-01-01 00:00:00+00')
                                    THEN (@extschema@.locality_uuid_micros_of(ts) OPERATOR(pg_catalog./) 1000000) END;
BEGIN
    IF (shard_key OPERATOR(pg_catalog.<) 0) OR (shard_key OPERATOR(pg_catalog.>) 4294967295) OR seconds IS NULL
       OR (seconds OPERATOR(pg_catalog.>) last_second) THEN
        RETURN @extschema@.locality_uuid_hot_error(shard_key, ts);
    END IF;
    -- The session's cache, as in locality_uuid_clock_id.
    IF (CASE WHEN COALESCE(pg_catalog.current_setting('locality_uuid_sql.session_@extschema@', true) OPERATOR(pg_catalog.<>) 'on', true) THEN true
             ELSE pg_catalog.currval('@extschema@_private.locality_uuid_session'::pg_catalog.regclass) IS NULL END) THEN
        PERFORM @extschema@.locality_uuid_check_home();
    END IF;
    -- The machine bytes are constants (hot_guid_machine_id() is inlined);
    -- the key's four bytes are reversed as a number, not as text.
    RETURN (((((pg_catalog.lpad(pg_catalog.to_hex(seconds), 8, '0')
                OPERATOR(pg_catalog.||) pg_catalog.substr(@extschema@.hot_guid_machine_id(), 3, 2))
               OPERATOR(pg_catalog.||) pg_catalog.substr(@extschema@.hot_guid_machine_id(), 1, 2))
              OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(((pg_catalog.pg_backend_pid() OPERATOR(pg_catalog.>>) 8) OPERATOR(pg_catalog.&) 255)), 2, '0'))
             OPERATOR(pg_catalog.||) pg_catalog.substr(@extschema@.hot_guid_machine_id(), 5, 2))
            OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(
                (((((((pg_catalog.pg_backend_pid() OPERATOR(pg_catalog.&) 255)::pg_catalog.int8 OPERATOR(pg_catalog.<<) 56)
                     OPERATOR(pg_catalog.|) ((pg_catalog.nextval('@extschema@_private.locality_uuid_hot_seq') OPERATOR(pg_catalog.&) 16777215::pg_catalog.int8)
                                             OPERATOR(pg_catalog.<<) 32))
                    OPERATOR(pg_catalog.|) ((shard_key OPERATOR(pg_catalog.&) 255::pg_catalog.int8) OPERATOR(pg_catalog.<<) 24))
                   OPERATOR(pg_catalog.|) (((shard_key OPERATOR(pg_catalog.>>) 8) OPERATOR(pg_catalog.&) 255::pg_catalog.int8) OPERATOR(pg_catalog.<<) 16))
                  OPERATOR(pg_catalog.|) (((shard_key OPERATOR(pg_catalog.>>) 16) OPERATOR(pg_catalog.&) 255::pg_catalog.int8) OPERATOR(pg_catalog.<<) 8))
                 OPERATOR(pg_catalog.|) (shard_key OPERATOR(pg_catalog.>>) 24))), 16, '0'))::pg_catalog.uuid;
END
$$;
COMMENT ON FUNCTION locality_uuid_hot_make(pg_catalog.int8, pg_catalog.timestamptz, pg_catalog.int8) IS
    'SQL edition: a Hot Guid of ts''s second (at most last_second) carrying shard_key';

-- The C edition's names and signatures, inlined into the caller's query.
-- STRICT ones call STRICT makers (NULL gives NULL); those that read the
-- mode from locality_uuid.sequential (coalesce is not strict) are not
-- STRICT, and still give NULL for a NULL time.

CREATE OR REPLACE FUNCTION locality_uuid() RETURNS pg_catalog.uuid
    LANGUAGE sql VOLATILE PARALLEL UNSAFE AS $$
SELECT @extschema@.locality_uuid_clock_id(coalesce(CASE WHEN (pg_catalog.current_setting('locality_uuid.sequential', true) OPERATOR(pg_catalog.=) '')
                                                        THEN NULL ELSE pg_catalog.current_setting('locality_uuid.sequential', true) END,
                                                   'off')::pg_catalog.bool)
$$;
COMMENT ON FUNCTION locality_uuid() IS
    'New Locality UUID, in the mode of locality_uuid.sequential';

CREATE OR REPLACE FUNCTION locality_uuid(sequential pg_catalog.bool) RETURNS pg_catalog.uuid
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE AS $$
SELECT @extschema@.locality_uuid_clock_id(sequential)
$$;
COMMENT ON FUNCTION locality_uuid(pg_catalog.bool) IS
    'New Locality UUID in sequential mode (true) or variable mode (false)';

CREATE OR REPLACE FUNCTION locality_uuid_at(ts pg_catalog.timestamptz, sequential pg_catalog.bool) RETURNS pg_catalog.uuid
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE AS $$
SELECT @extschema@.locality_uuid_given_id(ts, sequential)
$$;
COMMENT ON FUNCTION locality_uuid_at(pg_catalog.timestamptz, pg_catalog.bool) IS
    'New Locality UUID carrying time ts (for backfills), in the given mode';

CREATE OR REPLACE FUNCTION locality_uuid_at(ts pg_catalog.timestamptz) RETURNS pg_catalog.uuid
    LANGUAGE sql VOLATILE PARALLEL UNSAFE AS $$
SELECT @extschema@.locality_uuid_given_id(ts, coalesce(CASE WHEN (pg_catalog.current_setting('locality_uuid.sequential', true) OPERATOR(pg_catalog.=) '')
                                                            THEN NULL ELSE pg_catalog.current_setting('locality_uuid.sequential', true) END,
                                                       'off')::pg_catalog.bool)
$$;
COMMENT ON FUNCTION locality_uuid_at(pg_catalog.timestamptz) IS
    'New Locality UUID carrying time ts (for backfills), mode from locality_uuid.sequential';

CREATE OR REPLACE FUNCTION locality_uuid(ts pg_catalog.timestamptz) RETURNS pg_catalog.uuid
    LANGUAGE sql VOLATILE PARALLEL UNSAFE AS $$
SELECT @extschema@.locality_uuid_at(ts)
$$;
COMMENT ON FUNCTION locality_uuid(pg_catalog.timestamptz) IS
    'New Locality UUID carrying time ts (for backfills), mode from locality_uuid.sequential';

CREATE OR REPLACE FUNCTION locality_uuid(ts pg_catalog.timestamptz, sequential pg_catalog.bool) RETURNS pg_catalog.uuid
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE AS $$
SELECT @extschema@.locality_uuid_given_id(ts, sequential)
$$;
COMMENT ON FUNCTION locality_uuid(pg_catalog.timestamptz, pg_catalog.bool) IS
    'New Locality UUID carrying time ts, in the given mode';

CREATE OR REPLACE FUNCTION locality_uuid_use_sequential_ids() RETURNS pg_catalog.void
    LANGUAGE sql VOLATILE PARALLEL UNSAFE AS $$
SELECT pg_catalog.set_config('locality_uuid.sequential', 'on', false); SELECT
$$;
COMMENT ON FUNCTION locality_uuid_use_sequential_ids() IS
    'SET locality_uuid.sequential = on for this session';

CREATE OR REPLACE FUNCTION locality_uuid_use_variable_ids() RETURNS pg_catalog.void
    LANGUAGE sql VOLATILE PARALLEL UNSAFE AS $$
SELECT pg_catalog.set_config('locality_uuid.sequential', 'off', false); SELECT
$$;
COMMENT ON FUNCTION locality_uuid_use_variable_ids() IS
    'SET locality_uuid.sequential = off for this session';

CREATE OR REPLACE FUNCTION hot_guid(shard_key pg_catalog.int8) RETURNS pg_catalog.uuid
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE AS $$
SELECT @extschema@.locality_uuid_hot_make(shard_key, pg_catalog.clock_timestamp(), 4294967294)
$$;
COMMENT ON FUNCTION hot_guid(pg_catalog.int8) IS
    'New Hot Guid for the current second carrying shard_key (0 to 4294967295)';

CREATE OR REPLACE FUNCTION hot_guid(shard_key pg_catalog.int8, ts pg_catalog.timestamptz) RETURNS pg_catalog.uuid
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE AS $$
SELECT @extschema@.locality_uuid_hot_make(shard_key, ts, 4294967295)
$$;
COMMENT ON FUNCTION hot_guid(pg_catalog.int8, pg_catalog.timestamptz) IS
    'New Hot Guid for time ts (whole seconds, for backfills) carrying shard_key';

-- Status, with the C edition's names and comments: the counters are
-- always server-wide here (sequences), and the node value is a setting
-- (locality_uuid_set_node()).
CREATE OR REPLACE FUNCTION locality_uuid_counter_scope() RETURNS pg_catalog.text
    LANGUAGE sql STABLE PARALLEL SAFE AS $$
SELECT 'server'::pg_catalog.text
$$;
COMMENT ON FUNCTION locality_uuid_counter_scope() IS
    'server: one shared-memory counter (preloaded); backend: one counter per backend';

CREATE OR REPLACE FUNCTION locality_uuid_node_source() RETURNS pg_catalog.text
    LANGUAGE sql STABLE PARALLEL SAFE AS $$
SELECT 'setting'::pg_catalog.text
$$;
COMMENT ON FUNCTION locality_uuid_node_source() IS
    'Where the node value comes from: setting, mac <interface> or none';
