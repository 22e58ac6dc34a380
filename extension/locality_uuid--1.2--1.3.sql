-- locality_uuid 1.2 -> 1.3
-- Only CREATE FUNCTION, CREATE PROCEDURE (PL/pgSQL, stored, not run),
-- ALTER FUNCTION (volatility), REVOKE and COMMENT,
-- every type schema-qualified, as in the install scripts
-- (test/integration/install_scripts.sh checks both).

\echo Use "ALTER EXTENSION locality_uuid UPDATE TO '1.3'" to load this file. \quit

-- Handing the counters over between the C and SQL editions, or two
-- versions, on one database with one node value (README: moving between
-- the editions): where the server-wide counters go on, and moving them on
-- to continue another's. Superusers only, or roles granted EXECUTE.
CREATE FUNCTION locality_uuid_counters(
        OUT variable_next pg_catalog.int8, OUT given_time_next pg_catalog.int8, OUT hot_next pg_catalog.int8,
        OUT run_window pg_catalog.int8, OUT run_next pg_catalog.int8)
    RETURNS pg_catalog.record
    AS 'MODULE_PATHNAME', 'locality_uuid_counters'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
REVOKE ALL ON FUNCTION locality_uuid_counters() FROM PUBLIC;
COMMENT ON FUNCTION locality_uuid_counters() IS
    'Where this edition''s counters go on: next variable counter, given-time index, Hot Guid draw, and the clock window''s run';

CREATE FUNCTION locality_uuid_continue_after(variable_next pg_catalog.int8, given_time_next pg_catalog.int8,
                                             hot_next pg_catalog.int8, run_window pg_catalog.int8,
                                             run_next pg_catalog.int8)
    RETURNS pg_catalog.void
    AS 'MODULE_PATHNAME', 'locality_uuid_continue_after'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
REVOKE ALL ON FUNCTION locality_uuid_continue_after(pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8) FROM PUBLIC;
COMMENT ON FUNCTION locality_uuid_continue_after(pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8, pg_catalog.int8) IS
    'Moves this edition''s counters forward so that its next ids continue where another''s (its locality_uuid_counters()) stop';

-- Where this server's ids come from (doc/guarantees.md, "Copies"): the
-- node value and Hot Guid machine bytes with their sources, the host
-- identity's digest, the data directory and system identifier, and when the
-- server-wide counters were bound there. For a DBA and a fleet audit:
-- superusers and pg_monitor.
CREATE FUNCTION locality_uuid_binding(
        OUT node pg_catalog.int4, OUT node_source pg_catalog.text,
        OUT machine pg_catalog.text, OUT machine_source pg_catalog.text,
        OUT host pg_catalog.text, OUT host_source pg_catalog.text,
        OUT data_directory pg_catalog.text, OUT system_identifier pg_catalog.numeric,
        OUT bound_since pg_catalog.timestamptz, OUT run_start pg_catalog.int4)
    RETURNS pg_catalog.record
    AS 'MODULE_PATHNAME', 'locality_uuid_binding'
    LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
REVOKE ALL ON FUNCTION locality_uuid_binding() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION locality_uuid_binding() TO pg_monitor;
COMMENT ON FUNCTION locality_uuid_binding() IS
    'Where this server''s node value, machine bytes and server-wide counters come from and are bound';
