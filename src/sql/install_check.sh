#!/bin/sh
# Prints the check every form of the SQL edition runs before it changes
# anything (a DO block; the schema is current_schema(), where each form
# installs): the edition trusts no object it did not make. Trusted roles
# are the installing role (current_user), superusers, and
# pg_database_owner (14+) when the database's owner is trusted. Refused:
#   22023  a schema name that is not plain (the sources name the schema in
#          string literals), a keyword, or longer than 55 bytes (the
#          edition's private schema is the name and "_private")
#   42710  the schema of the C edition (same names), or, for the psql
#          script, of the extension locality_uuid_sql
#   42501  a role other than trusted ones and the installing role's
#          members that is a member of pg_write_all_data (14+: it may set
#          every sequence, the counters too) or pg_maintain (17+: it may
#          lock every relation in any mode, had it the schema's USAGE)
#          (a WARNING, not a refusal, for members of pg_read_all_data, 14+:
#          it gives USAGE on every schema, the private one too, so they can
#          name the counters and hold and queue locks on them; backups use
#          it)
#   42501  an upgrade where a role other than trusted ones and the
#          installing role's members was granted a write or lock privilege
#          (UPDATE: setval; INSERT, DELETE, TRUNCATE, REFERENCES, TRIGGER,
#          MAINTAIN) on a relation of the edition's names
#   42501  a schema owned by another role (its owner can drop and replace
#          what is in it), or in which another role may create objects
#          (CREATE granted to it or to PUBLIC), or that holds an object of
#          another role (a function, operator, type, relation, ... that the
#          edition's bodies could meet); all of that for the private schema
#          too (NAME_private, if it exists: the counters' and the lock's,
#          counters.sql), which no other role may even use (USAGE), and
#          which holds nothing but the edition's relations
#   42710  the private schema exists (extension: a fresh install or an
#          update, which makes it a member of the extension)
#   42501  an object of the edition's names that the installing role does
#          not own (psql script: a re-run, which upgrades, finds only its
#          own objects)
#   42710  any object of the edition's names (extension: a fresh install)
# Every message starts "locality_uuid: install refused:" and names the
# check; the DETAIL names the objects and roles. The comparisons use only
# operand types that pg_catalog has exact operators for (text, oid, name,
# bool), so an operator planted in the schema, which is on the search path
# here, never runs.
# Usage: install_check.sh psql|update|extension ROUTINE_NAMES RELATION_NAMES
#   (names comma-separated)
set -eu
mode=$1
routines=$2
relations=$3
# psql: an install or an upgrade by the psql script; update: ALTER
# EXTENSION ... UPDATE (the extension's own schema); extension: CREATE
# EXTENSION (a fresh install).
case $mode in
psql) fresh_only=false; sql_extension_here=refused; private_made=false ;;
update) fresh_only=false; sql_extension_here=expected; private_made=true ;;
extension) fresh_only=true; sql_extension_here=expected; private_made=true ;;
*) echo "install_check.sh: mode psql, update or extension, not $mode" >&2; exit 2 ;;
esac
[ $sql_extension_here = refused ] && refuse_sql_extension=true || refuse_sql_extension=false
cat <<EOF
DO \$check\$
DECLARE
    schema_name pg_catalog.text := pg_catalog.current_schema()::pg_catalog.text;
    nsp pg_catalog.oid;
    each_nsp pg_catalog.oid;
    shown pg_catalog.text;
    private_nsp pg_catalog.oid;
    installer pg_catalog.oid := (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = pg_catalog.current_user());
    db_owner pg_catalog.oid := (SELECT d.datdba FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database());
    trusted pg_catalog.oid[];
    found pg_catalog.text;
    crowded pg_catalog.text;
    revokes pg_catalog.text;
    fresh_only pg_catalog.bool := $fresh_only;
    -- The extension forms make the private schema (a member of the
    -- extension, which a 1.4 extension never had): one there already is
    -- not theirs.
    private_made pg_catalog.bool := $private_made;
    refuse_sql_extension pg_catalog.bool := $refuse_sql_extension;
BEGIN
    IF schema_name IS NULL THEN
        RAISE EXCEPTION 'locality_uuid: install refused: no schema to install into'
            USING ERRCODE = '3F000', HINT = 'Create the schema first, and name it: -v locality_schema=NAME.';
    END IF;
    IF schema_name !~ '^[a-z_][a-z0-9_]*\$' OR schema_name ~ '^pg_' OR pg_catalog.quote_ident(schema_name) <> schema_name
       OR pg_catalog.octet_length(schema_name) > 55 THEN
        RAISE EXCEPTION 'locality_uuid: install refused: the schema name must be lower-case letters, digits and _, not a keyword, and at most 55 bytes'
            USING ERRCODE = '22023', DETAIL = pg_catalog.format('The schema is %s; the edition''s private schema is %s_private.',
                                                                pg_catalog.quote_ident(schema_name), schema_name);
    END IF;
    nsp := schema_name::pg_catalog.regnamespace::pg_catalog.oid;
    private_nsp := pg_catalog.to_regnamespace(schema_name || '_private')::pg_catalog.oid;
    -- (An update refuses one that is not the extension's: a later
    -- version's update finds its own.)
    IF private_nsp IS NOT NULL AND private_made
       AND (fresh_only OR NOT EXISTS (SELECT FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid
                                      WHERE d.classid = 'pg_catalog.pg_namespace'::pg_catalog.regclass AND d.objid = private_nsp
                                        AND d.deptype = 'e' AND e.extname = 'locality_uuid_sql')) THEN
        RAISE EXCEPTION 'locality_uuid: install refused: schema %_private exists', schema_name
            USING ERRCODE = '42710',
                  DETAIL = pg_catalog.format('The edition keeps its counters in schema %s_private, which it creates.', schema_name),
                  HINT = 'Drop that schema, or install into another one.';
    END IF;
    SELECT e.extname::pg_catalog.text INTO found FROM pg_catalog.pg_extension e
    WHERE e.extnamespace = nsp AND (e.extname = 'locality_uuid' OR (refuse_sql_extension AND e.extname = 'locality_uuid_sql'));
    IF found IS NOT NULL THEN
        RAISE EXCEPTION 'locality_uuid: install refused: schema % holds the extension %', schema_name, found
            USING ERRCODE = '42710',
                  DETAIL = CASE WHEN found = 'locality_uuid' THEN 'The C edition''s functions have the SQL edition''s names.'
                                ELSE 'CREATE EXTENSION and ALTER EXTENSION manage that one.' END,
                  HINT = 'Install the SQL edition into a schema of its own.';
    END IF;
    -- Trusted: the installing role, superusers, and pg_database_owner if
    -- the database's owner is one of those.
    trusted := ARRAY(SELECT r.oid FROM pg_catalog.pg_roles r
                     WHERE r.oid = installer OR r.rolsuper
                        OR (r.rolname = 'pg_database_owner'
                            AND (db_owner = installer OR (SELECT o.rolsuper FROM pg_catalog.pg_roles o WHERE o.oid = db_owner))));
    -- Predefined roles that write or lock every relation with no grant on
    -- it (a major without one has no row), by the roles they were granted
    -- to directly, whom a REVOKE names.
    SELECT pg_catalog.string_agg(pg_catalog.format('role %s is a member of %s, which %s', w.member, w.predefined, w.may), '; '
                                 ORDER BY w.predefined, w.member),
           pg_catalog.string_agg(pg_catalog.format('REVOKE %s FROM %s;', w.predefined, w.member), ' '
                                 ORDER BY w.predefined, w.member)
    INTO found, revokes
    FROM (SELECT DISTINCT pg_catalog.quote_ident(m.rolname::pg_catalog.text) AS member, p.rolname::pg_catalog.text AS predefined, v.may
          FROM (VALUES ('pg_write_all_data', 'may set every sequence, the counters too'),
                       ('pg_maintain', 'may lock every relation in any mode, the edition''s lock too')) v(name, may)
               JOIN pg_catalog.pg_roles p ON p.rolname = v.name
               JOIN pg_catalog.pg_auth_members a ON a.roleid = p.oid
               JOIN pg_catalog.pg_roles m ON m.oid = a.member
          WHERE NOT m.oid = ANY (trusted) AND NOT pg_catalog.pg_has_role(m.oid, installer, 'MEMBER')) w;
    IF found IS NOT NULL THEN
        RAISE EXCEPTION 'locality_uuid: install refused: other roles may write or lock every relation of the database'
            USING ERRCODE = '42501',
                  DETAIL = found || '.',
                  HINT = pg_catalog.format('%s Then install again: the edition trusts no role that can set its counters back or hold its lock.', revokes);
    END IF;
    SELECT pg_catalog.string_agg(DISTINCT pg_catalog.quote_ident(m.rolname::pg_catalog.text), ', ')
    INTO found
    FROM pg_catalog.pg_roles p
         JOIN pg_catalog.pg_auth_members a ON a.roleid = p.oid
         JOIN pg_catalog.pg_roles m ON m.oid = a.member
    WHERE p.rolname = 'pg_read_all_data' AND NOT m.oid = ANY (trusted) AND NOT pg_catalog.pg_has_role(m.oid, installer, 'MEMBER');
    IF found IS NOT NULL THEN
        RAISE WARNING 'locality_uuid: roles that may name the edition''s counters: %', found
            USING DETAIL = 'Members of pg_read_all_data may use every schema, the edition''s private one too: they can hold locks on the counters, and queue a request behind such a hold that every id then waits for.',
                  HINT = pg_catalog.format('Grant pg_read_all_data only to logins you trust with that (backups), or REVOKE pg_read_all_data FROM %s.', found);
    END IF;
    -- The rest, for the schema and for its private one if it exists.
    FOREACH each_nsp IN ARRAY ARRAY[nsp, private_nsp] LOOP
    CONTINUE WHEN each_nsp IS NULL;
    shown := (SELECT n.nspname::pg_catalog.text FROM pg_catalog.pg_namespace n WHERE n.oid = each_nsp);
    -- Grants the owner made since (an upgrade): any privilege on the
    -- edition's relations but USAGE and SELECT lets a role set a counter
    -- back or hold the lock.
    SELECT pg_catalog.string_agg(pg_catalog.format('%s on %s.%s is granted to %s', g.privileges, shown, g.relname, g.grantee), '; '
                                 ORDER BY g.relname, g.grantee),
           pg_catalog.string_agg(pg_catalog.format('REVOKE %s ON %s.%s FROM %s;', g.privileges, shown, g.relname, g.grantee), ' '
                                 ORDER BY g.relname, g.grantee)
    INTO found, revokes
    FROM (SELECT c.relname::pg_catalog.text AS relname,
                 CASE WHEN a.grantee = 0::pg_catalog.oid THEN 'PUBLIC'
                      ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)::pg_catalog.text) END AS grantee,
                 pg_catalog.string_agg(a.privilege_type, ', ' ORDER BY a.privilege_type) AS privileges
          FROM pg_catalog.pg_class c, pg_catalog.aclexplode(c.relacl) a
          WHERE c.relnamespace = each_nsp AND c.relname = ANY ('{$relations}'::pg_catalog.name[])
            AND NOT a.privilege_type = ANY ('{USAGE,SELECT}'::pg_catalog.text[])
            AND NOT a.grantee = ANY (trusted)
            AND (a.grantee = 0::pg_catalog.oid OR NOT pg_catalog.pg_has_role(a.grantee, installer, 'MEMBER'))
          GROUP BY 1, 2) g;
    IF found IS NOT NULL THEN
        RAISE EXCEPTION 'locality_uuid: install refused: other roles may write the edition''s counters or lock its view'
            USING ERRCODE = '42501',
                  DETAIL = found || '.',
                  HINT = pg_catalog.format('%s Then run the upgrade again: roles that make ids need EXECUTE on its functions alone.', revokes);
    END IF;
    -- (The private schema: the installing role's own, as all it holds.)
    SELECT pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(n.nspowner)::pg_catalog.text) INTO found
    FROM pg_catalog.pg_namespace n
    WHERE n.oid = each_nsp AND NOT n.nspowner = ANY (CASE WHEN each_nsp = private_nsp THEN ARRAY[installer] ELSE trusted END);
    IF found IS NOT NULL THEN
        RAISE EXCEPTION 'locality_uuid: install refused: schema % is owned by role %', shown, found
            USING ERRCODE = '42501',
                  DETAIL = pg_catalog.format('A schema''s owner can drop and replace the objects in it; the installing role is %s.',
                                             pg_catalog.quote_ident(pg_catalog.current_user()::pg_catalog.text)),
                  HINT = CASE WHEN each_nsp = private_nsp
                              THEN pg_catalog.format('The private schema must be the installing role''s own: ALTER SCHEMA %s OWNER TO %s, or drop it.',
                                                     shown, pg_catalog.quote_ident(pg_catalog.current_user()::pg_catalog.text))
                              ELSE 'As the installing role: CREATE SCHEMA ids, and install there.' END;
    END IF;
    SELECT pg_catalog.string_agg(DISTINCT CASE WHEN a.grantee = 0::pg_catalog.oid THEN 'PUBLIC'
                                               ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)::pg_catalog.text) END, ', ')
    INTO found
    FROM pg_catalog.pg_namespace n, pg_catalog.aclexplode(coalesce(n.nspacl, pg_catalog.acldefault('n', n.nspowner))) a
    WHERE n.oid = each_nsp AND a.privilege_type = 'CREATE' AND NOT a.grantee = ANY (trusted);
    IF found IS NOT NULL THEN
        RAISE EXCEPTION 'locality_uuid: install refused: other roles may create objects in schema %', shown
            USING ERRCODE = '42501',
                  DETAIL = pg_catalog.format('CREATE on schema %s is granted to %s: a function or operator they create there could run in the edition''s calls.',
                                             shown, found),
                  HINT = pg_catalog.format('REVOKE CREATE ON SCHEMA %s FROM %s, or install into a schema of the installing role''s own.',
                                           shown, found);
    END IF;
    -- The private schema: no other role may even name what is in it.
    SELECT pg_catalog.string_agg(DISTINCT CASE WHEN a.grantee = 0::pg_catalog.oid THEN 'PUBLIC'
                                               ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)::pg_catalog.text) END, ', ')
    INTO found
    FROM pg_catalog.pg_namespace n, pg_catalog.aclexplode(n.nspacl) a
    WHERE n.oid = each_nsp AND each_nsp = private_nsp AND a.privilege_type = 'USAGE' AND NOT a.grantee = ANY (trusted)
      AND (a.grantee = 0::pg_catalog.oid OR NOT pg_catalog.pg_has_role(a.grantee, installer, 'MEMBER'));
    IF found IS NOT NULL THEN
        RAISE EXCEPTION 'locality_uuid: install refused: other roles may use schema %', shown
            USING ERRCODE = '42501',
                  DETAIL = pg_catalog.format('USAGE on schema %s is granted to %s: a role that can name the counters can lock them.',
                                             shown, found),
                  HINT = pg_catalog.format('REVOKE USAGE ON SCHEMA %s FROM %s: roles make ids through the edition''s functions.',
                                           shown, found);
    END IF;
    -- Every object in the schema, once: other roles' are refused in
    -- either schema; in the private one, anything but the edition's
    -- relations too.
    SELECT pg_catalog.string_agg(o.what, ', ' ORDER BY o.what)
               FILTER (WHERE each_nsp = private_nsp AND NOT o.edition_relation),
           pg_catalog.string_agg(o.what || ' of ' || pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(o.owner)::pg_catalog.text), ', '
                                 ORDER BY o.what) FILTER (WHERE NOT o.owner = ANY (trusted))
    INTO crowded, found
    FROM (SELECT 'function ' || shown || '.' || p.proname::pg_catalog.text
                 || '(' || pg_catalog.pg_get_function_identity_arguments(p.oid) || ')' AS what, p.proowner AS owner,
                 false AS edition_relation
          FROM pg_catalog.pg_proc p WHERE p.pronamespace = each_nsp
          UNION ALL SELECT 'operator ' || shown || '.' || o.oprname::pg_catalog.text, o.oprowner, false
          FROM pg_catalog.pg_operator o WHERE o.oprnamespace = each_nsp
          -- (a relation's row type and array type: listed as the relation)
          UNION ALL SELECT 'type ' || shown || '.' || t.typname::pg_catalog.text, t.typowner, false
          FROM pg_catalog.pg_type t WHERE t.typnamespace = each_nsp AND t.typrelid = 0::pg_catalog.oid
            AND NOT EXISTS (SELECT FROM pg_catalog.pg_type e WHERE e.oid = t.typelem AND e.typrelid <> 0::pg_catalog.oid)
          UNION ALL SELECT 'relation ' || shown || '.' || c.relname::pg_catalog.text, c.relowner,
                           c.relname = ANY ('{$relations}'::pg_catalog.name[])
          FROM pg_catalog.pg_class c WHERE c.relnamespace = each_nsp
          UNION ALL SELECT 'collation ' || c.collname::pg_catalog.text, c.collowner, false
          FROM pg_catalog.pg_collation c WHERE c.collnamespace = each_nsp
          UNION ALL SELECT 'conversion ' || c.conname::pg_catalog.text, c.conowner, false
          FROM pg_catalog.pg_conversion c WHERE c.connamespace = each_nsp
          UNION ALL SELECT 'operator class ' || c.opcname::pg_catalog.text, c.opcowner, false
          FROM pg_catalog.pg_opclass c WHERE c.opcnamespace = each_nsp
          UNION ALL SELECT 'operator family ' || f.opfname::pg_catalog.text, f.opfowner, false
          FROM pg_catalog.pg_opfamily f WHERE f.opfnamespace = each_nsp
          UNION ALL SELECT 'text search configuration ' || c.cfgname::pg_catalog.text, c.cfgowner, false
          FROM pg_catalog.pg_ts_config c WHERE c.cfgnamespace = each_nsp
          UNION ALL SELECT 'text search dictionary ' || d.dictname::pg_catalog.text, d.dictowner, false
          FROM pg_catalog.pg_ts_dict d WHERE d.dictnamespace = each_nsp
          UNION ALL SELECT 'statistics object ' || s.stxname::pg_catalog.text, s.stxowner, false
          FROM pg_catalog.pg_statistic_ext s WHERE s.stxnamespace = each_nsp) AS o;
    IF crowded IS NOT NULL THEN
        RAISE EXCEPTION 'locality_uuid: install refused: schema % holds more than the edition''s counters', shown
            USING ERRCODE = '42501',
                  DETAIL = pg_catalog.format('Found: %s. The edition keeps its counters and lock there, and nothing else.', crowded),
                  HINT = 'Move those objects elsewhere, or install into another schema.';
    END IF;
    IF found IS NOT NULL THEN
        RAISE EXCEPTION 'locality_uuid: install refused: schema % holds objects of other roles', shown
            USING ERRCODE = '42501',
                  DETAIL = pg_catalog.format('Found: %s. The edition would call or meet them.', found),
                  HINT = 'Install into a schema in which only the installing role has made objects.';
    END IF;
    SELECT pg_catalog.string_agg(o.what || ' of ' || pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(o.owner)::pg_catalog.text), ', '
                                 ORDER BY o.what)
    INTO found
    FROM (SELECT 'function ' || shown || '.' || p.proname::pg_catalog.text
                 || '(' || pg_catalog.pg_get_function_identity_arguments(p.oid) || ')' AS what, p.proowner AS owner
          FROM pg_catalog.pg_proc p
          WHERE p.pronamespace = each_nsp AND p.proname = ANY ('{$routines}'::pg_catalog.name[])
          UNION ALL
          SELECT 'relation ' || shown || '.' || c.relname::pg_catalog.text, c.relowner
          FROM pg_catalog.pg_class c
          WHERE c.relnamespace = each_nsp AND c.relname = ANY ('{$relations}'::pg_catalog.name[])) AS o
    WHERE fresh_only OR NOT o.owner = installer;
    IF found IS NOT NULL AND fresh_only THEN
        RAISE EXCEPTION 'locality_uuid: install refused: schema % already holds objects of the edition''s names', shown
            USING ERRCODE = '42710', DETAIL = pg_catalog.format('Found: %s.', found),
                  HINT = 'Install into a new schema, or drop those objects (the psql edition: locality_uuid_sql_uninstall.sql) first.';
    END IF;
    IF found IS NOT NULL THEN
        RAISE EXCEPTION 'locality_uuid: install refused: schema % holds objects of the edition''s names that role % does not own',
                        shown, pg_catalog.current_user()
            USING ERRCODE = '42501', DETAIL = pg_catalog.format('Found: %s.', found),
                  HINT = 'Run the script again as the role that installed the edition (the owner of its objects).';
    END IF;
    END LOOP;
END
\$check\$;
EOF
