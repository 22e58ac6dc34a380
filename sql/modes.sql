-- Choosing the mode: the setting, the session toggles and the per-call form.

-- The independent definition of the window base: MD5 of the first 11
-- characters of yyyyMMddHHmm (UTC), first 4 digest bytes little-endian.
CREATE FUNCTION pg_temp.window_base(ts timestamptz) RETURNS bigint LANGUAGE sql AS $$
  SELECT ('x' || substr(h, 7, 2) || substr(h, 5, 2) || substr(h, 3, 2) || substr(h, 1, 2))::bit(32)::bigint
  FROM (SELECT md5(left(to_char(ts AT TIME ZONE 'UTC', 'YYYYMMDDHH24MI'), 11)) AS h) s $$;
SELECT to_hex(pg_temp.window_base('2013-04-28 01:04:00.038+00')) AS reference_base;

-- How far a sequential id's counter is past its window's base.
CREATE FUNCTION pg_temp.offset_in_window(id uuid) RETURNS bigint LANGUAGE sql AS $$
  SELECT (locality_uuid_counter(id, true) - pg_temp.window_base(locality_uuid_timestamp(id))
          + 4294967296) % 4294967296 $$;

-- Settings appear once the library is loaded: at server start when it is in
-- shared_preload_libraries, else on first use in the session.
SELECT locality_uuid() IS NOT NULL AS loaded;
-- (Not the settings whose context depends on preloading: postmaster when
-- preloaded, sighup otherwise.)
SELECT name, setting, context, vartype FROM pg_settings
WHERE name LIKE 'locality_uuid.%'
  AND name NOT IN ('locality_uuid.shared_counter', 'locality_uuid.wal_resource_manager_id',
                   'locality_uuid.host_identity_file', 'locality_uuid.require_node_id',
                   'locality_uuid.registry', 'locality_uuid.registry_owner',
                   'locality_uuid.host_marks_file') ORDER BY name;
-- Leases' settings (empty: no leases) and the host's marks file (auto:
-- beside the data directory), without their context.
SELECT name, setting, vartype FROM pg_settings
WHERE name IN ('locality_uuid.registry', 'locality_uuid.registry_owner', 'locality_uuid.host_marks_file')
ORDER BY name;
SHOW locality_uuid.sequential;

-- Sequential ids count up by one from base + 1 + the run start of their
-- window (the server's, or this backend's own; below 2^24); a new window
-- re-bases to its base + 1 + the run start.
SELECT run_start BETWEEN 0 AND 16777215 AS run_start_below_2_24 FROM locality_uuid_binding();
CREATE TEMP TABLE seq AS
SELECT n, locality_uuid(sequential => true) AS id FROM generate_series(1, 20000) n;
SELECT count(*) AS ids,
       count(*) FILTER (WHERE pg_temp.offset_in_window(id) BETWEEN 1 AND 2147483648) AS lower_half,
       count(*) FILTER (WHERE n > 1 AND NOT (
           pg_temp.offset_in_window(id) = pg_temp.offset_in_window(prev) + 1
           OR (pg_temp.window_base(locality_uuid_timestamp(id))
                   <> pg_temp.window_base(locality_uuid_timestamp(prev))
               AND pg_temp.offset_in_window(id) = 1 + (SELECT run_start FROM locality_uuid_binding())))) AS breaks,
       count(*) FILTER (WHERE n = 1 AND pg_temp.offset_in_window(id)
                                       < 1 + (SELECT run_start FROM locality_uuid_binding())) AS below_run_start
FROM (SELECT n, id, lag(id) OVER (ORDER BY n) AS prev FROM seq) s;

-- The setting picks the mode of locality_uuid().
SET locality_uuid.sequential = on;
SELECT pg_temp.offset_in_window(b) = pg_temp.offset_in_window(a) + 1 AS sequential
FROM (SELECT locality_uuid() AS a, locality_uuid() AS b) s;
RESET locality_uuid.sequential;
SELECT (locality_uuid_counter(b) - locality_uuid_counter(a) + 4294967296) % 4294967296 AS step
FROM (SELECT locality_uuid() AS a, locality_uuid() AS b) s;

-- Session toggles mirroring UUID::use_sequential_ids / use_variable_ids.
SELECT locality_uuid_use_sequential_ids();
SHOW locality_uuid.sequential;
SELECT pg_temp.offset_in_window(b) = pg_temp.offset_in_window(a) + 1 AS sequential
FROM (SELECT locality_uuid() AS a, locality_uuid() AS b) s;
SELECT locality_uuid_use_variable_ids();
SHOW locality_uuid.sequential;

-- A toggle inside an aborted transaction is undone, like SET.
BEGIN;
SELECT locality_uuid_use_sequential_ids();
ROLLBACK;
SHOW locality_uuid.sequential;

-- SET LOCAL lasts for the transaction only.
BEGIN;
SET LOCAL locality_uuid.sequential = on;
SHOW locality_uuid.sequential;
COMMIT;
SHOW locality_uuid.sequential;

-- The per-call form ignores the setting.
SET locality_uuid.sequential = on;
SELECT (locality_uuid_counter(b) - locality_uuid_counter(a) + 4294967296) % 4294967296 AS step
FROM (SELECT locality_uuid(false) AS a, locality_uuid(false) AS b) s;
RESET locality_uuid.sequential;
SELECT pg_temp.offset_in_window(b) = pg_temp.offset_in_window(a) + 1 AS sequential
FROM (SELECT locality_uuid(true) AS a, locality_uuid(true) AS b) s;

-- Ids for a given time in sequential mode use that time's window, in the
-- upper half of its counter space (README: Guarantees), counting up.
SELECT (locality_uuid_counter(id, true) - pg_temp.window_base(t) + 4294967296) % 4294967296
           > 2147483648 AS upper_half,
       locality_uuid_timestamp(id) = t AS time_kept
FROM (SELECT t, locality_uuid(t, true) AS id
      FROM (VALUES ('2013-04-28 01:04:00.038+00'::timestamptz)) v(t)) s;
SELECT count(*) AS ids,
       count(*) FILTER (WHERE (locality_uuid_counter(id, true) - pg_temp.window_base(t) + 4294967296)
                              % 4294967296 > 2147483648) AS upper_half
FROM (SELECT t, locality_uuid(t, true) AS id
      FROM generate_series('2013-04-28 00:00+00'::timestamptz, '2013-04-28 23:59+00', '1 minute') t) s;

-- A sequential backfill keeps each window's rows together: one short run
-- of counters per window.
CREATE TEMP TABLE backfill AS
SELECT t, locality_uuid(t, sequential => true) AS id
FROM generate_series('2020-03-01 12:00+00'::timestamptz, '2020-03-01 13:39:59+00', '100 ms') t;
SELECT count(*) AS windows, sum(ids) AS ids, max(span) < 6000 AS each_window_one_run
FROM (SELECT pg_temp.window_base(t), count(*) AS ids,
             max(pg_temp.offset_in_window(id)) - min(pg_temp.offset_in_window(id)) AS span
      FROM backfill GROUP BY 1) w;

-- Bad setting values are refused.
SET locality_uuid.sequential = 'sometimes';

-- Per database and per role, like any setting (a role's wins).
DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET locality_uuid.sequential = on', current_database()); END $$;
\c
SELECT locality_uuid() IS NOT NULL AS loaded;
SHOW locality_uuid.sequential;
ALTER ROLE CURRENT_USER SET locality_uuid.sequential = off;
\c
SELECT locality_uuid() IS NOT NULL AS loaded;
SHOW locality_uuid.sequential;
ALTER ROLE CURRENT_USER RESET locality_uuid.sequential;
DO $$ BEGIN EXECUTE format('ALTER DATABASE %I RESET locality_uuid.sequential', current_database()); END $$;
\c
SELECT locality_uuid() IS NOT NULL AS loaded;
SHOW locality_uuid.sequential;
