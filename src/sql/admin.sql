-- Watching and managing the counters: the current window's run, the
-- release of runs a forward clock glitch left in the future, and handing
-- the counters over between the two editions (or two versions) on one
-- database.

-- Monitoring, as the C edition's: the run of the clock's current window,
-- places used and places left of its 2^31 (a run starts at the run start,
-- locality_uuid_run_start, so used plus left is 2^31 less the places it
-- skipped; place 0 is the taker's; a closed run counts as full).
-- SECURITY DEFINER: the runs are in the private schema; the right to call
-- it is the makers' (EXECUTE, privileges.sql), whom it tells how many ids
-- they drew. PARALLEL UNSAFE: it reads sequences.
CREATE OR REPLACE FUNCTION locality_uuid_window_usage(
        OUT window_start pg_catalog.timestamptz, OUT window_end pg_catalog.timestamptz,
        OUT ids_drawn pg_catalog.int8, OUT ids_left pg_catalog.int8)
    RETURNS pg_catalog.record
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
SELECT @extschema@.locality_uuid_from_unix_micros((w OPERATOR(pg_catalog.*) 600000000)),
       @extschema@.locality_uuid_from_unix_micros(((w OPERATOR(pg_catalog.+) 1) OPERATOR(pg_catalog.*) 600000000)),
       GREATEST((used OPERATOR(pg_catalog.-) start), 0),
       (2147483648 OPERATOR(pg_catalog.-) GREATEST(used, start))
-- (pg_sequence_last_value is NULL for a sequence never drawn: 0.)
FROM (SELECT w, CASE WHEN ((v OPERATOR(pg_catalog.>>) 32) OPERATOR(pg_catalog.=) (w OPERATOR(pg_catalog.+) 1))
                     THEN LEAST(((v OPERATOR(pg_catalog.&) 4294967295) OPERATOR(pg_catalog.+) 1), 2147483648) ELSE 0 END AS used,
             start
      FROM (SELECT w, coalesce(pg_catalog.pg_sequence_last_value(run), 0) AS v,
                   (coalesce(pg_catalog.pg_sequence_last_value('@extschema@_private.locality_uuid_run_start'), 0)
                    OPERATOR(pg_catalog.&) 16777215::pg_catalog.int8) AS start
            FROM (SELECT w, (@extschema@.locality_uuid_runs())[(pg_catalog.mod(w, 64::pg_catalog.int8)::pg_catalog.int4 OPERATOR(pg_catalog.+) 1)] AS run
                  FROM (SELECT (@extschema@.locality_uuid_unix_micros(pg_catalog.clock_timestamp()) OPERATOR(pg_catalog./) 600000000) AS w) clock) r) slot) usage
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
-- kept: the clock reaches its window before it needs the slot. Under the
-- takeover's lock (generators.sql), taken first; then the clock is read
-- and the slots set, and the lock goes at the end of its block whatever
-- happens. The owner's and its members' only, whatever EXECUTE grants say.
CREATE OR REPLACE FUNCTION locality_uuid_release_future_windows(
        OUT window_start pg_catalog.timestamptz, OUT window_end pg_catalog.timestamptz)
    RETURNS SETOF pg_catalog.record
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp SET lock_timeout = '10s' SET datestyle = 'ISO, MDY' SET timezone = 'UTC' AS $$
DECLARE
    runs pg_catalog.regclass[];
    now_w pg_catalog.int8;
    held pg_catalog.int8;
    closed pg_catalog.int8;
    released pg_catalog.int8[] := '{}';
BEGIN
    PERFORM @extschema@.locality_uuid_require_owner('locality_uuid_release_future_windows');
    -- (After the check: the runs' names resolve only for the owner.)
    runs := @extschema@.locality_uuid_runs();
    BEGIN
        LOCK TABLE @extschema@_private.locality_uuid_lock IN SHARE UPDATE EXCLUSIVE MODE;
        now_w := @extschema@.locality_uuid_unix_micros(pg_catalog.clock_timestamp()) / 600000000;
        FOR slot IN 0..63 LOOP
            held := (coalesce(pg_catalog.pg_sequence_last_value(runs[slot + 1]), 0) >> 32) - 1;
            IF held >= now_w + 64 THEN
                closed := now_w - pg_catalog.mod(now_w - slot, 64::pg_catalog.int8);
                PERFORM pg_catalog.setval(runs[slot + 1], ((closed + 1) << 32) + 2147483648, true);
                RAISE LOG 'locality_uuid: released the sequential run of the window from % (a forward clock glitch); the window from % is closed',
                    @extschema@.locality_uuid_from_unix_micros(held * 600000000),
                    @extschema@.locality_uuid_from_unix_micros(closed * 600000000);
                released := released || held;
            END IF;
        END LOOP;
        RAISE SQLSTATE 'LU001';  -- leaves the block: its lock goes, the slots stay set
    EXCEPTION WHEN SQLSTATE 'LU001' THEN
        NULL;
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

-- Handing the counters over (README: moving between the editions). The
-- counters' next values, as the next id of each kind would carry them
-- here: the variable-mode counter, the given-time sequential index (of
-- 2^31), the Hot Guid draw (of 2^24), and the clock window's run and its
-- next place (0 if the window has no run yet). A sequence's last value
-- ends the blocks sessions have cached (CACHE 256), so nothing this
-- edition hands out later, from a cache, lies past them.
CREATE OR REPLACE FUNCTION locality_uuid_counters(
        OUT variable_next pg_catalog.int8, OUT given_time_next pg_catalog.int8, OUT hot_next pg_catalog.int8,
        OUT run_window pg_catalog.int8, OUT run_next pg_catalog.int8)
    RETURNS pg_catalog.record
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    v pg_catalog.int8;
BEGIN
    PERFORM @extschema@.locality_uuid_require_owner('locality_uuid_counters');
    SELECT s.last_value + s.is_called::pg_catalog.int4 INTO v FROM @extschema@_private.locality_uuid_variable_seq s;
    variable_next := (@extschema@.locality_uuid_variable_start() + ((v + 1) & 4294967295) * 198491317) & 4294967295;
    SELECT (s.last_value + s.is_called::pg_catalog.int4) & 2147483647::pg_catalog.int8 INTO given_time_next
    FROM @extschema@_private.locality_uuid_at_seq s;
    SELECT (s.last_value + s.is_called::pg_catalog.int4) & 16777215::pg_catalog.int8 INTO hot_next
    FROM @extschema@_private.locality_uuid_hot_seq s;
    run_window := @extschema@.locality_uuid_unix_micros(pg_catalog.clock_timestamp()) / 600000000;
    v := coalesce(pg_catalog.pg_sequence_last_value((@extschema@.locality_uuid_runs())[pg_catalog.mod(run_window, 64::pg_catalog.int8)::pg_catalog.int4 + 1]), 0);
    run_next := CASE WHEN v >> 32 = run_window + 1 THEN LEAST((v & 4294967295) + 1, 2147483648) ELSE 0 END;
END
$$;
COMMENT ON FUNCTION locality_uuid_counters() IS
    'Where this edition''s counters go on: next variable counter, given-time index, Hot Guid draw, and the clock window''s run';
REVOKE EXECUTE ON FUNCTION locality_uuid_counters() FROM PUBLIC;

-- Moves this edition's counters so that its next ids continue where the
-- other's (given by its locality_uuid_counters()) stop: each counter goes
-- forward to the first draw whose id carries that next value, never back,
-- so the two editions (or a version and the next) with one node value go
-- through each counter's cycle once between them. The owner's and its
-- members' only.
CREATE OR REPLACE FUNCTION locality_uuid_continue_after(variable_next pg_catalog.int8, given_time_next pg_catalog.int8,
                                                        hot_next pg_catalog.int8, run_window pg_catalog.int8,
                                                        run_next pg_catalog.int8)
    RETURNS pg_catalog.void
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp SET lock_timeout = '10s' AS $$
DECLARE
    n pg_catalog.int8;
    k pg_catalog.int8;
    run pg_catalog.regclass;
    v pg_catalog.int8;
BEGIN
    PERFORM @extschema@.locality_uuid_require_owner('locality_uuid_continue_after');
    IF variable_next NOT BETWEEN 0 AND 4294967295 OR given_time_next NOT BETWEEN 0 AND 2147483647
       OR hot_next NOT BETWEEN 0 AND 16777215 OR run_next NOT BETWEEN 0 AND 2147483648
       OR run_window NOT BETWEEN 0 AND @extschema@.locality_uuid_unix_micros(pg_catalog.clock_timestamp()) / 600000000 THEN
        RAISE EXCEPTION 'counters out of range' USING ERRCODE = '22003',
            DETAIL = 'variable_next is 32 bits, given_time_next 31, hot_next 24; run_window is a window up to the clock''s, run_next a place, 0 to 2147483648.';
    END IF;
    BEGIN
        LOCK TABLE @extschema@_private.locality_uuid_lock IN SHARE UPDATE EXCLUSIVE MODE;
        -- Variable mode: draw n makes start + (n + 1) * step, so the draw
        -- that makes variable_next has n + 1 = (variable_next - start) *
        -- step^-1 mod 2^32 (step^-1 = 3127333277; the product in 16-bit
        -- halves, as int8 holds no 64-bit product).
        SELECT s.last_value + s.is_called::pg_catalog.int4 INTO n FROM @extschema@_private.locality_uuid_variable_seq s;
        k := (variable_next - @extschema@.locality_uuid_variable_start() + 4294967296) & 4294967295;
        k := ((k * 20893::pg_catalog.int8) + (((k * 47719::pg_catalog.int8) & 65535::pg_catalog.int8) << 16)) & 4294967295;
        k := (k - 1) & 4294967295;  -- that draw's n mod 2^32
        PERFORM pg_catalog.setval('@extschema@_private.locality_uuid_variable_seq', n + ((k - n) & 4294967295), false);
        SELECT s.last_value + s.is_called::pg_catalog.int4 INTO n FROM @extschema@_private.locality_uuid_at_seq s;
        PERFORM pg_catalog.setval('@extschema@_private.locality_uuid_at_seq', n + ((given_time_next - n) & 2147483647::pg_catalog.int8), false);
        SELECT s.last_value + s.is_called::pg_catalog.int4 INTO n FROM @extschema@_private.locality_uuid_hot_seq s;
        PERFORM pg_catalog.setval('@extschema@_private.locality_uuid_hot_seq', n + ((hot_next - n) & 16777215::pg_catalog.int8), false);
        IF run_next > 0 THEN
            run := (@extschema@.locality_uuid_runs())[pg_catalog.mod(run_window, 64::pg_catalog.int8)::pg_catalog.int4 + 1];
            v := coalesce(pg_catalog.pg_sequence_last_value(run), 0);
            IF v < ((run_window + 1) << 32) + run_next - 1 THEN
                PERFORM pg_catalog.setval(run, ((run_window + 1) << 32) + run_next - 1, true);
            END IF;
        END IF;
        RAISE SQLSTATE 'LU001';  -- leaves the block: its lock goes, the sequences stay set
    EXCEPTION WHEN SQLSTATE 'LU001' THEN
        NULL;
    END;
END
$$;
COMMENT ON FUNCTION locality_uuid_continue_after(pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8) IS
    'Moves this edition''s counters forward so that its next ids continue where another''s (its locality_uuid_counters()) stop';
REVOKE EXECUTE ON FUNCTION locality_uuid_continue_after(pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8) FROM PUBLIC;
