-- form_uuid_v1 against the seed PL/pgSQL users know.  The seed reads the
-- time with extract(EPOCH FROM ts), which is numeric from PostgreSQL 14 on
-- and double precision before: on 13 the seed itself rounds most
-- microseconds wrong, which expected/uuid_v1_seed_1.out records.
\i test/reference/seed_uuid_v1.sql

SELECT current_setting('server_version_num')::int >= 140000 AS extract_is_numeric;
SELECT form_uuid_v1('2016-11-08 12:38:20.617218+00', 666, '44:88:99:36:57:32') AS ours,
       seed_form_uuid_v1('2016-11-08 12:38:20.617218+00', 666, '44:88:99:36:57:32') AS seed;

-- Our function equals the seed wherever the seed is correct (valid
-- clock_seq, times from 1970 on) ...
SELECT count(*) AS compared,
       count(*) FILTER (WHERE form_uuid_v1(t, cs, '44:88:99:36:57:32')
                              <> seed_form_uuid_v1(t, cs, '44:88:99:36:57:32')) AS differ
FROM (SELECT '1970-01-01 00:00:00+00'::timestamptz + g * interval '12345 hours 678.901234 seconds' AS t,
             (g * 7919) % 16384 AS cs
      FROM generate_series(0, 2000) g) s;

-- ... and the seed silently keeps the low 14 bits of clock_seq, where ours
-- refuses.
SELECT seed_form_uuid_v1('2020-01-01+00', 16384 + 666, '44:88:99:36:57:32') AS seed_truncates,
       form_uuid_v1('2020-01-01+00', 666, '44:88:99:36:57:32') AS same_as_666;
SELECT form_uuid_v1('2020-01-01+00', 16384 + 666, '44:88:99:36:57:32');

DROP FUNCTION seed_form_uuid_v1(timestamptz, integer, macaddr), seed_uuid_v1_timestamp(uuid);
