-- locality_uuid 1.3 -> 1.4
-- 1.4 is the library's: leases (locality_uuid.registry, doc/fleets.md).
-- No SQL object changes; the update only records the version.

\echo Use "ALTER EXTENSION locality_uuid UPDATE TO '1.4'" to load this file. \quit
