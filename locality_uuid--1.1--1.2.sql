-- locality_uuid 1.1 -> 1.2
-- Only CREATE FUNCTION, ALTER FUNCTION (volatility), REVOKE and COMMENT,
-- every type schema-qualified, as in the install scripts
-- (test/integration/install_scripts.sh checks both).

\echo Use "ALTER EXTENSION locality_uuid UPDATE TO '1.2'" to load this file. \quit

-- The machine name and bytes change only with a reload of
-- locality_uuid.machine_name: one value per statement is right.
ALTER FUNCTION hot_guid_machine_name() STABLE;
ALTER FUNCTION hot_guid_machine_id() STABLE;

-- Hot Guid time ranges as ranges of the key: IMMUTABLE (an absolute
-- instant rounded up to its second).

CREATE FUNCTION hot_guid_lower(ts pg_catalog.timestamptz) RETURNS pg_catalog.uuid
    AS 'MODULE_PATHNAME', 'hot_guid_lower'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION hot_guid_lower(pg_catalog.timestamptz) IS
    'Smallest id of the Hot Guids made at ts or later: id >= hot_guid_lower(a) AND id < hot_guid_lower(b) is a key range';

-- A forward clock glitch of 64 or more windows leaves a sequential run in
-- the future; this releases it (README, Guarantees). Superusers only, or
-- roles granted EXECUTE.
CREATE FUNCTION locality_uuid_release_future_windows(
        OUT window_start pg_catalog.timestamptz, OUT window_end pg_catalog.timestamptz)
    RETURNS SETOF pg_catalog.record
    AS 'MODULE_PATHNAME', 'locality_uuid_release_future_windows'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
REVOKE ALL ON FUNCTION locality_uuid_release_future_windows() FROM PUBLIC;
COMMENT ON FUNCTION locality_uuid_release_future_windows() IS
    'Releases the sequential runs of windows 64 or more ahead of the clock (after a forward clock glitch) and returns them';
