-- PostgreSQL 17+ reads uuids with core uuid_extract_version() and
-- uuid_extract_timestamp().  They agree with ours on version-1 ids; on
-- Locality ids they answer by the RFC rules, which do not fit our layout
-- (use locality_uuid_version() and locality_uuid_timestamp() instead).
-- Before 17 there is nothing to compare: expected/core_uuid_functions_1.out.
SELECT current_setting('server_version_num')::int < 170000 AS before_17 \gset
\if :before_17
\quit
\endif

-- Version-1 ids from form_uuid_v1 across the whole range, and from
-- form_uuid_v1_nth across all ten 100-ns ticks of a microsecond: core and
-- ours give the same version and the same (truncated) microsecond.
SELECT count(*) AS ids,
       count(*) FILTER (WHERE uuid_extract_version(u) = 1) AS core_says_version_1,
       count(*) FILTER (WHERE uuid_extract_timestamp(u) = uuid_v1_timestamp(u)
                          AND uuid_v1_timestamp(u) = t) AS same_time
FROM (SELECT t, form_uuid_v1(t, g % 16384, '44:88:99:36:57:32') AS u
      FROM (SELECT g, '1582-10-15 00:00:00+00'::timestamptz + g * interval '11 days 3:17:47.123457' AS t
            FROM generate_series(0, 120000) g) s
      WHERE t <= '5236-03-31 21:21:00.684697+00'
      UNION ALL
      SELECT '2016-11-08 12:38:20.617218+00', form_uuid_v1_nth('2016-11-08 12:38:20.617218+00', o, '44:88:99:36:57:32')
      FROM generate_series(0, 163839, 1021) o) ids;

-- Locality ids: the version nibble is b (11), but byte 8 holds node bits,
-- not the RFC variant.  Core reads version 11 only when those bits happen
-- to be 10, and never a time; locality_uuid_version() and
-- locality_uuid_timestamp() read every Locality id.
SELECT id, to_hex(get_byte(uuid_send(id), 8)) AS byte_8,
       uuid_extract_version(id) AS core_version, uuid_extract_timestamp(id) AS core_time,
       locality_uuid_version(id) AS version,
       locality_uuid_timestamp(id) AT TIME ZONE 'UTC' AS utc
FROM (VALUES ('20be0ffc-314a-bd53-7a50-013a65ca76d2'::uuid),
             ('20be0ffc-314a-bd53-8a50-013a65ca76d2'),
             ('20be0ffc-314a-bd53-ca50-013a65ca76d2')) v(id);
