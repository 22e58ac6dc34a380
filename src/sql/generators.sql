-- Making ids in the SQL edition. The C edition's server-wide counters live
-- in shared memory with reservations in a state file and WAL; here they
-- are sequences, which PostgreSQL already makes durable (WAL, crash,
-- failover, point-in-time recovery, pg_upgrade, pg_dump). The counter rules
-- are the C edition's (src/core/generator.hpp, hot_guid_generator.hpp):
--
--  * variable mode: the n-th draw of locality_uuid_variable_seq has counter
--    variable_start + (n + 1) * 198491317 mod 2^32;
--  * sequential mode, clock time: window w keeps its run in sequence slot
--    w mod 64 (locality_uuid_run_00 .. _63), whose value is
--    (w + 1) * 2^32 + i: the i-th id of w has counter base(w) + 1 + i,
--    i < 2^31 (54000 past that). A slot that holds a later window refuses
--    with 55000 (the clock is 64 or more windows behind), never restarts;
--    a slot that holds an earlier window is taken over under an advisory
--    lock, by one caller;
--  * sequential mode, given time: base(w) + 2^31 + 1 + (n mod 2^31) with n
--    from locality_uuid_at_seq;
--  * Hot Guids: the 24-bit counter is the draw of locality_uuid_hot_seq mod
--    2^24, and the second is the clock's (README: what differs).
--
-- The node value, the Hot Guid machine name and bytes and the variable
-- start are constants in functions of their own (locality_uuid_node_id(),
-- hot_guid_machine_name(), hot_guid_machine_id(),
-- locality_uuid_variable_start()), which the planner inlines into every
-- generator's cached plan: no table read per id. The install gives them
-- random values, once; locality_uuid_set_node() writes new ones (and a
-- changed function invalidates the plans that inlined it). Generators are
-- PARALLEL UNSAFE: nextval is.

CREATE SEQUENCE IF NOT EXISTS locality_uuid_variable_seq AS pg_catalog.int8 MINVALUE 0 START 0 CACHE 256;
CREATE SEQUENCE IF NOT EXISTS locality_uuid_at_seq AS pg_catalog.int8 MINVALUE 0 START 0 CACHE 256;
CREATE SEQUENCE IF NOT EXISTS locality_uuid_hot_seq AS pg_catalog.int8 MINVALUE 0 START 0 CACHE 256;
-- The sequential runs: one sequence per slot, CACHE 1, since the ids of a
-- window count up server-wide.
DO $slots$
BEGIN
    FOR slot IN 0..63 LOOP
        EXECUTE pg_catalog.format('CREATE SEQUENCE IF NOT EXISTS %I AS pg_catalog.int8 MINVALUE 0 START 0 CACHE 1',
                                  'locality_uuid_run_' || pg_catalog.lpad(slot::pg_catalog.text, 2, '0'));
    END LOOP;
END
$slots$;

-- The sequential runs' sequences, in slot order, for nextval by oid (no
-- name lookup per id).
CREATE OR REPLACE FUNCTION locality_uuid_runs() RETURNS pg_catalog.regclass[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT ARRAY['@extschema@.locality_uuid_run_00', '@extschema@.locality_uuid_run_01', '@extschema@.locality_uuid_run_02', '@extschema@.locality_uuid_run_03',
             '@extschema@.locality_uuid_run_04', '@extschema@.locality_uuid_run_05', '@extschema@.locality_uuid_run_06', '@extschema@.locality_uuid_run_07',
             '@extschema@.locality_uuid_run_08', '@extschema@.locality_uuid_run_09', '@extschema@.locality_uuid_run_10', '@extschema@.locality_uuid_run_11',
             '@extschema@.locality_uuid_run_12', '@extschema@.locality_uuid_run_13', '@extschema@.locality_uuid_run_14', '@extschema@.locality_uuid_run_15',
             '@extschema@.locality_uuid_run_16', '@extschema@.locality_uuid_run_17', '@extschema@.locality_uuid_run_18', '@extschema@.locality_uuid_run_19',
             '@extschema@.locality_uuid_run_20', '@extschema@.locality_uuid_run_21', '@extschema@.locality_uuid_run_22', '@extschema@.locality_uuid_run_23',
             '@extschema@.locality_uuid_run_24', '@extschema@.locality_uuid_run_25', '@extschema@.locality_uuid_run_26', '@extschema@.locality_uuid_run_27',
             '@extschema@.locality_uuid_run_28', '@extschema@.locality_uuid_run_29', '@extschema@.locality_uuid_run_30', '@extschema@.locality_uuid_run_31',
             '@extschema@.locality_uuid_run_32', '@extschema@.locality_uuid_run_33', '@extschema@.locality_uuid_run_34', '@extschema@.locality_uuid_run_35',
             '@extschema@.locality_uuid_run_36', '@extschema@.locality_uuid_run_37', '@extschema@.locality_uuid_run_38', '@extschema@.locality_uuid_run_39',
             '@extschema@.locality_uuid_run_40', '@extschema@.locality_uuid_run_41', '@extschema@.locality_uuid_run_42', '@extschema@.locality_uuid_run_43',
             '@extschema@.locality_uuid_run_44', '@extschema@.locality_uuid_run_45', '@extschema@.locality_uuid_run_46', '@extschema@.locality_uuid_run_47',
             '@extschema@.locality_uuid_run_48', '@extschema@.locality_uuid_run_49', '@extschema@.locality_uuid_run_50', '@extschema@.locality_uuid_run_51',
             '@extschema@.locality_uuid_run_52', '@extschema@.locality_uuid_run_53', '@extschema@.locality_uuid_run_54', '@extschema@.locality_uuid_run_55',
             '@extschema@.locality_uuid_run_56', '@extschema@.locality_uuid_run_57', '@extschema@.locality_uuid_run_58', '@extschema@.locality_uuid_run_59',
             '@extschema@.locality_uuid_run_60', '@extschema@.locality_uuid_run_61', '@extschema@.locality_uuid_run_62', '@extschema@.locality_uuid_run_63'
            ]::pg_catalog.regclass[]
$$;
COMMENT ON FUNCTION locality_uuid_runs() IS
    'SQL edition: the 64 sequences of the sequential runs, slot 0 first';

-- Where this database is: "system identifier/database oid" (the system
-- part empty for a role that may not read pg_control_system()). A copy of
-- the database (a dump restored elsewhere, CREATE DATABASE from it as a
-- template, pg_upgrade) is somewhere else; a clone of the whole cluster (a
-- snapshot, a branch) and a standby are not told apart from it.
CREATE OR REPLACE FUNCTION locality_uuid_here() RETURNS pg_catalog.text
    LANGUAGE plpgsql STABLE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    system_id pg_catalog.text := '';
BEGIN
    IF pg_catalog.has_function_privilege('pg_catalog.pg_control_system()', 'EXECUTE') THEN
        BEGIN
            SELECT s.system_identifier::pg_catalog.text INTO system_id FROM pg_catalog.pg_control_system() s;
        EXCEPTION WHEN OTHERS THEN
            system_id := '';  -- a service that refuses it: the database's oid alone
        END;
    END IF;
    RETURN system_id || '/' || (SELECT d.oid::pg_catalog.text FROM pg_catalog.pg_database d
                                WHERE d.datname = pg_catalog.current_database());
END
$$;
COMMENT ON FUNCTION locality_uuid_here() IS
    'SQL edition: this database''s place, system identifier/database oid, to tell a copy from the database its node value was set in';

-- Once per session, at its first id: a WARNING when this database is not
-- where its node value was set (locality_uuid_node_home(), written by
-- locality_uuid_set_node), since a copy makes ids with its original's
-- node value and counters. The system parts are compared only when both
-- are known. Never an error: a check that fails says so in a WARNING, and
-- the id is made.
CREATE OR REPLACE FUNCTION locality_uuid_check_home() RETURNS pg_catalog.void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    home pg_catalog.text[];
    here pg_catalog.text[];
BEGIN
    BEGIN
        home := pg_catalog.string_to_array(@extschema@.locality_uuid_node_home(), '/');
        here := pg_catalog.string_to_array(@extschema@.locality_uuid_here(), '/');
        IF home[2] IS DISTINCT FROM here[2] OR (home[1] <> '' AND here[1] <> '' AND home[1] <> here[1]) THEN
            RAISE WARNING 'locality_uuid: this database is a copy of the one its node value % was set in',
                          @extschema@.locality_uuid_node_id()
                USING DETAIL = pg_catalog.format('The node value was set in database %s of system %s; this is database %s of system %s. A copy makes ids with the node value and counters of its original, which can repeat them.',
                                                 home[2], coalesce(NULLIF(home[1], ''), 'unknown'),
                                                 here[2], coalesce(NULLIF(here[1], ''), 'unknown')),
                      HINT = 'Give this database its own node value with locality_uuid_set_node(node_id, machine_name); after pg_upgrade, or to keep the value, set the same value again.';
        END IF;
    EXCEPTION WHEN OTHERS THEN
        RAISE WARNING 'locality_uuid: could not tell whether this database is a copy: %', SQLERRM;
    END;
    PERFORM pg_catalog.set_config('locality_uuid_sql.home_checked', 'on', false);
END
$$;
COMMENT ON FUNCTION locality_uuid_check_home() IS
    'SQL edition: warns, once per session, when this database is a copy of the one its node value was set in';

-- The node value and the Hot Guid machine name of this database, as
-- constant functions (the C edition's names and comments for the first
-- three). Only the functions' owner can run it, and whom it grants it to
-- (the extension grants it to the role that created it). SECURITY DEFINER:
-- a trusted extension's functions belong to the bootstrap superuser, and
-- only their owner can replace them; what it writes is a checked integer
-- and two quoted literals.
CREATE OR REPLACE FUNCTION locality_uuid_set_node(node_id pg_catalog.int4, machine_name pg_catalog.text)
    RETURNS pg_catalog.void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF node_id IS NULL OR node_id < 0 OR node_id > 268435455 THEN
        RAISE EXCEPTION 'node_id % is out of range for a Locality UUID', node_id
            USING ERRCODE = '22003', DETAIL = 'The node value has 28 bits: 0 to 268435455.';
    END IF;
    IF machine_name IS NULL OR machine_name = '' THEN
        RAISE EXCEPTION 'machine_name must not be empty' USING ERRCODE = '22023';
    END IF;
    EXECUTE pg_catalog.format($f$
        CREATE OR REPLACE FUNCTION @extschema@.locality_uuid_node_id() RETURNS pg_catalog.int4
            LANGUAGE sql STABLE PARALLEL SAFE AS 'SELECT %s';
        COMMENT ON FUNCTION @extschema@.locality_uuid_node_id() IS
            '28-bit node value this backend writes into Locality UUIDs';
        CREATE OR REPLACE FUNCTION @extschema@.hot_guid_machine_name() RETURNS pg_catalog.text
            LANGUAGE sql STABLE PARALLEL SAFE AS %L;
        COMMENT ON FUNCTION @extschema@.hot_guid_machine_name() IS
            'Machine name whose MD5 this server writes into Hot Guids';
        CREATE OR REPLACE FUNCTION @extschema@.hot_guid_machine_id() RETURNS pg_catalog.text
            LANGUAGE sql STABLE PARALLEL SAFE AS %L;
        COMMENT ON FUNCTION @extschema@.hot_guid_machine_id() IS
            'Machine bytes this server writes into Hot Guids, as hex';
        CREATE OR REPLACE FUNCTION @extschema@.locality_uuid_node_home() RETURNS pg_catalog.text
            LANGUAGE sql IMMUTABLE PARALLEL SAFE AS %L;
        COMMENT ON FUNCTION @extschema@.locality_uuid_node_home() IS
            'SQL edition: where the node value was set, system identifier/database oid';$f$,
        node_id, 'SELECT ' || pg_catalog.quote_literal(machine_name) || '::pg_catalog.text',
        'SELECT ' || pg_catalog.quote_literal(pg_catalog.left(@extschema@.locality_uuid_md5(machine_name), 6)) || '::pg_catalog.text',
        'SELECT ' || pg_catalog.quote_literal(@extschema@.locality_uuid_here()) || '::pg_catalog.text');
END
$$;
COMMENT ON FUNCTION locality_uuid_set_node(pg_catalog.int4, pg_catalog.text) IS
    'SQL edition: sets the node value and Hot Guid machine name this database writes into ids';
REVOKE EXECUTE ON FUNCTION locality_uuid_set_node(pg_catalog.int4, pg_catalog.text) FROM PUBLIC;

-- A new install draws a random node value, machine name and variable
-- start; a re-run keeps them.
DO $install$
BEGIN
    IF pg_catalog.to_regprocedure('@extschema@.locality_uuid_node_id()') IS NULL THEN
        PERFORM @extschema@.locality_uuid_set_node(n, 'locality-' || pg_catalog.lpad(pg_catalog.to_hex(n), 7, '0'))
        FROM (SELECT 1 + pg_catalog.floor(pg_catalog.random() * 268435455::pg_catalog.float8)::pg_catalog.int4 AS n) AS random_node;
    ELSIF pg_catalog.to_regprocedure('@extschema@.locality_uuid_node_home()') IS NULL THEN
        -- An install from before the copy check: its node value was set here.
        PERFORM @extschema@.locality_uuid_set_node(@extschema@.locality_uuid_node_id(), @extschema@.hot_guid_machine_name());
    END IF;
    -- Ids for given times and Hot Guids start at random draws, as the C
    -- edition's do: two new databases do not draw the same series.
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_sequences
                   WHERE schemaname = '@extschema@' AND sequencename = 'locality_uuid_hot_seq' AND last_value IS NOT NULL)
       AND pg_catalog.to_regprocedure('@extschema@.locality_uuid_variable_start()') IS NULL THEN
        PERFORM pg_catalog.setval('@extschema@.locality_uuid_at_seq', pg_catalog.floor(pg_catalog.random() * 2147483648::pg_catalog.float8)::pg_catalog.int8, false),
                pg_catalog.setval('@extschema@.locality_uuid_hot_seq', pg_catalog.floor(pg_catalog.random() * 1099511627776::pg_catalog.float8)::pg_catalog.int8, false);
    END IF;
    IF pg_catalog.to_regprocedure('@extschema@.locality_uuid_variable_start()') IS NULL THEN
        EXECUTE pg_catalog.format($f$
            CREATE FUNCTION @extschema@.locality_uuid_variable_start() RETURNS pg_catalog.int8
                LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT %s';
            COMMENT ON FUNCTION @extschema@.locality_uuid_variable_start() IS
                'SQL edition: where this database''s variable-mode counter starts (random at install)';$f$,
            pg_catalog.floor(pg_catalog.random() * 4294967296::pg_catalog.float8)::pg_catalog.int8);
    END IF;
END
$install$;

-- The C edition's errors that show a time (as its timestamptz_to_str
-- does: ISO, whatever the session's DateStyle): a time a Locality UUID or
-- a Hot Guid cannot hold, and a clock 64 or more windows behind.
CREATE OR REPLACE FUNCTION locality_uuid_time_error(ts pg_catalog.timestamptz, what pg_catalog.text)
    RETURNS pg_catalog.uuid
    LANGUAGE plpgsql STABLE SET datestyle = 'ISO, MDY' SET search_path = pg_catalog, pg_temp AS $$
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

-- The window base of window w, remembered for the session (one MD5 per
-- window, not per id) in two settings of its own: the check is one
-- inlined expression, the PL/pgSQL call only on a new window.
CREATE OR REPLACE FUNCTION locality_uuid_remember_base(w pg_catalog.int8) RETURNS pg_catalog.int8
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    base pg_catalog.int8 := @extschema@.locality_uuid_window_base(w);
BEGIN
    PERFORM pg_catalog.set_config('locality_uuid_sql.window_base', base::pg_catalog.text, false),
            pg_catalog.set_config('locality_uuid_sql.window', w::pg_catalog.text, false);
    RETURN base;
END
$$;
COMMENT ON FUNCTION locality_uuid_remember_base(pg_catalog.int8) IS
    'SQL edition: locality_uuid_window_base(w), remembered as the session''s window';

CREATE OR REPLACE FUNCTION locality_uuid_cached_base(w pg_catalog.int8) RETURNS pg_catalog.int8
    LANGUAGE sql VOLATILE PARALLEL UNSAFE AS $$
SELECT CASE WHEN pg_catalog.current_setting('locality_uuid_sql.window', true) = w::pg_catalog.text
            THEN pg_catalog.current_setting('locality_uuid_sql.window_base')::pg_catalog.int8
            ELSE @extschema@.locality_uuid_remember_base(w) END
$$;
COMMENT ON FUNCTION locality_uuid_cached_base(pg_catalog.int8) IS
    'SQL edition: locality_uuid_window_base(w), computed once per window per session';

-- The id for time ts (floored to milliseconds), in the given mode;
-- given_time picks the given-time sequential counter.
CREATE OR REPLACE FUNCTION locality_uuid_make(ts pg_catalog.timestamptz, sequential pg_catalog.bool,
                                              given_time pg_catalog.bool)
    RETURNS pg_catalog.uuid
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE AS $$
DECLARE
    -- NULL for a time out of the range (checked before the microseconds
    -- since 1970 are computed, which could overflow).
    us pg_catalog.int8 := CASE WHEN pg_catalog.isfinite(ts) AND ts >= pg_catalog.timestamptz '1970-01-01 00:00:00+00'
                                    AND ts < pg_catalog.timestamptz '10889-08-02 05:31:50.656+00'
                               THEN @extschema@.locality_uuid_unix_micros(ts) END;
    w pg_catalog.int8;
    v pg_catalog.int8;
BEGIN
    IF pg_catalog.current_setting('locality_uuid_sql.home_checked', true) IS DISTINCT FROM 'on' THEN
        PERFORM @extschema@.locality_uuid_check_home();
    END IF;
    IF us IS NULL THEN
        RETURN @extschema@.locality_uuid_time_error(ts, 'Locality UUID');
    END IF;
    IF NOT sequential THEN
        RETURN @extschema@.locality_uuid_pack_hex(
            pg_catalog.reverse(pg_catalog.lpad(pg_catalog.to_hex(
                (@extschema@.locality_uuid_variable_start()
                 + ((pg_catalog.nextval('@extschema@.locality_uuid_variable_seq') + 1) & 4294967295) * 198491317)
                & 4294967295), 8, '0')),
            pg_catalog.pg_backend_pid(), @extschema@.locality_uuid_node_id(), us / 1000);
    END IF;
    w := us / 600000000;
    IF given_time THEN
        RETURN @extschema@.locality_uuid_pack_hex(
            pg_catalog.lpad(pg_catalog.to_hex(
                (@extschema@.locality_uuid_cached_base(w) + 2147483649
                 + (pg_catalog.nextval('@extschema@.locality_uuid_at_seq') & 2147483647::pg_catalog.int8)) & 4294967295), 8, '0'),
            pg_catalog.pg_backend_pid(), @extschema@.locality_uuid_node_id(), us / 1000);
    END IF;
    v := pg_catalog.nextval((@extschema@.locality_uuid_runs())[pg_catalog.mod(w, 64)::pg_catalog.int4 + 1]);
    IF v >> 32 <> w + 1 OR (v & 4294967295) >= 2147483648 THEN
        v := @extschema@.locality_uuid_run_place(ts, w, v);
    END IF;
    RETURN @extschema@.locality_uuid_pack_hex(
        pg_catalog.lpad(pg_catalog.to_hex((@extschema@.locality_uuid_cached_base(w) + 1 + (v & 4294967295)) & 4294967295), 8, '0'),
        pg_catalog.pg_backend_pid(), @extschema@.locality_uuid_node_id(), us / 1000);
END
$$;
COMMENT ON FUNCTION locality_uuid_make(pg_catalog.timestamptz, pg_catalog.bool, pg_catalog.bool) IS
    'SQL edition: a Locality UUID for time ts, in the given mode';

-- The slow path of a sequential clock id whose draw v from window w's
-- slot is not a place in w's run. The slot holds an earlier window: w
-- takes it over under an advisory lock (session level, held for the
-- takeover only, never to the end of the caller's transaction), where the
-- first caller that still finds the earlier window sets the slot to w's
-- place 0 and takes it, and a later one takes the next place. The slot
-- holds a later window: 55000. The run is full: 54000.
-- SECURITY DEFINER: setval needs UPDATE on the run's sequence, which roles
-- that make ids do not get (with it they could set a run back). So that
-- no caller can push a run into the future, w may not be ahead of the
-- clock. The lock is taken and released inside the block whose handler
-- releases it, and waiting for it ends after lock_timeout, so a cancel at
-- any point leaves no lock behind, and no caller waits forever.
CREATE OR REPLACE FUNCTION locality_uuid_run_place(ts pg_catalog.timestamptz, w pg_catalog.int8, v pg_catalog.int8)
    RETURNS pg_catalog.int8
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp SET lock_timeout = '10s' AS $$
DECLARE
    run pg_catalog.regclass := (@extschema@.locality_uuid_runs())[pg_catalog.mod(w, 64)::pg_catalog.int4 + 1];
    key pg_catalog.int4 := run::pg_catalog.oid::pg_catalog.int4;
BEGIN
    IF w IS NULL OR v IS NULL OR w < 0
       OR w > @extschema@.locality_uuid_unix_micros(pg_catalog.clock_timestamp()) / 600000000 THEN
        RAISE EXCEPTION 'window % is not a window of the clock', w USING ERRCODE = '22023';
    END IF;
    IF v >> 32 < w + 1 THEN
        BEGIN
            PERFORM pg_catalog.pg_advisory_lock(1280664916, key);
            v := pg_catalog.nextval(run);
            IF v >> 32 < w + 1 THEN
                v := (w + 1) << 32;
                PERFORM pg_catalog.setval(run, v, true);
            END IF;
            PERFORM pg_catalog.pg_advisory_unlock(1280664916, key);
        EXCEPTION WHEN OTHERS OR query_canceled THEN
            IF EXISTS (SELECT FROM pg_catalog.pg_locks
                       WHERE locktype = 'advisory' AND pid = pg_catalog.pg_backend_pid() AND granted
                         AND classid = 1280664916 AND objid = key::pg_catalog.oid AND objsubid = 2) THEN
                PERFORM pg_catalog.pg_advisory_unlock(1280664916, key);
            END IF;
            RAISE;
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

-- Monitoring, as the C edition's: the run of the clock's current window,
-- ids drawn of its 2^31 (place 0 is the taker's; a closed run counts as
-- full). pg_sequence_last_value needs only USAGE on the sequence; a role
-- without it gets NULL counts (PostgreSQL 18 would answer NULL as "never
-- drawn", that is 0).
CREATE OR REPLACE FUNCTION locality_uuid_window_usage(
        OUT window_start pg_catalog.timestamptz, OUT window_end pg_catalog.timestamptz,
        OUT ids_drawn pg_catalog.int8, OUT ids_left pg_catalog.int8)
    RETURNS pg_catalog.record
    LANGUAGE sql VOLATILE STRICT PARALLEL SAFE AS $$
SELECT @extschema@.locality_uuid_from_unix_micros(w * 600000000),
       @extschema@.locality_uuid_from_unix_micros((w + 1) * 600000000),
       drawn, 2147483648 - drawn
FROM (SELECT w, CASE WHEN v IS NULL THEN NULL WHEN v >> 32 = w + 1 THEN LEAST((v & 4294967295) + 1, 2147483648) ELSE 0 END AS drawn
      FROM (SELECT w, CASE WHEN pg_catalog.has_sequence_privilege(run, 'USAGE,SELECT')
                           THEN coalesce(pg_catalog.pg_sequence_last_value(run), 0) END AS v
            FROM (SELECT w, (@extschema@.locality_uuid_runs())[pg_catalog.mod(w, 64)::pg_catalog.int4 + 1] AS run
                  FROM (SELECT @extschema@.locality_uuid_unix_micros(pg_catalog.clock_timestamp()) / 600000000 AS w) clock) r) slot) usage
$$;
COMMENT ON FUNCTION locality_uuid_window_usage() IS
    'The server-wide sequential run of the current 10-minute window: ids drawn and ids left of its 2^31';

-- After a forward clock glitch (README): a slot that holds a window 64 or
-- more ahead of the clock refuses the windows that map to it (55000) until
-- real time reaches the glitch. The release gives each such slot back to
-- the clock, closed for the newest real window that maps to it (its count
-- was lost when the glitch took the slot over: restarting it could repeat
-- its ids; 54000 until the next window), and returns the released windows,
-- also written to the server log. A slot ahead by less than 64 windows is
-- kept: the clock reaches its window before it needs the slot. All 64
-- slots' advisory locks (the takeover's) are taken first, then the clock
-- is read, then the slots are set (setval is not undone by a rollback, so
-- a lock that cannot be had leaves every slot as it was), and the locks
-- are released in the same block, whatever happens (a transaction left
-- open after the call holds none). SECURITY DEFINER, so that EXECUTE,
-- which only the owner has until it grants it, is all a caller needs.
CREATE OR REPLACE FUNCTION locality_uuid_release_future_windows(
        OUT window_start pg_catalog.timestamptz, OUT window_end pg_catalog.timestamptz)
    RETURNS SETOF pg_catalog.record
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp SET lock_timeout = '10s' SET datestyle = 'ISO, MDY' SET timezone = 'UTC' AS $$
DECLARE
    runs pg_catalog.regclass[] := @extschema@.locality_uuid_runs();
    now_w pg_catalog.int8;
    held pg_catalog.int8;
    closed pg_catalog.int8;
    released pg_catalog.int8[] := '{}';
BEGIN
    BEGIN
        FOR slot IN 1..64 LOOP
            PERFORM pg_catalog.pg_advisory_lock(1280664916, runs[slot]::pg_catalog.oid::pg_catalog.int4);
        END LOOP;
        now_w := @extschema@.locality_uuid_unix_micros(pg_catalog.clock_timestamp()) / 600000000;
        FOR slot IN 0..63 LOOP
            held := (coalesce(pg_catalog.pg_sequence_last_value(runs[slot + 1]), 0) >> 32) - 1;
            IF held >= now_w + 64 THEN
                closed := now_w - pg_catalog.mod(now_w - slot, 64);
                PERFORM pg_catalog.setval(runs[slot + 1], ((closed + 1) << 32) + 2147483648, true);
                RAISE LOG 'locality_uuid: released the sequential run of the window from % (a forward clock glitch); the window from % is closed',
                    @extschema@.locality_uuid_from_unix_micros(held * 600000000),
                    @extschema@.locality_uuid_from_unix_micros(closed * 600000000);
                released := released || held;
            END IF;
        END LOOP;
        FOR slot IN 1..64 LOOP
            PERFORM pg_catalog.pg_advisory_unlock(1280664916, runs[slot]::pg_catalog.oid::pg_catalog.int4);
        END LOOP;
    EXCEPTION WHEN OTHERS OR query_canceled THEN
        PERFORM pg_catalog.pg_advisory_unlock(1280664916, l.objid::pg_catalog.int4)
        FROM pg_catalog.pg_locks l
        WHERE l.locktype = 'advisory' AND l.pid = pg_catalog.pg_backend_pid() AND l.granted
          AND l.classid = 1280664916 AND l.objsubid = 2
          AND l.objid IN (SELECT r::pg_catalog.oid FROM pg_catalog.unnest(runs) r);
        RAISE;
    END;
    FOR slot IN 1..pg_catalog.cardinality(released) LOOP
        window_start := @extschema@.locality_uuid_from_unix_micros(released[slot] * 600000000);
        window_end := @extschema@.locality_uuid_from_unix_micros((released[slot] + 1) * 600000000);
        RETURN NEXT;
    END LOOP;
END
$$;
COMMENT ON FUNCTION locality_uuid_release_future_windows() IS
    'Releases the sequential runs of windows 64 or more ahead of the clock (after a forward clock glitch) and returns them';
REVOKE EXECUTE ON FUNCTION locality_uuid_release_future_windows() FROM PUBLIC;

-- The C edition's names and signatures: one PL/pgSQL call per id, the
-- clock read once.

CREATE OR REPLACE FUNCTION locality_uuid() RETURNS pg_catalog.uuid
    LANGUAGE sql VOLATILE PARALLEL UNSAFE AS $$
SELECT @extschema@.locality_uuid_make(pg_catalog.clock_timestamp(),
                                      coalesce(NULLIF(pg_catalog.current_setting('locality_uuid.sequential', true), ''),
                                               'off')::pg_catalog.bool,
                                      false)
$$;
COMMENT ON FUNCTION locality_uuid() IS
    'New Locality UUID, in the mode of locality_uuid.sequential';

CREATE OR REPLACE FUNCTION locality_uuid(sequential pg_catalog.bool) RETURNS pg_catalog.uuid
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE AS $$
SELECT @extschema@.locality_uuid_make(pg_catalog.clock_timestamp(), sequential, false)
$$;
COMMENT ON FUNCTION locality_uuid(pg_catalog.bool) IS
    'New Locality UUID in sequential mode (true) or variable mode (false)';

CREATE OR REPLACE FUNCTION locality_uuid_at(ts pg_catalog.timestamptz, sequential pg_catalog.bool) RETURNS pg_catalog.uuid
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE AS $$
SELECT @extschema@.locality_uuid_make(ts, sequential, true)
$$;
COMMENT ON FUNCTION locality_uuid_at(pg_catalog.timestamptz, pg_catalog.bool) IS
    'New Locality UUID carrying time ts (for backfills), in the given mode';

CREATE OR REPLACE FUNCTION locality_uuid_at(ts pg_catalog.timestamptz) RETURNS pg_catalog.uuid
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE AS $$
SELECT @extschema@.locality_uuid_make(ts, coalesce(NULLIF(pg_catalog.current_setting('locality_uuid.sequential', true), ''),
                                                   'off')::pg_catalog.bool, true)
$$;
COMMENT ON FUNCTION locality_uuid_at(pg_catalog.timestamptz) IS
    'New Locality UUID carrying time ts (for backfills), mode from locality_uuid.sequential';

CREATE OR REPLACE FUNCTION locality_uuid(ts pg_catalog.timestamptz) RETURNS pg_catalog.uuid
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE AS $$
SELECT @extschema@.locality_uuid_at(ts)
$$;
COMMENT ON FUNCTION locality_uuid(pg_catalog.timestamptz) IS
    'New Locality UUID carrying time ts (for backfills), mode from locality_uuid.sequential';

CREATE OR REPLACE FUNCTION locality_uuid(ts pg_catalog.timestamptz, sequential pg_catalog.bool) RETURNS pg_catalog.uuid
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE AS $$
SELECT @extschema@.locality_uuid_at(ts, sequential)
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

-- The C edition's error for a Hot Guid that cannot be made, in its order:
-- the shard key, then the time.
CREATE OR REPLACE FUNCTION locality_uuid_hot_error(shard_key pg_catalog.int8, ts pg_catalog.timestamptz)
    RETURNS pg_catalog.uuid
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
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

-- Hot Guids (src/core/hot_guid.hpp's layout): the second, machine bytes 1
-- and 0, pid high byte, machine byte 2, pid low byte, the draw's low 24
-- bits, the shard key little-endian. last_second: the clock's ids end one
-- second before ids for given times, as in the C edition.
CREATE OR REPLACE FUNCTION locality_uuid_hot_make(shard_key pg_catalog.int8, ts pg_catalog.timestamptz,
                                                  last_second pg_catalog.int8)
    RETURNS pg_catalog.uuid
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE AS $$
DECLARE
    -- Microseconds since 1970; NULL far out of range (checked before they
    -- are computed, which could overflow).
    us pg_catalog.int8 := CASE WHEN pg_catalog.isfinite(ts) AND ts >= pg_catalog.timestamptz '1970-01-01 00:00:00+00'
                                    AND ts < pg_catalog.timestamptz '2107-01-01 00:00:00+00'
                               THEN @extschema@.locality_uuid_unix_micros(ts) END;
BEGIN
    IF pg_catalog.current_setting('locality_uuid_sql.home_checked', true) IS DISTINCT FROM 'on' THEN
        PERFORM @extschema@.locality_uuid_check_home();
    END IF;
    IF shard_key < 0 OR shard_key > 4294967295 OR us IS NULL OR us / 1000000 > last_second THEN
        RETURN @extschema@.locality_uuid_hot_error(shard_key, ts);
    END IF;
    -- The machine bytes are constants (hot_guid_machine_id() is inlined);
    -- the key's four bytes are reversed as a number, not as text.
    RETURN (pg_catalog.lpad(pg_catalog.to_hex(us / 1000000), 8, '0')
            || pg_catalog.substr(@extschema@.hot_guid_machine_id(), 3, 2) || pg_catalog.substr(@extschema@.hot_guid_machine_id(), 1, 2)
            || pg_catalog.lpad(pg_catalog.to_hex((pg_catalog.pg_backend_pid() >> 8) & 255), 2, '0')
            || pg_catalog.substr(@extschema@.hot_guid_machine_id(), 5, 2)
            || pg_catalog.lpad(pg_catalog.to_hex(pg_catalog.pg_backend_pid() & 255), 2, '0')
            || pg_catalog.lpad(pg_catalog.to_hex(pg_catalog.nextval('@extschema@.locality_uuid_hot_seq')
                                                 & 16777215::pg_catalog.int8), 6, '0')
            -- (<<, >>, & and | share one precedence, left to right: hence
            -- every parenthesis)
            || pg_catalog.lpad(pg_catalog.to_hex(((shard_key & 255::pg_catalog.int8) << 24)
                                                 | (((shard_key >> 8) & 255::pg_catalog.int8) << 16)
                                                 | (((shard_key >> 16) & 255::pg_catalog.int8) << 8)
                                                 | (shard_key >> 24)), 8, '0'))::pg_catalog.uuid;
END
$$;
COMMENT ON FUNCTION locality_uuid_hot_make(pg_catalog.int8, pg_catalog.timestamptz, pg_catalog.int8) IS
    'SQL edition: a Hot Guid of ts''s second (at most last_second) carrying shard_key';

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
