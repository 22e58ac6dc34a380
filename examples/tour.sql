-- A short tour of locality_uuid, run by scripts/try.sh.
\pset footer off
CREATE EXTENSION locality_uuid;

\echo '--- Where this server gets its ids from'
SELECT locality_uuid_counter_scope() AS counter_scope, locality_uuid_node_id() AS node_id,
       locality_uuid_node_source() AS node_source;

\echo '--- Variable mode (default): the first hex digits change on every id'
SELECT locality_uuid() AS id FROM generate_series(1, 5);

\echo '--- Sequential mode: ids made now share a prefix and count up'
SELECT locality_uuid(sequential => true) AS id FROM generate_series(1, 5);

\echo '--- Session toggles, as in the original library'
SELECT locality_uuid_use_sequential_ids();
SELECT locality_uuid() AS id FROM generate_series(1, 3);
SELECT locality_uuid_use_variable_ids();

\echo '--- Every field reads back'
SELECT id, locality_uuid_counter(id) AS counter, locality_uuid_pid(id) AS pid,
       locality_uuid_mac(id) AS mac, locality_uuid_timestamp(id) AS created,
       locality_uuid_version(id) AS version
FROM (VALUES ('20be0ffc-314a-bd53-7a50-013a65ca76d2'::uuid), (locality_uuid())) v(id);

\echo '--- As a primary key default'
CREATE TABLE place (id uuid PRIMARY KEY DEFAULT locality_uuid(), name text);
INSERT INTO place (name) VALUES ('Joes Pizza'), ('Trampoline Park');
SELECT id, name, locality_uuid_timestamp(id) AS created FROM place;

\echo '--- How ids spread over 16 range shards (first hex digit), 100k ids each'
SELECT mode, count(*) AS shards_used, max(ids) AS busiest_shard, min(ids) AS quietest_shard
FROM (SELECT mode, shard, count(*) AS ids
      FROM (SELECT 'variable' AS mode, left(locality_uuid(false)::text, 1) AS shard
            FROM generate_series(1, 100000)
            UNION ALL
            SELECT 'sequential', left(locality_uuid(true)::text, 1) FROM generate_series(1, 100000)) s
      GROUP BY mode, shard) per_shard
GROUP BY mode ORDER BY mode;

\echo '--- Retrospective RFC 4122 version-1 ids'
SELECT form_uuid_v1('2016-11-08 12:38:20.617218+00', 666, '44:88:99:36:57:32') AS v1,
       uuid_v1_timestamp(form_uuid_v1('2016-11-08 12:38:20.617218+00', 666, '44:88:99:36:57:32')) AS back;
