-- The SQL edition's state: sequences, which PostgreSQL already makes
-- durable (WAL, crash, failover, point-in-time recovery, pg_upgrade,
-- pg_dump), where the C edition keeps shared memory, a state file and WAL
-- records. The counter rules are the C edition's (src/core/generator.hpp,
-- hot_guid_generator.hpp):
--
--  * variable mode: the n-th draw of locality_uuid_variable_seq has counter
--    variable_start + (n + 1) * 198491317 mod 2^32;
--  * sequential mode, clock time: window w keeps its run in sequence slot
--    w mod 64 (locality_uuid_run_00 .. _63), whose value is
--    (w + 1) * 2^32 + place: an id at place p of w's run has counter
--    base(w) + 1 + p, p < 2^31 (54000 past that). A run starts at the
--    database's run start (locality_uuid_run_start, below 2^24, random:
--    two databases, or a copy and its origin, do not count through the
--    same places at the same time), not at place 0. A slot that holds a
--    later window refuses with 55000 (the clock is 64 or more windows
--    behind), never restarts; a slot that holds an earlier window is taken
--    over by one caller, under the lock below;
--  * sequential mode, given time: base(w) + 2^31 + 1 + (n mod 2^31) with n
--    from locality_uuid_at_seq;
--  * Hot Guids: the 24-bit counter is the draw of locality_uuid_hot_seq mod
--    2^24, and the second is the clock's (README: what differs).
--
-- Besides the counters, four sequences hold values set with setval, so
-- that they change without DDL and without waiting for any transaction:
-- where the counters were last bound (locality_uuid_home_system,
-- _database and _timeline: a copy of the database elsewhere, or a new
-- timeline, moves its counters, node.sql; 0: not bound yet) and the run
-- start. Only the owner may draw from them (below), but a nextval by
-- hand, or by a role a later grant let in, would change a value: each of
-- the four increments by 2^63 - 1 up to 2^63 - 2, so that nextval past
-- any value it holds fails, and only setval changes it.
--
-- The session's own cache is one more such sequence, read with currval
-- (a session's currval is its own, and set only by its own nextval or
-- setval): locality_uuid_session, set by the owner's functions alone
-- (SECURITY DEFINER, node.sql and generators.sql) once a session has bound
-- the counters here (0), then to (w << 32) | the window base of the
-- session's last sequential window w. No session can set it to anything
-- else: a setting would be any session's (or a pooled connection's
-- previous client's) to forge.
--
-- Every object here lives in the edition's private schema,
-- @extschema@_private, which no role but the edition's owner may use: a
-- role that cannot name a relation can hold no lock on it, not even the
-- ones PostgreSQL takes at parse time without a privilege check
-- (PREPARE p AS SELECT ... FOR UPDATE), nor queue a strong request behind
-- such a hold that every later request would wait for. Roles make ids
-- through the makers (SECURITY DEFINER, generators.sql), never by nextval:
-- the right to make ids is EXECUTE on them (privileges.sql).
--
-- Each object is created by the installing role itself (the install
-- refuses a schema where another role owns anything or may create, and any
-- object of these names it does not own: install_check.sh) and holds no
-- privilege for any other role, whatever default privileges say
-- (privileges.sql revokes every one at every run). An install of 1.4 or
-- before kept them in @extschema@ itself: they move here with their values
-- (ALTER ... SET SCHEMA keeps the relation, its oid and, in an extension,
-- its membership and pg_dump configuration). A move waits for every
-- transaction that holds a lock on that relation and keeps its own lock
-- until the install commits, and every id that needs the relation waits
-- behind it. So: a prepared transaction holding any of them (1.4 let any
-- role with USAGE on the schema take such a lock from parse time and keep
-- it so) refuses the upgrade at once (55006, naming its gid); each move
-- waits at most 100 ms at a time, retried for about 3 s, then refuses
-- the same way, naming the processes that hold it (a transaction left
-- idle: a role that is neither a superuser nor in pg_read_all_stats
-- cannot tell an idle session from a busy one); and the relations every
-- id needs move last (the counters, the session cache, the runs of the
-- clock's window and the next), the rest first.
DO $sequences$
DECLARE
    name pg_catalog.text;
    cache pg_catalog.int4;
    held pg_catalog.bool;
    holders pg_catalog.text;
    relations pg_catalog.name[];
    busy pg_catalog.name[];
    now_slot pg_catalog.int4 := pg_catalog.mod(pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp())
                                                                 OPERATOR(pg_catalog./) 600)::pg_catalog.int8, 64::pg_catalog.int8)::pg_catalog.int4;
    tries pg_catalog.int4;
    timeout_before pg_catalog.text;
BEGIN
    IF pg_catalog.to_regnamespace('@extschema@_private') IS NULL THEN
        CREATE SCHEMA @extschema@_private;
    END IF;
    -- What this run finds, for privileges.sql: this layout (a re-run),
    -- the shared layout of 1.4 and before (its roles that drew from the
    -- counters become roles that may call the makers), or a fresh
    -- install (an empty private schema made beforehand included).
    PERFORM pg_catalog.set_config('locality_uuid_sql.layout_found',
                                  CASE WHEN pg_catalog.to_regclass('@extschema@_private.locality_uuid_variable_seq') IS NOT NULL THEN 'private'
                                       WHEN pg_catalog.to_regclass('@extschema@.locality_uuid_variable_seq') IS NOT NULL THEN 'shared'
                                       ELSE 'fresh' END, true);
    -- The relations in order: what ids rarely need first, then the runs
    -- of the clock's window and the next, the session cache and the
    -- counters.
    busy := ARRAY['locality_uuid_run_' || pg_catalog.lpad(now_slot::pg_catalog.text, 2, '0'),
                  'locality_uuid_run_' || pg_catalog.lpad(pg_catalog.mod(now_slot OPERATOR(pg_catalog.+) 1, 64)::pg_catalog.text, 2, '0'),
                  'locality_uuid_session', 'locality_uuid_at_seq', 'locality_uuid_hot_seq', 'locality_uuid_variable_seq']::pg_catalog.name[];
    relations := ARRAY(SELECT r.name
                       FROM pg_catalog.unnest(ARRAY(SELECT ('locality_uuid_run_' || pg_catalog.lpad(slot::pg_catalog.text, 2, '0'))::pg_catalog.name
                                                    FROM pg_catalog.generate_series(0, 63) AS slot)
                                              || '{locality_uuid_home_system,locality_uuid_home_database,locality_uuid_home_timeline,locality_uuid_run_start,locality_uuid_lock}'::pg_catalog.name[]) AS r(name)
                       WHERE NOT r.name OPERATOR(pg_catalog.=) ANY (busy)) || busy;
    -- Prepared transactions (pg_locks shows them to every role): they end
    -- only by hand.
    SELECT pg_catalog.string_agg(DISTINCT pg_catalog.format('prepared transaction %L', coalesce(x.gid, '?')), '; ')
    INTO holders
    FROM pg_catalog.pg_locks l
    JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) l.relation
    -- (A prepared transaction's locks keep its virtual transaction, whose
    -- transactionid lock names its xid.)
    LEFT JOIN pg_catalog.pg_locks t
           ON t.pid IS NULL AND t.locktype OPERATOR(pg_catalog.=) 'transactionid'
          AND t.virtualtransaction OPERATOR(pg_catalog.=) l.virtualtransaction
    LEFT JOIN pg_catalog.pg_prepared_xacts x ON x.transaction OPERATOR(pg_catalog.=) t.transactionid
    WHERE c.relnamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace::pg_catalog.oid
      AND c.relname OPERATOR(pg_catalog.=) ANY (relations) AND l.granted AND l.pid IS NULL
      -- (a copy of this database, CREATE DATABASE ... TEMPLATE, has its oids)
      AND l.database OPERATOR(pg_catalog.=) (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database());
    IF holders IS NOT NULL THEN
        RAISE EXCEPTION 'locality_uuid: upgrade refused: other transactions hold locks on the counters'
            USING ERRCODE = '55006',
                  DETAIL = holders || '. Moving the counters to @extschema@_private waits for every lock on them, and every id waits behind the move.',
                  HINT = 'End them (COMMIT PREPARED or ROLLBACK PREPARED), then run the upgrade again.';
    END IF;
    timeout_before := pg_catalog.current_setting('lock_timeout');
    FOREACH name IN ARRAY relations LOOP
        CONTINUE WHEN pg_catalog.to_regclass('@extschema@_private.' || name) IS NOT NULL;
        IF pg_catalog.to_regclass('@extschema@.' || name) IS NOT NULL THEN
            tries := 0;
            LOOP
                BEGIN
                    PERFORM pg_catalog.set_config('lock_timeout', '100ms', true);
                    EXECUTE pg_catalog.format(CASE WHEN name OPERATOR(pg_catalog.=) 'locality_uuid_lock'
                                                   THEN 'ALTER VIEW @extschema@.%I SET SCHEMA @extschema@_private'
                                                   ELSE 'ALTER SEQUENCE @extschema@.%I SET SCHEMA @extschema@_private' END, name);
                    EXIT;
                EXCEPTION WHEN lock_not_available THEN
                    tries := tries OPERATOR(pg_catalog.+) 1;
                END;
                IF tries OPERATOR(pg_catalog.>=) 15 THEN
                    SELECT pg_catalog.string_agg(DISTINCT CASE WHEN l.pid IS NULL THEN 'a prepared transaction'
                                                               ELSE pg_catalog.format('process %s of role %s%s', l.pid, a.usename,
                                                                                      CASE WHEN a.state IS NULL THEN ''
                                                                                           ELSE pg_catalog.format(' (%s since %s)', a.state, a.state_change) END) END,
                                                 '; ')
                    INTO holders
                    FROM pg_catalog.pg_locks l
                    LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid OPERATOR(pg_catalog.=) l.pid
                    WHERE l.relation OPERATOR(pg_catalog.=) ('@extschema@.' || name)::pg_catalog.regclass::pg_catalog.oid AND l.granted
                      AND l.pid IS DISTINCT FROM pg_catalog.pg_backend_pid()
                      AND l.database OPERATOR(pg_catalog.=) (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database());
                    RAISE EXCEPTION 'locality_uuid: upgrade refused: other transactions hold locks on the counters'
                        USING ERRCODE = '55006',
                              DETAIL = pg_catalog.format('%s held %s for 3 s. Moving the counters to @extschema@_private waits for every lock on them, and every id waits behind the move.',
                                                         coalesce(holders, 'A transaction that ended since'), name),
                              HINT = 'End or wait for those transactions (pg_locks, pg_stat_activity; pg_terminate_backend), then run the upgrade again.';
                END IF;
                PERFORM pg_catalog.pg_sleep(0.1);
            END LOOP;
            PERFORM pg_catalog.set_config('lock_timeout', timeout_before, true);
        ELSIF name OPERATOR(pg_catalog.=) 'locality_uuid_lock' THEN
            -- The view the moves, the takeover and the release lock (SHARE
            -- UPDATE EXCLUSIVE, node.sql).
            CREATE VIEW @extschema@_private.locality_uuid_lock AS SELECT;
        ELSE
            -- The counters: CACHE 256; the sequential runs: CACHE 1, as
            -- the ids of a window count up server-wide; the set values
            -- and the session cache: held (below).
            cache := CASE WHEN name OPERATOR(pg_catalog.=) ANY ('{locality_uuid_variable_seq,locality_uuid_at_seq,locality_uuid_hot_seq}'::pg_catalog.name[])
                          THEN 256 ELSE 1 END;
            held := name OPERATOR(pg_catalog.=) ANY ('{locality_uuid_home_system,locality_uuid_home_database,locality_uuid_home_timeline,locality_uuid_run_start,locality_uuid_session}'::pg_catalog.name[]);
            EXECUTE pg_catalog.format('CREATE SEQUENCE @extschema@_private.%I AS pg_catalog.int8 MINVALUE 0 START 0 CACHE %s%s',
                                      name, cache,
                                      CASE WHEN held THEN ' MAXVALUE 9223372036854775806 INCREMENT BY 9223372036854775807'
                                           ELSE '' END);
            -- A held value is set at once (0, not bound yet; the run start
            -- is drawn in node.sql): a first nextval would otherwise
            -- return the start and mark the sequence called.
            IF held AND name OPERATOR(pg_catalog.<>) 'locality_uuid_run_start' THEN
                PERFORM pg_catalog.setval(('@extschema@_private.' || name)::pg_catalog.regclass, 0, true);
            END IF;
        END IF;
    END LOOP;
END
$sequences$;
COMMENT ON SCHEMA @extschema@_private IS
    'SQL edition: the counters and the lock of the SQL edition in schema @extschema@ (its owner''s alone)';
COMMENT ON VIEW @extschema@_private.locality_uuid_lock IS
    'SQL edition: locked by the run takeover and the release only (its owner''s)';

-- The sequential runs' sequences, in slot order, for nextval by oid (no
-- name lookup per id).
CREATE OR REPLACE FUNCTION locality_uuid_runs() RETURNS pg_catalog.regclass[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT ARRAY['@extschema@_private.locality_uuid_run_00', '@extschema@_private.locality_uuid_run_01', '@extschema@_private.locality_uuid_run_02', '@extschema@_private.locality_uuid_run_03',
             '@extschema@_private.locality_uuid_run_04', '@extschema@_private.locality_uuid_run_05', '@extschema@_private.locality_uuid_run_06', '@extschema@_private.locality_uuid_run_07',
             '@extschema@_private.locality_uuid_run_08', '@extschema@_private.locality_uuid_run_09', '@extschema@_private.locality_uuid_run_10', '@extschema@_private.locality_uuid_run_11',
             '@extschema@_private.locality_uuid_run_12', '@extschema@_private.locality_uuid_run_13', '@extschema@_private.locality_uuid_run_14', '@extschema@_private.locality_uuid_run_15',
             '@extschema@_private.locality_uuid_run_16', '@extschema@_private.locality_uuid_run_17', '@extschema@_private.locality_uuid_run_18', '@extschema@_private.locality_uuid_run_19',
             '@extschema@_private.locality_uuid_run_20', '@extschema@_private.locality_uuid_run_21', '@extschema@_private.locality_uuid_run_22', '@extschema@_private.locality_uuid_run_23',
             '@extschema@_private.locality_uuid_run_24', '@extschema@_private.locality_uuid_run_25', '@extschema@_private.locality_uuid_run_26', '@extschema@_private.locality_uuid_run_27',
             '@extschema@_private.locality_uuid_run_28', '@extschema@_private.locality_uuid_run_29', '@extschema@_private.locality_uuid_run_30', '@extschema@_private.locality_uuid_run_31',
             '@extschema@_private.locality_uuid_run_32', '@extschema@_private.locality_uuid_run_33', '@extschema@_private.locality_uuid_run_34', '@extschema@_private.locality_uuid_run_35',
             '@extschema@_private.locality_uuid_run_36', '@extschema@_private.locality_uuid_run_37', '@extschema@_private.locality_uuid_run_38', '@extschema@_private.locality_uuid_run_39',
             '@extschema@_private.locality_uuid_run_40', '@extschema@_private.locality_uuid_run_41', '@extschema@_private.locality_uuid_run_42', '@extschema@_private.locality_uuid_run_43',
             '@extschema@_private.locality_uuid_run_44', '@extschema@_private.locality_uuid_run_45', '@extschema@_private.locality_uuid_run_46', '@extschema@_private.locality_uuid_run_47',
             '@extschema@_private.locality_uuid_run_48', '@extschema@_private.locality_uuid_run_49', '@extschema@_private.locality_uuid_run_50', '@extschema@_private.locality_uuid_run_51',
             '@extschema@_private.locality_uuid_run_52', '@extschema@_private.locality_uuid_run_53', '@extschema@_private.locality_uuid_run_54', '@extschema@_private.locality_uuid_run_55',
             '@extschema@_private.locality_uuid_run_56', '@extschema@_private.locality_uuid_run_57', '@extschema@_private.locality_uuid_run_58', '@extschema@_private.locality_uuid_run_59',
             '@extschema@_private.locality_uuid_run_60', '@extschema@_private.locality_uuid_run_61', '@extschema@_private.locality_uuid_run_62', '@extschema@_private.locality_uuid_run_63'
            ]::pg_catalog.regclass[]
$$;
COMMENT ON FUNCTION locality_uuid_runs() IS
    'SQL edition: the 64 sequences of the sequential runs, slot 0 first';

-- Which version of the SQL edition this schema holds (the extension forms
-- also say it in pg_extension).
CREATE OR REPLACE FUNCTION locality_uuid_sql_version() RETURNS pg_catalog.text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT '@version@'::pg_catalog.text
$$;
COMMENT ON FUNCTION locality_uuid_sql_version() IS
    'SQL edition: the version of the SQL edition installed in this schema';

-- The edition's owner: the role that installed it and owns every object
-- (the install checks so). The node value and the release are its, and
-- its members' (install as a group role to name who may change them).
CREATE OR REPLACE FUNCTION locality_uuid_require_owner(what pg_catalog.text) RETURNS pg_catalog.void
    LANGUAGE plpgsql STABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    owner pg_catalog.oid := (SELECT p.proowner FROM pg_catalog.pg_proc p
                             WHERE p.oid = '@extschema@.locality_uuid_runs()'::pg_catalog.regprocedure::pg_catalog.oid);
BEGIN
    IF NOT pg_catalog.pg_has_role(pg_catalog.current_user(), owner, 'USAGE') THEN
        RAISE EXCEPTION 'permission denied for %', what
            USING ERRCODE = '42501',
                  DETAIL = pg_catalog.format('Only the SQL edition''s owner, role %s, and its members may call it; role %s may not.',
                                             pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(owner)::pg_catalog.text),
                                             pg_catalog.quote_ident(pg_catalog.current_user()::pg_catalog.text)),
                  HINT = 'A grant of EXECUTE is not enough: run it as the owner, or as a member of the owner role.';
    END IF;
END
$$;
COMMENT ON FUNCTION locality_uuid_require_owner(pg_catalog.text) IS
    'SQL edition: refuses (42501) a caller that is neither the edition''s owner nor a member of it';
