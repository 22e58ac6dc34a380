-- PostgreSQL 18+ lists loaded libraries with their name and version
-- (PG_MODULE_MAGIC_EXT). Before 18 there is no such function:
-- expected/loaded_modules_1.out.
SELECT current_setting('server_version_num')::int < 180000 AS before_18 \gset
\if :before_18
\quit
\endif

SELECT locality_uuid_counter_scope() IS NOT NULL AS library_loaded;
-- (Its version a number, compared below with the control file's.)
SELECT module_name, version ~ '^[0-9]+\.[0-9]+$' AS version_is_a_number, file_name
FROM pg_get_loaded_modules() WHERE module_name = 'locality_uuid';
-- The library's version is the extension's default version (the control file's).
SELECT m.version = e.default_version AS library_is_default_version
FROM pg_get_loaded_modules() m, pg_available_extensions e
WHERE m.module_name = 'locality_uuid' AND e.name = 'locality_uuid';
