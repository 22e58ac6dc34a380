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
-- its membership and pg_dump configuration), waiting at most lock_timeout
-- (10 s unless the session set one) for transactions that drew from them.
DO $sequences$
DECLARE
    name pg_catalog.text;
    cache pg_catalog.int4;
    held pg_catalog.bool;
    found pg_catalog.text := 'fresh';
BEGIN
    IF pg_catalog.to_regnamespace('@extschema@_private') IS NULL THEN
        CREATE SCHEMA @extschema@_private;
    ELSE
        found := 'private';
    END IF;
    IF pg_catalog.current_setting('lock_timeout') OPERATOR(pg_catalog.=) '0' THEN
        PERFORM pg_catalog.set_config('lock_timeout', '10s', true);
    END IF;
    FOR name, cache, held IN
        SELECT s.name, s.cache, s.held
        FROM (VALUES ('locality_uuid_variable_seq', 256, false), ('locality_uuid_at_seq', 256, false),
                     ('locality_uuid_hot_seq', 256, false),
                     ('locality_uuid_home_system', 1, true), ('locality_uuid_home_database', 1, true),
                     ('locality_uuid_home_timeline', 1, true), ('locality_uuid_run_start', 1, true),
                     ('locality_uuid_session', 1, true)) AS s(name, cache, held)
        UNION ALL
        -- The sequential runs: one sequence per slot, CACHE 1, since the
        -- ids of a window count up server-wide.
        SELECT 'locality_uuid_run_' || pg_catalog.lpad(slot::pg_catalog.text, 2, '0'), 1, false
        FROM pg_catalog.generate_series(0, 63) AS slot
    LOOP
        IF pg_catalog.to_regclass('@extschema@_private.' || name) IS NOT NULL THEN
            CONTINUE;
        END IF;
        IF pg_catalog.to_regclass('@extschema@.' || name) IS NOT NULL THEN
            EXECUTE pg_catalog.format('ALTER SEQUENCE @extschema@.%I SET SCHEMA @extschema@_private', name);
            found := 'shared';
            CONTINUE;
        END IF;
        EXECUTE pg_catalog.format('CREATE SEQUENCE @extschema@_private.%I AS pg_catalog.int8 MINVALUE 0 START 0 CACHE %s%s',
                                  name, cache,
                                  CASE WHEN held THEN ' MAXVALUE 9223372036854775806 INCREMENT BY 9223372036854775807'
                                       ELSE '' END);
        -- A held value is set at once (0, not bound yet; the run start
        -- is drawn in node.sql): a first nextval would otherwise
        -- return the start and mark the sequence called.
        IF held AND name <> 'locality_uuid_run_start' THEN
            PERFORM pg_catalog.setval(('@extschema@_private.' || name)::pg_catalog.regclass, 0, true);
        END IF;
    END LOOP;
    -- The view the moves, the takeover and the release lock (SHARE UPDATE
    -- EXCLUSIVE, node.sql).
    IF pg_catalog.to_regclass('@extschema@_private.locality_uuid_lock') IS NULL THEN
        IF pg_catalog.to_regclass('@extschema@.locality_uuid_lock') IS NOT NULL THEN
            ALTER VIEW @extschema@.locality_uuid_lock SET SCHEMA @extschema@_private;
        ELSE
            CREATE VIEW @extschema@_private.locality_uuid_lock AS SELECT;
        END IF;
    END IF;
    -- What this run found, for privileges.sql: a fresh install, the
    -- shared layout of 1.4 and before (its roles that drew from the
    -- counters become roles that may call the makers), or this layout.
    PERFORM pg_catalog.set_config('locality_uuid_sql.layout_found', found, true);
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
