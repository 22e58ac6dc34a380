-- Who may do what (doc/sql-edition.md, "Who may do what"). The counters
-- and the lock live in the private schema (counters.sql), which no role
-- but the owner may use or hold anything in; roles make ids through the
-- makers, SECURITY DEFINER functions (generators.sql), and the right to
-- make ids is EXECUTE on them and on locality_uuid_window_usage(), which
-- reads the same counters: the README's grant is
-- GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA @extschema@ TO app
-- (the owner's functions check their caller themselves). Readers, the
-- C edition's names around the makers and the rest stay PUBLIC's, as any
-- function's. Run at every install and upgrade, after every routine
-- exists, with what counters.sql found:
--  * a fresh install: the makers' EXECUTE is taken from PUBLIC (a function
--    is PUBLIC's to call by default); default privileges that grant it to
--    a role are the DBA's choice and stay;
--  * the layout of 1.4 and before (the counters in @extschema@ itself,
--    just moved): the right to make ids was USAGE on the counters (the
--    README's GRANT USAGE ON ALL SEQUENCES); each role that held it on
--    the variable counter, PUBLIC included, may now call the makers, and
--    PUBLIC's default EXECUTE goes;
--  * this layout (a re-run of the same version): the makers' grants stay
--    as the owner set them.
-- Then every privilege of any other role on the private schema and its
-- relations is revoked: USAGE on a sequence is nextval by oid, with no
-- need to name it.
DO $privileges$
DECLARE
    makers pg_catalog.text := '@extschema@.locality_uuid_clock_id(pg_catalog.bool), '
                              '@extschema@.locality_uuid_given_id(pg_catalog.timestamptz, pg_catalog.bool), '
                              '@extschema@.locality_uuid_hot_make(pg_catalog.int8, pg_catalog.timestamptz, pg_catalog.int8), '
                              '@extschema@.locality_uuid_window_usage()';
    found pg_catalog.text := pg_catalog.current_setting('locality_uuid_sql.layout_found');
    private pg_catalog.oid := '@extschema@_private'::pg_catalog.regnamespace::pg_catalog.oid;
    grantee pg_catalog.text;
    revoke pg_catalog.text;
BEGIN
    IF found OPERATOR(pg_catalog.<>) 'private' THEN
        EXECUTE 'REVOKE EXECUTE ON FUNCTION ' OPERATOR(pg_catalog.||) makers OPERATOR(pg_catalog.||) ' FROM PUBLIC';
    END IF;
    IF found OPERATOR(pg_catalog.=) 'shared' THEN
        FOR grantee IN
            SELECT DISTINCT CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid THEN 'PUBLIC'
                                 ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)::pg_catalog.text) END
            FROM pg_catalog.pg_class c, pg_catalog.aclexplode(c.relacl) a
            WHERE c.oid OPERATOR(pg_catalog.=) '@extschema@_private.locality_uuid_variable_seq'::pg_catalog.regclass::pg_catalog.oid
              AND a.privilege_type OPERATOR(pg_catalog.=) 'USAGE' AND a.grantee OPERATOR(pg_catalog.<>) c.relowner
        LOOP
            EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s TO %s', makers, grantee);
        END LOOP;
    END IF;
    FOR revoke IN
        SELECT DISTINCT pg_catalog.format('REVOKE ALL ON %s %s FROM %s',
                                          CASE c.relkind WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END, c.oid::pg_catalog.regclass,
                                          CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid THEN 'PUBLIC'
                                               ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)::pg_catalog.text) END)
        FROM pg_catalog.pg_class c, pg_catalog.aclexplode(c.relacl) a
        WHERE c.relnamespace OPERATOR(pg_catalog.=) private AND a.grantee OPERATOR(pg_catalog.<>) c.relowner
        UNION
        SELECT pg_catalog.format('REVOKE ALL ON SCHEMA @extschema@_private FROM %s',
                                 CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid THEN 'PUBLIC'
                                      ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)::pg_catalog.text) END)
        FROM pg_catalog.pg_namespace n, pg_catalog.aclexplode(n.nspacl) a
        WHERE n.oid OPERATOR(pg_catalog.=) private AND a.grantee OPERATOR(pg_catalog.<>) n.nspowner
    LOOP
        EXECUTE revoke;
    END LOOP;
END
$privileges$;
