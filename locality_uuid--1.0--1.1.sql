-- locality_uuid 1.0 -> 1.1
-- Only CREATE FUNCTION and COMMENT, every type schema-qualified, as in the
-- install scripts (test/integration/install_scripts.sh checks both).

\echo Use "ALTER EXTENSION locality_uuid UPDATE TO '1.1'" to load this file. \quit

-- locality_uuid(ts) and locality_uuid(sequential) make an untyped literal
-- ambiguous (locality_uuid('2024-01-01') is error 42725); these names take
-- a literal. The 1.0 overloads stay, so DEFAULTs and views that use them
-- keep working.

CREATE FUNCTION locality_uuid_at(ts pg_catalog.timestamptz) RETURNS pg_catalog.uuid
    AS 'MODULE_PATHNAME', 'locality_uuid_generate_at'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION locality_uuid_at(pg_catalog.timestamptz) IS
    'New Locality UUID carrying time ts (for backfills), mode from locality_uuid.sequential';

CREATE FUNCTION locality_uuid_at(ts pg_catalog.timestamptz, sequential pg_catalog.bool) RETURNS pg_catalog.uuid
    AS 'MODULE_PATHNAME', 'locality_uuid_generate_at_mode'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION locality_uuid_at(pg_catalog.timestamptz, pg_catalog.bool) IS
    'New Locality UUID carrying time ts (for backfills), in the given mode';
