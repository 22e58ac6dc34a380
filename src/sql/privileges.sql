-- Who may do what (doc/sql-edition.md, "Who may do what"). The counters
-- and the lock live in the private schema (counters.sql), which no role
-- but the owner may use or hold anything in; roles make ids through the
-- makers, SECURITY DEFINER functions (generators.sql), and the right to
-- make ids is EXECUTE on them and on locality_uuid_window_usage(), which
-- reads the same counters: the README's grant is
-- GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA @extschema@ TO app
-- (the owner's functions check their caller themselves). The makers'
-- helpers that bind, remember a window and take a run over are called by
-- the makers alone, as the owner: nobody else needs them. Readers, the
-- C edition's names around the makers and the rest stay PUBLIC's, as any
-- function's. Run at every install and upgrade, after every routine
-- exists, with what counters.sql found:
--  * a fresh install: the makers' and helpers' EXECUTE is taken from
--    PUBLIC (a function is PUBLIC's to call by default); default
--    privileges that grant it to a role are the DBA's choice and stay;
--  * the layout of 1.4 and before (the counters in @extschema@ itself,
--    just moved): the right to make ids was USAGE on the counters (the
--    README's GRANT USAGE ON ALL SEQUENCES), and EXECUTE on the makers
--    was anyone's (the docs said a GRANT EXECUTE ON ALL FUNCTIONS was
--    safe for a read-only role: without USAGE it made no id). So the
--    makers' EXECUTE goes to exactly the roles that held USAGE on the
--    variable counter and could call locality_uuid() (both were needed),
--    PUBLIC included, and is taken from every other role (named: a
--    NOTICE, a WARNING in an extension's update, whose scripts PostgreSQL
--    runs with notices off): no role gains the right to make ids. The
--    makers' helpers are taken from every role but the owner. In an
--    extension's update the grants are not made but named in a WARNING,
--    to run in the update's transaction: a grant made by the update
--    script would be recorded as the extension's own (pg_init_privs) and
--    left out of every pg_dump, so a restore would lose it (and those
--    roles' own grants are taken too, for the same reason);
--  * this layout (a re-run of the same version): the grants stay as the
--    owner set them.
-- Then every privilege of any other role on the private schema and its
-- relations is revoked (CASCADE: grants passed on with a grant option go
-- too): USAGE on a sequence is nextval by oid, with no need to name it.
DO $privileges$
DECLARE
    makers pg_catalog.regprocedure[] := ARRAY['@extschema@.locality_uuid_clock_id(pg_catalog.bool)',
                                              '@extschema@.locality_uuid_given_id(pg_catalog.timestamptz, pg_catalog.bool)',
                                              '@extschema@.locality_uuid_hot_make(pg_catalog.int8, pg_catalog.timestamptz, pg_catalog.int8)',
                                              '@extschema@.locality_uuid_window_usage()']::pg_catalog.regprocedure[];
    helpers pg_catalog.regprocedure[] := ARRAY['@extschema@.locality_uuid_check_home()',
                                               '@extschema@.locality_uuid_bind_here()',
                                               '@extschema@.locality_uuid_remember_base(pg_catalog.int8)',
                                               '@extschema@.locality_uuid_run_place(pg_catalog.timestamptz, pg_catalog.int8, pg_catalog.int8)']::pg_catalog.regprocedure[];
    found pg_catalog.text := pg_catalog.current_setting('locality_uuid_sql.layout_found');
    in_extension pg_catalog.bool := EXISTS (SELECT FROM pg_catalog.pg_extension e
                                            WHERE e.extname OPERATOR(pg_catalog.=) 'locality_uuid_sql'
                                              AND e.extnamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace::pg_catalog.oid);
    private pg_catalog.oid := '@extschema@_private'::pg_catalog.regnamespace::pg_catalog.oid;
    -- (Schema-qualified whatever the search path: the WARNING's grant is
    -- run in another session.)
    makers_list pg_catalog.text := (SELECT pg_catalog.string_agg(pg_catalog.format('%I.%I(%s)', n.nspname, p.proname,
                                                                                   pg_catalog.oidvectortypes(p.proargtypes)),
                                                                 ', ' ORDER BY m.i)
                                    FROM pg_catalog.unnest(makers) WITH ORDINALITY m(f, i)
                                    JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) m.f::pg_catalog.oid
                                    JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) p.pronamespace);
    drew pg_catalog.text;
    drew_oids pg_catalog.oid[];
    taken pg_catalog.text;
    revoke pg_catalog.text;
BEGIN
    IF found OPERATOR(pg_catalog.=) 'shared' THEN
        -- Who drew (PUBLIC: 0) and could call the C edition's name around
        -- the makers, read before PUBLIC's EXECUTE goes.
        SELECT pg_catalog.string_agg(DISTINCT CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid THEN 'PUBLIC'
                                                   ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)::pg_catalog.text) END, ', '),
               pg_catalog.array_agg(DISTINCT a.grantee)
        INTO drew, drew_oids
        FROM pg_catalog.pg_class c, pg_catalog.aclexplode(c.relacl) a
        WHERE c.oid OPERATOR(pg_catalog.=) '@extschema@_private.locality_uuid_variable_seq'::pg_catalog.regclass::pg_catalog.oid
          AND a.privilege_type OPERATOR(pg_catalog.=) 'USAGE' AND a.grantee OPERATOR(pg_catalog.<>) c.relowner
          AND CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid
                   THEN EXISTS (SELECT FROM pg_catalog.pg_proc w,
                                     pg_catalog.aclexplode(coalesce(w.proacl, pg_catalog.acldefault('f', w.proowner))) e
                                WHERE w.oid OPERATOR(pg_catalog.=) '@extschema@.locality_uuid()'::pg_catalog.regprocedure::pg_catalog.oid
                                  AND e.grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid)
                   ELSE pg_catalog.has_function_privilege(a.grantee, '@extschema@.locality_uuid()'::pg_catalog.regprocedure, 'EXECUTE') END;
    END IF;
    IF found OPERATOR(pg_catalog.<>) 'private' THEN
        EXECUTE 'REVOKE EXECUTE ON FUNCTION ' OPERATOR(pg_catalog.||)
                (SELECT pg_catalog.string_agg(f::pg_catalog.text, ', ') FROM pg_catalog.unnest(makers || helpers) f)
                OPERATOR(pg_catalog.||) ' FROM PUBLIC';
    END IF;
    IF found OPERATOR(pg_catalog.=) 'shared' THEN
        -- Every other role's EXECUTE on the makers (and, in the psql
        -- script, not that of roles granted it again below), and on the
        -- helpers.
        SELECT pg_catalog.string_agg(DISTINCT pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)::pg_catalog.text), ', ')
        INTO taken
        FROM pg_catalog.pg_proc p, pg_catalog.aclexplode(p.proacl) a
        WHERE p.oid OPERATOR(pg_catalog.=) ANY (makers::pg_catalog.oid[])
          AND a.grantee OPERATOR(pg_catalog.<>) p.proowner AND a.grantee OPERATOR(pg_catalog.<>) 0::pg_catalog.oid
          AND (in_extension OR NOT a.grantee OPERATOR(pg_catalog.=) ANY (coalesce(drew_oids, '{}'::pg_catalog.oid[])));
        IF taken IS NOT NULL THEN
            EXECUTE pg_catalog.format('REVOKE EXECUTE ON FUNCTION %s FROM %s CASCADE', makers_list, taken);
            IF in_extension THEN
                RAISE WARNING 'locality_uuid: EXECUTE on the makers taken from %', taken
                    USING DETAIL = 'Since 1.5 EXECUTE on them is the right to make ids, which was USAGE on the counters (with EXECUTE on locality_uuid()); roles that had both are to be granted it again (a warning names them, if any).';
            ELSE
                RAISE NOTICE 'locality_uuid: EXECUTE on the makers taken from %', taken
                    USING DETAIL = 'Since 1.5 EXECUTE on them is the right to make ids, which was USAGE on the counters (with EXECUTE on locality_uuid()); only the roles that had both keep it.';
            END IF;
        END IF;
        FOR revoke IN
            SELECT DISTINCT pg_catalog.format('REVOKE EXECUTE ON FUNCTION %s FROM %s CASCADE', p.oid::pg_catalog.regprocedure,
                                              pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)::pg_catalog.text))
            FROM pg_catalog.pg_proc p, pg_catalog.aclexplode(p.proacl) a
            WHERE p.oid OPERATOR(pg_catalog.=) ANY (helpers::pg_catalog.oid[])
              AND a.grantee OPERATOR(pg_catalog.<>) p.proowner AND a.grantee OPERATOR(pg_catalog.<>) 0::pg_catalog.oid
        LOOP
            EXECUTE revoke;
        END LOOP;
        IF drew IS NOT NULL AND in_extension THEN
            RAISE WARNING 'locality_uuid: roles that made ids may not until you grant it: %', drew
                USING DETAIL = 'Since 1.5 the right to make ids is EXECUTE on the makers, not USAGE on the counters; a grant made by this update would be the extension''s own and left out of pg_dump.',
                      HINT = pg_catalog.format('In the update''s transaction, or at once: GRANT EXECUTE ON FUNCTION %s TO %s;', makers_list, drew);
        ELSIF drew IS NOT NULL THEN
            EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s TO %s', makers_list, drew);
        END IF;
    END IF;
    FOR revoke IN
        SELECT DISTINCT pg_catalog.format('REVOKE ALL ON %s %s FROM %s CASCADE',
                                          CASE c.relkind WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END, c.oid::pg_catalog.regclass,
                                          CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid THEN 'PUBLIC'
                                               ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)::pg_catalog.text) END)
        FROM pg_catalog.pg_class c, pg_catalog.aclexplode(c.relacl) a
        WHERE c.relnamespace OPERATOR(pg_catalog.=) private AND a.grantee OPERATOR(pg_catalog.<>) c.relowner
        UNION
        SELECT pg_catalog.format('REVOKE ALL ON SCHEMA @extschema@_private FROM %s CASCADE',
                                 CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid THEN 'PUBLIC'
                                      ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)::pg_catalog.text) END)
        FROM pg_catalog.pg_namespace n, pg_catalog.aclexplode(n.nspacl) a
        WHERE n.oid OPERATOR(pg_catalog.=) private AND a.grantee OPERATOR(pg_catalog.<>) n.nspowner
    LOOP
        EXECUTE revoke;
    END LOOP;
    -- (counters.sql's word, for this transaction only: an ALTER EXTENSION
    -- ... UPDATE inside the caller's transaction leaves nothing behind.)
    PERFORM pg_catalog.set_config('locality_uuid_sql.layout_found', '', true);
END
$privileges$;
