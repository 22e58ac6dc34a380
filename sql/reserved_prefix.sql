-- The locality_uuid.* prefix belongs to the extension once its library is
-- loaded: a misspelt setting is an error on PostgreSQL 15+
-- (MarkGUCPrefixReserved), where 13 and 14 accept it as a placeholder
-- (EmitWarningsOnPlaceholders only warns about placeholders that exist when
-- the library loads), so this check has one expected output per behaviour:
-- reserved_prefix.out (15+) and reserved_prefix_1.out (13, 14).
-- Which behaviour this major has, so that each major matches only its own
-- expected output.
SELECT current_setting('server_version_num')::int >= 150000 AS prefix_reserved_since_15;
SELECT locality_uuid_counter_scope() IS NOT NULL AS library_loaded;
SET locality_uuid.sequentail = on;
SHOW locality_uuid.sequential;
