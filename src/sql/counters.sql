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
-- start. Roles that make ids hold USAGE on the schema's sequences (a
-- blanket GRANT USAGE ON ALL SEQUENCES reaches these four too), and
-- nextval would change a value: each of the four increments by 2^63 - 1
-- up to 2^63 - 2, so that nextval past any value it holds fails, and
-- only setval (the owner's) changes it.
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
-- Every object here is created by the installing role itself (the install
-- refuses a schema where another role owns anything or may create, and any
-- object of these names it does not own: install_check.sh), and starts
-- with no privilege for any other role, whatever default privileges say:
-- the README's grants are the only ones.
DO $sequences$
DECLARE
    created pg_catalog.text[] := '{}';
    name pg_catalog.text;
    cache pg_catalog.int4;
    held pg_catalog.bool;
    grantee pg_catalog.oid;
BEGIN
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
        IF pg_catalog.to_regclass('@extschema@.' || name) IS NULL THEN
            EXECUTE pg_catalog.format('CREATE SEQUENCE @extschema@.%I AS pg_catalog.int8 MINVALUE 0 START 0 CACHE %s%s',
                                      name, cache,
                                      CASE WHEN held THEN ' MAXVALUE 9223372036854775806 INCREMENT BY 9223372036854775807'
                                           ELSE '' END);
            -- A held value is set at once (0, not bound yet; the run start
            -- is drawn in node.sql): a first nextval would otherwise
            -- return the start and mark the sequence called.
            IF held AND name <> 'locality_uuid_run_start' THEN
                PERFORM pg_catalog.setval(('@extschema@.' || name)::pg_catalog.regclass, 0, true);
            END IF;
            created := created || name;
        END IF;
    END LOOP;
    -- The view the moves, the takeover and the release lock (SHARE UPDATE
    -- EXCLUSIVE, node.sql): only its owner can lock it in a mode that
    -- conflicts with theirs; what any role can hold from parse time (ROW
    -- SHARE, ROW EXCLUSIVE) does not.
    IF pg_catalog.to_regclass('@extschema@.locality_uuid_lock') IS NULL THEN
        CREATE VIEW @extschema@.locality_uuid_lock AS SELECT;
        created := created || 'locality_uuid_lock'::pg_catalog.text;
    END IF;
    FOREACH name IN ARRAY created LOOP
        EXECUTE pg_catalog.format('REVOKE ALL ON @extschema@.%I FROM PUBLIC', name);
        FOR grantee IN
            SELECT DISTINCT a.grantee
            FROM pg_catalog.pg_class c, pg_catalog.aclexplode(c.relacl) a
            WHERE c.oid = ('@extschema@.' || name)::pg_catalog.regclass::pg_catalog.oid
              AND a.grantee <> c.relowner AND a.grantee <> 0::pg_catalog.oid
        LOOP
            EXECUTE pg_catalog.format('REVOKE ALL ON @extschema@.%I FROM %I', name, pg_catalog.pg_get_userbyid(grantee));
        END LOOP;
    END LOOP;
END
$sequences$;
COMMENT ON VIEW locality_uuid_lock IS
    'SQL edition: locked by the run takeover and the release only (its owner''s)';

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
