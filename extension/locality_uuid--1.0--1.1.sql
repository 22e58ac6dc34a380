-- locality_uuid 1.0 -> 1.1
-- Only CREATE FUNCTION and COMMENT, every type schema-qualified, as in the
-- install scripts (test/integration/install_scripts.sh checks both).

\echo Use "ALTER EXTENSION locality_uuid UPDATE TO '1.1'" to load this file. \quit

-- Backfills: locality_uuid(ts) and locality_uuid(sequential) make an untyped literal
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

-- Hot Guids: time-ordered ids whose last four bytes carry a caller-chosen
-- shard key, bit-compatible with the .NET HotGuid library.

CREATE FUNCTION hot_guid(shard_key pg_catalog.int8) RETURNS pg_catalog.uuid
    AS 'MODULE_PATHNAME', 'hot_guid_generate'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION hot_guid(pg_catalog.int8) IS
    'New Hot Guid for the current second carrying shard_key (0 to 4294967295)';

CREATE FUNCTION hot_guid(shard_key pg_catalog.int8, ts pg_catalog.timestamptz) RETURNS pg_catalog.uuid
    AS 'MODULE_PATHNAME', 'hot_guid_generate_at'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION hot_guid(pg_catalog.int8, pg_catalog.timestamptz) IS
    'New Hot Guid for time ts (whole seconds, for backfills) carrying shard_key';

CREATE FUNCTION hot_guid_shard_key(id pg_catalog.uuid) RETURNS pg_catalog.int8
    AS 'MODULE_PATHNAME', 'hot_guid_shard_key'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION hot_guid_shard_key(pg_catalog.uuid) IS
    'Shard key of a Hot Guid (its last four bytes, little-endian)';

CREATE FUNCTION hot_guid_timestamp(id pg_catalog.uuid) RETURNS pg_catalog.timestamptz
    AS 'MODULE_PATHNAME', 'hot_guid_timestamp'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION hot_guid_timestamp(pg_catalog.uuid) IS
    'Time of a Hot Guid, in whole seconds';

CREATE FUNCTION hot_guid_counter(id pg_catalog.uuid) RETURNS pg_catalog.int4
    AS 'MODULE_PATHNAME', 'hot_guid_counter'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION hot_guid_counter(pg_catalog.uuid) IS
    'The 24-bit counter of a Hot Guid';

CREATE FUNCTION hot_guid_pid(id pg_catalog.uuid) RETURNS pg_catalog.int4
    AS 'MODULE_PATHNAME', 'hot_guid_pid'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION hot_guid_pid(pg_catalog.uuid) IS
    'Process id (mod 65536) of the process that made a Hot Guid';

CREATE FUNCTION hot_guid_machine(id pg_catalog.uuid) RETURNS pg_catalog.text
    AS 'MODULE_PATHNAME', 'hot_guid_machine'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION hot_guid_machine(pg_catalog.uuid) IS
    'Machine bytes of a Hot Guid: the first three bytes of MD5(machine name), as hex';

CREATE FUNCTION hot_guid_machine_name() RETURNS pg_catalog.text
    AS 'MODULE_PATHNAME', 'hot_guid_machine_name'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION hot_guid_machine_name() IS
    'Machine name whose MD5 this server writes into Hot Guids';

CREATE FUNCTION hot_guid_machine_id() RETURNS pg_catalog.text
    AS 'MODULE_PATHNAME', 'hot_guid_machine_id'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION hot_guid_machine_id() IS
    'Machine bytes this server writes into Hot Guids, as hex';
