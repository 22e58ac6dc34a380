-- Routines of earlier versions that this one no longer has: an upgrade
-- (a newer psql script run over an install, ALTER EXTENSION ... UPDATE)
-- drops them, and the uninstall script drops them if an older install
-- still has them (signatures.sh reads the lines below). Only the installing
-- role's own objects can be here: the install check refuses anything of
-- these names that another role owns.
-- 1.2: one maker for every kind, and the session cache's check.
-- retired routine: locality_uuid_make(pg_catalog.timestamptz, pg_catalog.bool, pg_catalog.bool)
-- retired routine: locality_uuid_cached_base(pg_catalog.int8)
-- 1.2: where the node value was set, a constant function (node.sql reads
-- it into the home sequences and drops it).
-- retired routine: locality_uuid_node_home()
DO $retired$
DECLARE
    routine pg_catalog.regprocedure;
BEGIN
    FOR routine IN
        SELECT p FROM pg_catalog.unnest(ARRAY['locality_uuid_make(pg_catalog.timestamptz, pg_catalog.bool, pg_catalog.bool)',
                                              'locality_uuid_cached_base(pg_catalog.int8)']) AS s(signature),
                      pg_catalog.to_regprocedure('@extschema@.' || s.signature) AS p
        WHERE p IS NOT NULL
    LOOP
        EXECUTE pg_catalog.format('DROP FUNCTION %s', routine);
    END LOOP;
END
$retired$;
