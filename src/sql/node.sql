-- The node value, the Hot Guid machine name and where the counters are.
--
-- The node value, the machine name and bytes and the variable start are
-- constants in functions of their own (locality_uuid_node_id(),
-- hot_guid_machine_name(), hot_guid_machine_id(),
-- locality_uuid_variable_start()), which the planner inlines into every
-- generator's cached plan: no table read per id. The install gives them
-- random values, once; locality_uuid_set_node() writes new ones (and a
-- changed function invalidates the plans that inlined it).
--
-- Copies, and timelines. A database made from this one elsewhere (a dump
-- restored in another database or cluster, CREATE DATABASE ... TEMPLATE,
-- pg_upgrade's new cluster) carries its node value and its counters, and
-- would make the ids its origin makes; so would a server restored to a
-- point in time, or a standby promoted, while the server it came from
-- still makes ids. The counters are bound to a place (the system
-- identifier, the database's oid and the timeline WAL is written on, in
-- locality_uuid_home_system, _database and _timeline); each session's
-- first id checks it. A database somewhere else (a copy) moves every
-- counter past a fresh random point, binds them here and says so in a
-- WARNING to the session and a LOG line; a database on a new timeline (a
-- promotion, the end of a point-in-time recovery) does the same with the
-- LOG line alone: failover needs no human and alarms no application. Ids
-- continue at once either way, and a copy or a restored server that runs
-- beside its origin no longer counts through the same values (README:
-- copies). A clone of the whole cluster's files that keeps its timeline
-- (a snapshot, a branch) keeps all three and is not noticed.

-- Where this database is: "system identifier/database oid/timeline" (the
-- system part empty for a role that may not read pg_control_system(), the
-- timeline empty during recovery, when no id is made).
CREATE OR REPLACE FUNCTION locality_uuid_here() RETURNS pg_catalog.text
    LANGUAGE plpgsql STABLE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    system_id pg_catalog.text := '';
    timeline pg_catalog.text := '';
BEGIN
    IF pg_catalog.has_function_privilege('pg_catalog.pg_control_system()', 'EXECUTE') THEN
        BEGIN
            -- Its low 63 bits (a sequence holds it, from 0 up; system
            -- identifiers are below 2^63 until 2038, and a copy differs in
            -- the low bits, which are random).
            SELECT (s.system_identifier & 9223372036854775807)::pg_catalog.text INTO system_id
            FROM pg_catalog.pg_control_system() s;
        EXCEPTION WHEN OTHERS THEN
            system_id := '';  -- a service that refuses it: the database's oid alone
        END;
    END IF;
    IF NOT pg_catalog.pg_is_in_recovery() THEN
        -- The timeline WAL is written on now (the name of its current
        -- file starts with it), at once after a promotion.
        BEGIN
            timeline := ('x' || pg_catalog.left(pg_catalog.pg_walfile_name(pg_catalog.pg_current_wal_lsn()), 8))
                        ::pg_catalog.bit(32)::pg_catalog.int8::pg_catalog.text;
        EXCEPTION WHEN OTHERS THEN
            timeline := '';
        END;
    END IF;
    RETURN system_id || '/' || (SELECT d.oid::pg_catalog.text FROM pg_catalog.pg_database d
                                WHERE d.datname = pg_catalog.current_database()) || '/' || timeline;
END
$$;
COMMENT ON FUNCTION locality_uuid_here() IS
    'SQL edition: this database''s place, system identifier/database oid/timeline, to tell a copy or a new timeline from where its counters were bound';

-- Binds the counters to this database's place (locality_uuid_here()), and
-- first, if they are bound elsewhere (this database is a copy) or on
-- another timeline, moves every counter past a fresh random point: the
-- variable draw by 2^30 to 3 * 2^30 (a point of the counter's cycle no
-- nearer than 2^30 ids to the origin's), the given-time draw by 2^29 to
-- 3 * 2^29 of its 2^31, the Hot Guid draw by 2^22 to 3 * 2^22 of its 2^24,
-- every run the clock may still draw from by 2^20 to 2^21 places (a run it
-- fills is closed), and the run start of new windows redrawn. Sequences
-- move at once, without waiting on a transaction; all of it under the
-- runs' lock (released at the end of the block), so that two sessions
-- that find the move to make make it once. Returns why it moved them
-- ('copy', 'timeline' or NULL) and where the counters were bound.
-- SECURITY DEFINER: setval is the owner's; what it does is fixed, and it
-- does it only where the counters are not bound.
-- Counters already bound here, on this timeline (every session's first
-- id but the one after a copy or a promotion), take no lock at all: the
-- place is set after the counters moved, so a session that finds this
-- place finds them moved. The lock is SHARE UPDATE EXCLUSIVE, the one
-- mode that waits for its own kind and for no lock a statement can take
-- without a privilege on the view. Since 1.5 no role but the owner can
-- name the view (counters.sql's private schema), so no other role can hold
-- a lock on it from parse time (PREPARE ... FOR UPDATE) or queue a strong
-- one behind a hold (CREATE RULE, CREATE TRIGGER); members of
-- pg_read_all_data, which may use every schema, still can (the install
-- warns of them). The mode keeps the owner's own reads, and such
-- members' parse-time locks, from delaying a move; what they queue behind
-- one still does.
CREATE OR REPLACE FUNCTION locality_uuid_bind_here(OUT moved pg_catalog.text, OUT bound_system pg_catalog.text,
                                                   OUT bound_database pg_catalog.text, OUT bound_timeline pg_catalog.text)
    RETURNS pg_catalog.record
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET lock_timeout = '10s' AS $$
DECLARE
    here pg_catalog.text[] := pg_catalog.string_to_array(@extschema@.locality_uuid_here(), '/');
    now_w pg_catalog.int8;
    v pg_catalog.int8;
BEGIN
    bound_system := NULLIF(pg_catalog.pg_sequence_last_value('@extschema@_private.locality_uuid_home_system'), 0)::pg_catalog.text;
    bound_database := NULLIF(pg_catalog.pg_sequence_last_value('@extschema@_private.locality_uuid_home_database'), 0)::pg_catalog.text;
    bound_timeline := NULLIF(pg_catalog.pg_sequence_last_value('@extschema@_private.locality_uuid_home_timeline'), 0)::pg_catalog.text;
    IF bound_database = here[2] AND (bound_system IS NULL OR here[1] = '' OR bound_system = here[1])
       AND bound_timeline IS NOT DISTINCT FROM NULLIF(here[3], '') THEN
        PERFORM pg_catalog.setval('@extschema@_private.locality_uuid_session', 0, true);
        RETURN;
    END IF;
    BEGIN
        LOCK TABLE @extschema@_private.locality_uuid_lock IN SHARE UPDATE EXCLUSIVE MODE;
        bound_system := NULLIF(pg_catalog.pg_sequence_last_value('@extschema@_private.locality_uuid_home_system'), 0)::pg_catalog.text;
        bound_database := NULLIF(pg_catalog.pg_sequence_last_value('@extschema@_private.locality_uuid_home_database'), 0)::pg_catalog.text;
        bound_timeline := NULLIF(pg_catalog.pg_sequence_last_value('@extschema@_private.locality_uuid_home_timeline'), 0)::pg_catalog.text;
        moved := CASE WHEN bound_database IS NULL THEN NULL
                      WHEN bound_database <> here[2] OR (bound_system <> '0' AND here[1] <> '' AND bound_system <> here[1]) THEN 'copy'
                      WHEN bound_timeline IS NOT NULL AND here[3] <> '' AND bound_timeline <> here[3] THEN 'timeline' END;
        IF moved IS NOT NULL THEN
            PERFORM pg_catalog.setval('@extschema@_private.locality_uuid_variable_seq',
                        coalesce(pg_catalog.pg_sequence_last_value('@extschema@_private.locality_uuid_variable_seq'), 0)
                        + 1073741824 + pg_catalog.floor(pg_catalog.random() * 2147483648::pg_catalog.float8)::pg_catalog.int8),
                    pg_catalog.setval('@extschema@_private.locality_uuid_at_seq',
                        coalesce(pg_catalog.pg_sequence_last_value('@extschema@_private.locality_uuid_at_seq'), 0)
                        + 536870912 + pg_catalog.floor(pg_catalog.random() * 1073741824::pg_catalog.float8)::pg_catalog.int8),
                    pg_catalog.setval('@extschema@_private.locality_uuid_hot_seq',
                        coalesce(pg_catalog.pg_sequence_last_value('@extschema@_private.locality_uuid_hot_seq'), 0)
                        + 4194304 + pg_catalog.floor(pg_catalog.random() * 8388608::pg_catalog.float8)::pg_catalog.int8),
                    pg_catalog.setval('@extschema@_private.locality_uuid_run_start',
                        pg_catalog.floor(pg_catalog.random() * 16777216::pg_catalog.float8)::pg_catalog.int8);
            now_w := @extschema@.locality_uuid_unix_micros(pg_catalog.clock_timestamp()) / 600000000;
            FOR slot IN 1..64 LOOP
                v := pg_catalog.pg_sequence_last_value((@extschema@.locality_uuid_runs())[slot]);
                IF v IS NOT NULL AND v >> 32 <= now_w + 1 THEN
                    PERFORM pg_catalog.setval((@extschema@.locality_uuid_runs())[slot],
                        LEAST(v + 1048576 + pg_catalog.floor(pg_catalog.random() * 1048576::pg_catalog.float8)::pg_catalog.int8,
                              ((v >> 32) << 32) + 2147483648));
                END IF;
            END LOOP;
        END IF;
        IF moved IS NOT NULL OR bound_database IS NULL OR bound_timeline IS DISTINCT FROM NULLIF(here[3], '') THEN
            PERFORM pg_catalog.setval('@extschema@_private.locality_uuid_home_system', coalesce(NULLIF(here[1], ''), '0')::pg_catalog.int8),
                    pg_catalog.setval('@extschema@_private.locality_uuid_home_database', here[2]::pg_catalog.int8);
            IF here[3] <> '' THEN
                PERFORM pg_catalog.setval('@extschema@_private.locality_uuid_home_timeline', here[3]::pg_catalog.int8);
            END IF;
        END IF;
        RAISE SQLSTATE 'LU001';  -- leaves the block: its lock goes, the sequences stay set
    EXCEPTION WHEN SQLSTATE 'LU001' THEN
        NULL;
    END;
    -- This session has bound them here: its cache says so (currval 0).
    PERFORM pg_catalog.setval('@extschema@_private.locality_uuid_session', 0, true);
    IF moved IS NOT NULL THEN
        RAISE LOG 'locality_uuid: the counters of schema % were bound to database % of system % on timeline %, this is database % of system % on timeline %: moved past fresh random points (%)',
            '@extschema@', bound_database, bound_system, coalesce(bound_timeline, 'unknown'), here[2],
            coalesce(NULLIF(here[1], ''), 'unknown'), coalesce(NULLIF(here[3], ''), 'unknown'),
            CASE moved WHEN 'copy' THEN 'a copy' ELSE 'a new timeline: a promotion, or the end of a point-in-time recovery' END;
    END IF;
END
$$;
COMMENT ON FUNCTION locality_uuid_bind_here() IS
    'SQL edition: binds the counters to this database and timeline, moving them past fresh random points if they were bound elsewhere (a copy) or on another timeline';

-- Once per session, before its first id (the generators call it while the
-- session's cache, locality_uuid_session, is not set): binds the counters
-- here (which sets the cache), and warns if this session found the
-- database a copy and moved them; locality_uuid_sql.session_@extschema@
-- then says the cache is set (a hint only: the generators read the cache
-- itself, and a hint set by hand without it makes their currval fail).
-- One hint per schema: a session that makes ids of two tenants' editions
-- in one database binds each (1.4's one hint for all made the second's
-- first id fail, 55000). A standby or a
-- read-only transaction makes no id (the draw that follows says so,
-- 25006) and binds nothing: the next id checks again.
CREATE OR REPLACE FUNCTION locality_uuid_check_home() RETURNS pg_catalog.void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    bound record;
BEGIN
    IF pg_catalog.pg_is_in_recovery() OR pg_catalog.current_setting('transaction_read_only') = 'on' THEN
        RETURN;
    END IF;
    SELECT * INTO bound FROM @extschema@.locality_uuid_bind_here();
    IF bound.moved = 'copy' THEN
        RAISE WARNING 'locality_uuid: this database is a copy: its counters moved past fresh random points'
            USING DETAIL = pg_catalog.format('The counters were bound to database %s of system %s; this is %s. A copy continues its origin''s counters and, with its node value %s, would make the ids its origin makes.',
                                             bound.bound_database, coalesce(NULLIF(bound.bound_system, '0'), 'unknown'),
                                             pg_catalog.regexp_replace(@extschema@.locality_uuid_here(), '^([^/]*)/([^/]*)/.*$', '\2 of system \1'),
                                             @extschema@.locality_uuid_node_id()),
                  HINT = 'If the origin still makes ids, give this database its own node value: SELECT locality_uuid_set_node(node_id, machine_name).';
    END IF;
    PERFORM pg_catalog.set_config('locality_uuid_sql.session_@extschema@', 'on', false);
END
$$;
COMMENT ON FUNCTION locality_uuid_check_home() IS
    'SQL edition: once per session, binds the counters to this database (moving them if it is a copy or on a new timeline) and warns of a copy';

-- The node value and the Hot Guid machine name of this database, as
-- constant functions (the C edition's names and comments for the first
-- three). Only the edition's owner and its members may call it, whatever
-- EXECUTE grants say (locality_uuid_require_owner); it replaces functions
-- they own. The counters are bound here first (moved if this database is
-- a copy, so that setting the node value a copy already has does not line
-- it up with its origin). What it writes is a checked integer and quoted
-- literals.
CREATE OR REPLACE FUNCTION locality_uuid_set_node(node_id pg_catalog.int4, machine_name pg_catalog.text)
    RETURNS pg_catalog.void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    c_schema pg_catalog.name;
    c_node pg_catalog.int4;
BEGIN
    PERFORM @extschema@.locality_uuid_require_owner('locality_uuid_set_node');
    IF node_id IS NULL OR node_id < 0 OR node_id > 268435455 THEN
        RAISE EXCEPTION 'node_id % is out of range for a Locality UUID', node_id
            USING ERRCODE = '22003', DETAIL = 'The node value has 28 bits: 0 to 268435455.';
    END IF;
    IF machine_name IS NULL OR machine_name = '' THEN
        RAISE EXCEPTION 'machine_name must not be empty' USING ERRCODE = '22023';
    END IF;
    PERFORM @extschema@.locality_uuid_check_home();
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
            'Machine bytes this server writes into Hot Guids, as hex';$f$,
        node_id, 'SELECT ' || pg_catalog.quote_literal(machine_name) || '::pg_catalog.text',
        'SELECT ' || pg_catalog.quote_literal(pg_catalog.left(@extschema@.locality_uuid_md5(machine_name), 6)) || '::pg_catalog.text');
    -- The C edition in this database with the same node value: the two
    -- make the same ids unless their counters continue each other's
    -- (README: moving between the editions).
    SELECT n.nspname INTO c_schema FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'locality_uuid';
    IF c_schema IS NOT NULL AND pg_catalog.has_schema_privilege(c_schema, 'USAGE') THEN
        BEGIN
            EXECUTE pg_catalog.format('SELECT %I.locality_uuid_node_id()', c_schema) INTO c_node;
        EXCEPTION WHEN OTHERS THEN
            c_node := NULL;  -- not this role's to run: nothing to compare
        END;
        IF c_node = node_id THEN
            RAISE WARNING 'locality_uuid: the C edition in schema % has node value % too', c_schema, node_id
                USING DETAIL = 'Both editions make ids with this node value: they can make the same ids unless one continues the other''s counters.',
                      HINT = 'Hand the counters over with locality_uuid_continue_after(...) (README: moving between the editions), or give one edition another node value.';
        END IF;
    END IF;
END
$$;
COMMENT ON FUNCTION locality_uuid_set_node(pg_catalog.int4, pg_catalog.text) IS
    'SQL edition: sets the node value and Hot Guid machine name this database writes into ids';
REVOKE EXECUTE ON FUNCTION locality_uuid_set_node(pg_catalog.int4, pg_catalog.text) FROM PUBLIC;

-- A new install draws a random node value, machine name and variable
-- start, and random starts for the given-time and Hot Guid draws and the
-- runs; a re-run keeps them. An install of 1.2, which kept its place in
-- locality_uuid_node_home(), binds its counters there.
DO $install$
DECLARE
    home pg_catalog.text[];
BEGIN
    IF pg_catalog.to_regprocedure('@extschema@.locality_uuid_node_home()') IS NOT NULL THEN
        -- (Its timeline is not known: the first id binds it.)
        EXECUTE 'SELECT pg_catalog.string_to_array(@extschema@.locality_uuid_node_home(), ''/'')' INTO home;
        IF coalesce(pg_catalog.pg_sequence_last_value('@extschema@_private.locality_uuid_home_database'), 0) = 0 THEN
            PERFORM pg_catalog.setval('@extschema@_private.locality_uuid_home_system',
                                      coalesce(NULLIF(home[1], ''), '0')::pg_catalog.int8 & 9223372036854775807),
                    pg_catalog.setval('@extschema@_private.locality_uuid_home_database', home[2]::pg_catalog.int8);
        END IF;
        DROP FUNCTION @extschema@.locality_uuid_node_home();
    END IF;
    IF pg_catalog.to_regprocedure('@extschema@.locality_uuid_node_id()') IS NULL THEN
        -- Ids for given times and Hot Guids start at random draws, as the C
        -- edition's do, and runs at a random place: two new databases do
        -- not draw the same series.
        PERFORM pg_catalog.setval('@extschema@_private.locality_uuid_at_seq', pg_catalog.floor(pg_catalog.random() * 2147483648::pg_catalog.float8)::pg_catalog.int8, false),
                pg_catalog.setval('@extschema@_private.locality_uuid_hot_seq', pg_catalog.floor(pg_catalog.random() * 1099511627776::pg_catalog.float8)::pg_catalog.int8, false);
        PERFORM @extschema@.locality_uuid_set_node(n, 'locality-' || pg_catalog.lpad(pg_catalog.to_hex(n), 7, '0'))
        FROM (SELECT 1 + pg_catalog.floor(pg_catalog.random() * 268435455::pg_catalog.float8)::pg_catalog.int4 AS n) AS random_node;
    END IF;
    IF pg_catalog.pg_sequence_last_value('@extschema@_private.locality_uuid_run_start') IS NULL THEN
        PERFORM pg_catalog.setval('@extschema@_private.locality_uuid_run_start',
                                  pg_catalog.floor(pg_catalog.random() * 16777216::pg_catalog.float8)::pg_catalog.int8);
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
