-- locality_uuid 1.0
-- Every type and function below is schema-qualified where it is not one of
-- ours, so the script is safe under any search_path (it may run as a
-- superuser for an ordinary role: the extension is trusted).

\echo Use "CREATE EXTENSION locality_uuid" to load this file. \quit

-- Generation: VOLATILE (a new id per call), PARALLEL SAFE (workers have their own pid).

CREATE FUNCTION locality_uuid() RETURNS pg_catalog.uuid
    AS 'MODULE_PATHNAME', 'locality_uuid_generate'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION locality_uuid() IS
    'New Locality UUID, in the mode of locality_uuid.sequential';

CREATE FUNCTION locality_uuid(sequential pg_catalog.bool) RETURNS pg_catalog.uuid
    AS 'MODULE_PATHNAME', 'locality_uuid_generate_mode'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION locality_uuid(pg_catalog.bool) IS
    'New Locality UUID in sequential mode (true) or variable mode (false)';

CREATE FUNCTION locality_uuid(ts pg_catalog.timestamptz) RETURNS pg_catalog.uuid
    AS 'MODULE_PATHNAME', 'locality_uuid_generate_at'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION locality_uuid(pg_catalog.timestamptz) IS
    'New Locality UUID carrying time ts (for backfills), mode from locality_uuid.sequential';

CREATE FUNCTION locality_uuid(ts pg_catalog.timestamptz, sequential pg_catalog.bool) RETURNS pg_catalog.uuid
    AS 'MODULE_PATHNAME', 'locality_uuid_generate_at_mode'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION locality_uuid(pg_catalog.timestamptz, pg_catalog.bool) IS
    'New Locality UUID carrying time ts, in the given mode';

CREATE FUNCTION locality_uuid_use_sequential_ids() RETURNS pg_catalog.void
    AS 'MODULE_PATHNAME', 'locality_uuid_use_sequential_ids'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION locality_uuid_use_sequential_ids() IS
    'SET locality_uuid.sequential = on for this session';

CREATE FUNCTION locality_uuid_use_variable_ids() RETURNS pg_catalog.void
    AS 'MODULE_PATHNAME', 'locality_uuid_use_variable_ids'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION locality_uuid_use_variable_ids() IS
    'SET locality_uuid.sequential = off for this session';

-- Extraction: IMMUTABLE STRICT PARALLEL SAFE, usable in expression indexes.
-- NULL for a uuid whose version nibble is not b.

CREATE FUNCTION locality_uuid_timestamp(id pg_catalog.uuid) RETURNS pg_catalog.timestamptz
    AS 'MODULE_PATHNAME', 'locality_uuid_timestamp'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION locality_uuid_timestamp(pg_catalog.uuid) IS
    'Generation time (millisecond precision) of a Locality UUID';

CREATE FUNCTION locality_uuid_pid(id pg_catalog.uuid) RETURNS pg_catalog.int4
    AS 'MODULE_PATHNAME', 'locality_uuid_pid'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION locality_uuid_pid(pg_catalog.uuid) IS
    'Process id (mod 65536) that generated a Locality UUID';

CREATE FUNCTION locality_uuid_mac(id pg_catalog.uuid) RETURNS pg_catalog.macaddr
    AS 'MODULE_PATHNAME', 'locality_uuid_mac'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION locality_uuid_mac(pg_catalog.uuid) IS
    'MAC fragment (last 28 bits, unknown leading bits zero) of a Locality UUID';

CREATE FUNCTION locality_uuid_node(id pg_catalog.uuid) RETURNS pg_catalog.int4
    AS 'MODULE_PATHNAME', 'locality_uuid_node'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION locality_uuid_node(pg_catalog.uuid) IS
    '28-bit node value of a Locality UUID (compare with locality_uuid_node_id())';

CREATE FUNCTION locality_uuid_counter(id pg_catalog.uuid, sequential pg_catalog.bool DEFAULT false)
    RETURNS pg_catalog.int8
    AS 'MODULE_PATHNAME', 'locality_uuid_counter'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION locality_uuid_counter(pg_catalog.uuid, pg_catalog.bool) IS
    'Counter of a Locality UUID: read nibble-reversed (variable mode) unless sequential is true';

CREATE FUNCTION locality_uuid_version(id pg_catalog.uuid) RETURNS pg_catalog.text
    AS 'MODULE_PATHNAME', 'locality_uuid_version'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION locality_uuid_version(pg_catalog.uuid) IS
    'Version nibble of any uuid as one hex character (b for Locality UUIDs)';

-- Status of this server's generator.

CREATE FUNCTION locality_uuid_counter_scope() RETURNS pg_catalog.text
    AS 'MODULE_PATHNAME', 'locality_uuid_counter_scope'
    LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION locality_uuid_counter_scope() IS
    'server: one shared-memory counter (preloaded); backend: one counter per backend';

CREATE FUNCTION locality_uuid_node_id() RETURNS pg_catalog.int4
    AS 'MODULE_PATHNAME', 'locality_uuid_node_id'
    LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION locality_uuid_node_id() IS
    '28-bit node value this backend writes into Locality UUIDs';

CREATE FUNCTION locality_uuid_node_source() RETURNS pg_catalog.text
    AS 'MODULE_PATHNAME', 'locality_uuid_node_source'
    LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION locality_uuid_node_source() IS
    'Where the node value comes from: setting, mac <interface> or none';

-- RFC 4122 version 1, for given times.

CREATE FUNCTION form_uuid_v1(ts pg_catalog.timestamptz, clock_seq pg_catalog.int4, mac pg_catalog.macaddr)
    RETURNS pg_catalog.uuid
    AS 'MODULE_PATHNAME', 'form_uuid_v1'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION form_uuid_v1(pg_catalog.timestamptz, pg_catalog.int4, pg_catalog.macaddr) IS
    'Version 1 UUID a machine with this MAC would have made at ts with this clock sequence';

CREATE FUNCTION form_uuid_v1_nth(ts pg_catalog.timestamptz, ordinal pg_catalog.int8, mac pg_catalog.macaddr)
    RETURNS pg_catalog.uuid
    AS 'MODULE_PATHNAME', 'form_uuid_v1_nth'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION form_uuid_v1_nth(pg_catalog.timestamptz, pg_catalog.int8, pg_catalog.macaddr) IS
    'The ordinal-th (0..163839) distinct version 1 UUID of one microsecond and MAC';

CREATE FUNCTION uuid_v1_timestamp(id pg_catalog.uuid) RETURNS pg_catalog.timestamptz
    AS 'MODULE_PATHNAME', 'uuid_v1_timestamp'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_v1_timestamp(pg_catalog.uuid) IS
    'Time of a version 1 UUID, truncated to the microsecond; NULL for other versions';

CREATE FUNCTION uuid_v1_clock_seq(id pg_catalog.uuid) RETURNS pg_catalog.int4
    AS 'MODULE_PATHNAME', 'uuid_v1_clock_seq'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_v1_clock_seq(pg_catalog.uuid) IS
    'Clock sequence of a version 1 UUID; NULL for other versions';

CREATE FUNCTION uuid_v1_node(id pg_catalog.uuid) RETURNS pg_catalog.macaddr
    AS 'MODULE_PATHNAME', 'uuid_v1_node'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_v1_node(pg_catalog.uuid) IS
    'Node (MAC) of a version 1 UUID; NULL for other versions';
