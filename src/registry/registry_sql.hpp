// The registry's objects (doc/fleets.md), created by `node claim` as the
// role that owns the registry: a sequence, two tables and their helpers in
// locality_uuid_registry_private, which no other role may use, and the
// functions that hand values out and read them in locality_uuid_registry. Values are handed out only by those functions:
// SECURITY DEFINER, so a provisioner granted EXECUTE on the claims, or a
// server's login granted EXECUTE on lease, gets values and nothing else (it
// cannot write a row, set the sequence or read another role's data), and
// the owner's own claims take the same path. Shared by the CLI
// (src/cli/registry.cpp) and the servers that lease from it
// (src/pg/identity/lease.cpp); PostgreSQL-free, as src/core.
//
// Every name in a body is schema-qualified and every function pins
// search_path = pg_catalog, pg_temp: nothing a role can create in public,
// "$user" or any other schema changes what a claim does.
#pragma once

namespace locality_registry {

// The layout's version: kept in the schema's comment. A CLI that finds an
// older layout updates it when it runs as the owner, and refuses
// otherwise; a newer layout is refused. 1: 1.3 (claims); 2: 1.4 (how a
// row was made, leases); 3: 1.5 (the tables, the sequence and the helpers
// in locality_uuid_registry_private: a role granted USAGE on the API
// schema cannot name them, so it holds no lock on them, not even the ones
// PostgreSQL takes at parse time without a privilege check, nor queues a
// strong request behind such a hold that every lease would wait for).
constexpr int kRegistryLayout = 3;

// The oldest layout a server still leases from (the lease function's
// signature and answer are the same in 2 and 3): servers are upgraded
// first, the registry after them (doc/fleets.md, "Upgrading").
constexpr int kOldestLeasableLayout = 2;

// The revision of the functions within the layout, in the comment of
// lease() ("locality_uuid registry functions, revision N"; none: 1). A
// newer revision changes no table and no signature, so servers of either
// library lease from either; an owner's CLI brings the functions up to it.
// 2: 1.5 (the claimers' lock in a mode no role without a privilege can
// delay); 3: 1.5 (the registry's identity, kIdentityCommentPrefix); 4: 1.5
// (a claim again marks its row seen only where no other transaction holds
// it: an auditor's seen() left open delayed it).
constexpr int kRegistryFunctionsRevision = 4;

// The registry's identity: a random id given once, in the comment of its
// node_values sequence, which a dump, a backup, a point-in-time recovery and
// a standby carry. A server's lease record (src/pg/identity/lease_record.hpp)
// keeps it beside the registry's address, so that a registry restored or
// failed over to another address is still known as the one that went back.
constexpr const char kIdentityCommentPrefix[] = "locality_uuid registry identity ";

// The tables and the sequence (IF NOT EXISTS: made by an earlier layout,
// they were moved here by kRegistryMoveSql). Both schemas exist: the CLI
// creates each plainly, so that one another role made first is an error,
// not a registry.
constexpr const char kRegistryTablesSql[] = R"SQL(
CREATE SEQUENCE IF NOT EXISTS locality_uuid_registry_private.node_values
    AS integer MINVALUE 1 MAXVALUE 268435455 NO CYCLE;
CREATE TABLE IF NOT EXISTS locality_uuid_registry_private.nodes (
    node_id integer PRIMARY KEY CHECK (node_id BETWEEN 1 AND 268435455),
    machine_name text NOT NULL UNIQUE CHECK (machine_name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$'),
    machine_bytes bytea NOT NULL CHECK (octet_length(machine_bytes) = 3),
    host_id text NOT NULL CHECK (host_id ~ '^[0-9a-f]{32}$'),
    host_label text NOT NULL,
    data_directory text NOT NULL,
    -- claimed: node claim; adopted: node claim --node-id; leased: a
    -- server's start (locality_uuid.registry), one row per start.
    how text NOT NULL DEFAULT 'claimed' CHECK (how IN ('claimed', 'adopted', 'leased')),
    system_identifier text,    -- leases: the cluster's
    started_at timestamptz,    -- leases: the postmaster's start
    claimed_at timestamptz NOT NULL DEFAULT now(),
    last_seen timestamptz,
    retired_at timestamptz,
    CONSTRAINT nodes_machine_bytes_key UNIQUE (machine_bytes));
-- One live claim per host and data directory; a lease is one start's, and
-- every start of a server takes one.
CREATE UNIQUE INDEX IF NOT EXISTS nodes_live_claim
    ON locality_uuid_registry_private.nodes (host_id, data_directory) WHERE retired_at IS NULL AND how <> 'leased';
CREATE TABLE IF NOT EXISTS locality_uuid_registry_private.claims (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    claims bigint NOT NULL DEFAULT 0,
    leases bigint NOT NULL DEFAULT 0,
    last_claim_at timestamptz);
INSERT INTO locality_uuid_registry_private.claims DEFAULT VALUES ON CONFLICT DO NOTHING;
COMMENT ON TABLE locality_uuid_registry_private.nodes IS
    'locality_uuid node values and Hot Guid machine names, claimed once per host and data directory, never reused';
)SQL";

// From layout 1 (1.3), after kRegistryMoveSql and before
// kRegistryTablesSql (which leaves existing tables as they are, and whose
// index names the new column): the adopted
// flag becomes how, the lease columns and counter are added, the
// live-claim index leaves leases out, and the insert function of the old
// signature goes. Every row keeps its values: a value handed out stays
// handed out. Nothing where there is no registry yet; idempotent.
constexpr const char kRegistryMigrationSql[] = R"SQL(
ALTER TABLE IF EXISTS locality_uuid_registry_private.nodes
    ADD COLUMN IF NOT EXISTS how text NOT NULL DEFAULT 'claimed' CHECK (how IN ('claimed', 'adopted', 'leased')),
    ADD COLUMN IF NOT EXISTS system_identifier text,
    ADD COLUMN IF NOT EXISTS started_at timestamptz;
ALTER TABLE IF EXISTS locality_uuid_registry_private.claims ADD COLUMN IF NOT EXISTS leases bigint NOT NULL DEFAULT 0;
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_catalog.pg_attribute a
               WHERE a.attrelid OPERATOR(pg_catalog.=) pg_catalog.to_regclass('locality_uuid_registry_private.nodes')
                 AND a.attname OPERATOR(pg_catalog.=) 'adopted' AND NOT a.attisdropped) THEN
        UPDATE locality_uuid_registry_private.nodes SET how = 'adopted' WHERE adopted;
        ALTER TABLE locality_uuid_registry_private.nodes DROP COLUMN adopted;
    END IF;
    -- The live-claim index of any earlier layout: one per host and data
    -- directory among claims, never among leases (every start leases).
    IF EXISTS (SELECT FROM pg_catalog.pg_index x
               WHERE x.indexrelid OPERATOR(pg_catalog.=) pg_catalog.to_regclass('locality_uuid_registry_private.nodes_live_claim')
                 AND pg_catalog.strpos(COALESCE(pg_catalog.pg_get_expr(x.indpred, x.indrelid), ''), 'leased')
                     OPERATOR(pg_catalog.=) 0) THEN
        DROP INDEX locality_uuid_registry_private.nodes_live_claim;
        CREATE UNIQUE INDEX nodes_live_claim ON locality_uuid_registry_private.nodes (host_id, data_directory)
            WHERE retired_at IS NULL AND how OPERATOR(pg_catalog.<>) 'leased';
    END IF;
END
$$;
DROP FUNCTION IF EXISTS locality_uuid_registry.insert_node(integer, text, text, text, text, boolean);
)SQL";

// From layout 1 or 2 (1.3, 1.4), into the private schema the CLI has just
// created: the relations move with ALTER ... SET SCHEMA, which keeps
// their rows, the sequence's value and comment (the registry's identity),
// their indexes and constraints; the helpers go (kRegistryFunctionsSql
// makes them again in the private schema). A move waits for every
// transaction holding a lock on the relation, and every lease and claim
// waits behind the move until the update commits. So: a prepared
// transaction holding one (1.4 let any role with USAGE on the schema take
// such a lock at parse time and keep it so) refuses the update at once
// (55006, naming its gid); each move waits at most 100 ms at a time,
// retried for about 3 s, then refuses the same way, naming the processes
// that hold it. nodes moves first, then node_values and claims: the order
// in which a lease or a claim locks them, so that none holds one of them
// while it waits for the move's lock on another (a deadlock).
// Idempotent: nothing moves where nothing is left to move.
constexpr const char kRegistryMoveSql[] = R"SQL(
DO $$
DECLARE
    rel pg_catalog.text;
    holders pg_catalog.text;
    tries pg_catalog.int4;
    timeout_before pg_catalog.text := pg_catalog.current_setting('lock_timeout');
    here pg_catalog.oid := (SELECT d.oid FROM pg_catalog.pg_database d
                            WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database());
BEGIN
    -- Prepared transactions (pg_locks shows them to every role): they end
    -- only by hand. (A prepared transaction's locks keep its virtual
    -- transaction, whose transactionid lock names its xid.)
    SELECT pg_catalog.string_agg(DISTINCT pg_catalog.format('prepared transaction %L', coalesce(x.gid, '?')), '; ')
    INTO holders
    FROM pg_catalog.pg_locks l
    JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) l.relation
    LEFT JOIN pg_catalog.pg_locks t
           ON t.pid IS NULL AND t.locktype OPERATOR(pg_catalog.=) 'transactionid'
          AND t.virtualtransaction OPERATOR(pg_catalog.=) l.virtualtransaction
    LEFT JOIN pg_catalog.pg_prepared_xacts x ON x.transaction OPERATOR(pg_catalog.=) t.transactionid
    WHERE c.relnamespace OPERATOR(pg_catalog.=) 'locality_uuid_registry'::pg_catalog.regnamespace::pg_catalog.oid
      AND l.granted AND l.pid IS NULL AND l.database OPERATOR(pg_catalog.=) here;
    IF holders IS NOT NULL THEN
        RAISE EXCEPTION 'the registry cannot move to its private schema: prepared transactions hold locks on it'
            USING ERRCODE = '55006',
                  DETAIL = holders OPERATOR(pg_catalog.||) '. Moving the registry''s tables waits for every lock on them, and every lease and claim waits behind the move.',
                  HINT = 'End them (COMMIT PREPARED or ROLLBACK PREPARED), then run locality-uuid fleet registry again.';
    END IF;
    FOREACH rel IN ARRAY ARRAY['nodes', 'node_values', 'claims'] LOOP
        CONTINUE WHEN pg_catalog.to_regclass('locality_uuid_registry.' OPERATOR(pg_catalog.||) rel) IS NULL;
        tries := 0;
        LOOP
            BEGIN
                PERFORM pg_catalog.set_config('lock_timeout', '100ms', true);
                EXECUTE pg_catalog.format('ALTER %s locality_uuid_registry.%I SET SCHEMA locality_uuid_registry_private',
                                          CASE rel WHEN 'node_values' THEN 'SEQUENCE' ELSE 'TABLE' END, rel);
                EXIT;
            EXCEPTION WHEN lock_not_available THEN
                tries := tries OPERATOR(pg_catalog.+) 1;
            END;
            IF tries OPERATOR(pg_catalog.>=) 15 THEN
                SELECT pg_catalog.string_agg(DISTINCT CASE WHEN l.pid IS NULL THEN 'a prepared transaction'
                                                           ELSE pg_catalog.format('process %s of %s%s', l.pid,
                                                                                  COALESCE('role ' OPERATOR(pg_catalog.||) a.usename::pg_catalog.text, a.backend_type, 'a role'),
                                                                                  CASE WHEN a.state IS NULL THEN ''
                                                                                       ELSE pg_catalog.format(' (%s since %s)', a.state, a.state_change) END) END,
                                             '; ')
                INTO holders
                FROM pg_catalog.pg_locks l
                LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid OPERATOR(pg_catalog.=) l.pid
                WHERE l.relation OPERATOR(pg_catalog.=) pg_catalog.to_regclass('locality_uuid_registry.' OPERATOR(pg_catalog.||) rel)::pg_catalog.oid
                  AND l.granted AND l.pid IS DISTINCT FROM pg_catalog.pg_backend_pid() AND l.database OPERATOR(pg_catalog.=) here;
                RAISE EXCEPTION 'the registry cannot move to its private schema: other transactions hold locks on it'
                    USING ERRCODE = '55006',
                          DETAIL = pg_catalog.format('%s held %s for 3 s. Moving the registry''s tables waits for every lock on them, and every lease and claim waits behind the move.',
                                                     coalesce(holders, 'A transaction that ended since'), rel),
                          HINT = 'End or wait for those transactions (pg_locks, pg_stat_activity; pg_terminate_backend), then run locality-uuid fleet registry again.';
            END IF;
            PERFORM pg_catalog.pg_sleep(0.1);
        END LOOP;
        PERFORM pg_catalog.set_config('lock_timeout', timeout_before, true);
    END LOOP;
END
$$;
DROP FUNCTION IF EXISTS locality_uuid_registry.insert_node(integer, text, text, text, text, text);
DROP FUNCTION IF EXISTS locality_uuid_registry.next_node();
DROP FUNCTION IF EXISTS locality_uuid_registry.machine_bytes(text);
)SQL";

// After kRegistryFunctionsSql, when the registry is made or updated from
// layout 1 or 2 (so its readers were just made), as one list of
// statements: first no role but the owner keeps anything in the private
// schema's functions or the schema itself, nor on the readers, whatever
// default privileges gave; in a registry being made (the CLI sets
// locality_uuid_registry.making), nor on its API schema and functions:
// USAGE and EXECUTE on claim or lease are a delegation the owner grants
// by name. Then, in an update, a role with table-level SELECT on nodes (a
// provisioner checking its claim, an auditor) may call nodes() and
// holders(), one with SELECT on node_values (an auditor) budget (in a
// registry being made such a grant came from default privileges: none).
// Last, every privilege
// on the private schema's relations goes (a sequence's, nextval's or
// setval's by oid, needs no schema), CASCADE taking what they granted on.
constexpr const char kRegistryGrantsSql[] = R"SQL(
DO $$
DECLARE
    statement pg_catalog.text;
BEGIN
    FOR statement IN
        WITH making AS (SELECT COALESCE(pg_catalog.current_setting('locality_uuid_registry.making', true), '')
                               OPERATOR(pg_catalog.=) 'on' AS yes),
        api AS (SELECT 'locality_uuid_registry'::pg_catalog.regnamespace::pg_catalog.oid AS oid),
        private AS (SELECT 'locality_uuid_registry_private'::pg_catalog.regnamespace::pg_catalog.oid AS oid),
        readers AS (SELECT ARRAY[pg_catalog.to_regprocedure('locality_uuid_registry.nodes()'),
                                 pg_catalog.to_regprocedure('locality_uuid_registry.budget()'),
                                 pg_catalog.to_regprocedure('locality_uuid_registry.holders(integer[], text[], bytea[])')
                                ]::pg_catalog.oid[] AS oids),
        work (step, verb, object, grantee) AS (
            SELECT 1, 'REVOKE ALL ON', pg_catalog.format('FUNCTION %s', p.oid::pg_catalog.regprocedure), a.grantee
            FROM pg_catalog.pg_proc p, LATERAL pg_catalog.aclexplode(COALESCE(p.proacl, pg_catalog.acldefault('f', p.proowner))) a,
                 making, api, private, readers
            WHERE (p.pronamespace OPERATOR(pg_catalog.=) private.oid
                   OR (p.pronamespace OPERATOR(pg_catalog.=) api.oid
                       AND (making.yes OR p.oid OPERATOR(pg_catalog.=) ANY (readers.oids))))
              AND a.grantee OPERATOR(pg_catalog.<>) p.proowner
            UNION
            SELECT 1, 'REVOKE ALL ON', pg_catalog.format('SCHEMA %I', n.nspname), a.grantee
            FROM pg_catalog.pg_namespace n, LATERAL pg_catalog.aclexplode(n.nspacl) a, making, api, private
            WHERE (n.oid OPERATOR(pg_catalog.=) private.oid OR (n.oid OPERATOR(pg_catalog.=) api.oid AND making.yes))
              AND a.grantee OPERATOR(pg_catalog.<>) n.nspowner
            UNION
            SELECT 2, 'GRANT EXECUTE ON',
                   CASE c.relname WHEN 'nodes' THEN 'FUNCTION locality_uuid_registry.nodes(), locality_uuid_registry.holders(integer[], text[], bytea[])'
                                  ELSE 'FUNCTION locality_uuid_registry.budget()' END,
                   a.grantee
            FROM pg_catalog.pg_class c, LATERAL pg_catalog.aclexplode(c.relacl) a, private, making
            WHERE c.relnamespace OPERATOR(pg_catalog.=) private.oid AND NOT making.yes
              AND c.relname OPERATOR(pg_catalog.=) ANY ('{nodes,node_values}'::pg_catalog.name[])
              AND a.privilege_type OPERATOR(pg_catalog.=) 'SELECT' AND a.grantee OPERATOR(pg_catalog.<>) c.relowner
            UNION
            SELECT 3, 'REVOKE ALL ON', pg_catalog.format('%s locality_uuid_registry_private.%I',
                                                         CASE c.relkind WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END, c.relname),
                   a.grantee
            FROM pg_catalog.pg_class c, LATERAL pg_catalog.aclexplode(c.relacl) a, private
            WHERE c.relnamespace OPERATOR(pg_catalog.=) private.oid AND a.grantee OPERATOR(pg_catalog.<>) c.relowner
            UNION
            -- (column grants: REVOKE ALL ON TABLE revokes them too)
            SELECT 3, 'REVOKE ALL ON', pg_catalog.format('TABLE locality_uuid_registry_private.%I', c.relname), a.grantee
            FROM pg_catalog.pg_class c JOIN pg_catalog.pg_attribute att ON att.attrelid OPERATOR(pg_catalog.=) c.oid,
                 LATERAL pg_catalog.aclexplode(att.attacl) a, private
            WHERE c.relnamespace OPERATOR(pg_catalog.=) private.oid AND a.grantee OPERATOR(pg_catalog.<>) c.relowner)
        SELECT pg_catalog.format('%s %s %s %s%s', w.verb, w.object, CASE w.step WHEN 2 THEN 'TO' ELSE 'FROM' END,
                                 CASE WHEN w.grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid THEN 'PUBLIC'
                                      ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(w.grantee)::pg_catalog.text) END,
                                 CASE w.step WHEN 2 THEN '' ELSE ' CASCADE' END)
        FROM work w ORDER BY w.step, 1
    LOOP
        EXECUTE statement;
    END LOOP;
END
$$;
)SQL";

// The functions (CREATE OR REPLACE: an owner's newer CLI updates them).
// They take the claimers' lock first, SHARE UPDATE EXCLUSIVE on nodes, so
// claims and leases are made one at a time (a claimer that dies before
// COMMIT leaves nothing). That mode waits only for its own kind and
// stronger ones, which need a privilege on the table only its owner has
// (and pg_maintain, which the trust check refuses); an audit's reads
// (nodes() holds ACCESS SHARE to its transaction's end) and marks go on
// too. No other role can name the table (layout 3), so none holds a lock
// on it from parse time either. (In layout 2 the leaser and the auditor
// could: a ROW EXCLUSIVE hold delayed no lease, a CREATE TRIGGER queued
// behind it did; 1.4's functions took SHARE ROW EXCLUSIVE, which the hold
// itself stalled: revision 1 of layout 2.)
constexpr const char kRegistryFunctionsSql[] = R"SQL(
-- The registry's identity (kIdentityCommentPrefix), given once.
DO $$
DECLARE
    id pg_catalog.text;
BEGIN
    IF pg_catalog.obj_description('locality_uuid_registry_private.node_values'::pg_catalog.regclass, 'pg_class') IS NULL THEN
        -- (gen_random_uuid() from PostgreSQL 13; before, 128 random bits from MD5)
        EXECUTE CASE WHEN pg_catalog.current_setting('server_version_num')::integer OPERATOR(pg_catalog.>=) 130000
                     THEN 'SELECT pg_catalog.gen_random_uuid()::pg_catalog.text'
                     ELSE 'SELECT pg_catalog.md5(pg_catalog.random()::pg_catalog.text OPERATOR(pg_catalog.||) '
                          'pg_catalog.clock_timestamp()::pg_catalog.text)::pg_catalog.uuid::pg_catalog.text' END
            INTO id;
        EXECUTE pg_catalog.format('COMMENT ON SEQUENCE locality_uuid_registry_private.node_values IS %L',
                                  'locality_uuid registry identity ' OPERATOR(pg_catalog.||) id);
    END IF;
END
$$;
-- The Hot Guid machine bytes of a name: the first three bytes of its MD5
-- (machine names are ASCII: the CHECK on nodes.machine_name).
CREATE OR REPLACE FUNCTION locality_uuid_registry_private.machine_bytes(name text) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT SET search_path = pg_catalog, pg_temp AS $$
SELECT pg_catalog.substring(pg_catalog.decode(pg_catalog.md5(name), 'hex'), 1, 3)
$$;

-- Inserts node value `node` for a host with the first machine name whose
-- bytes no row has: `wanted` if given (refused if taken), else lu-<hex>,
-- lu-<hex>-1, ... Returns the name.
CREATE OR REPLACE FUNCTION locality_uuid_registry_private.insert_node(node integer, wanted text, host text, label text,
                                                             dir text, kind text) RETURNS text
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    name text;
BEGIN
    FOR k IN 0..9999 LOOP
        name := CASE WHEN wanted IS NOT NULL THEN wanted
                     WHEN k OPERATOR(pg_catalog.=) 0 THEN 'lu-' OPERATOR(pg_catalog.||) pg_catalog.to_hex(node)
                     ELSE 'lu-' OPERATOR(pg_catalog.||) pg_catalog.to_hex(node) OPERATOR(pg_catalog.||) '-'
                          OPERATOR(pg_catalog.||) k::text END;
        INSERT INTO locality_uuid_registry_private.nodes (node_id, machine_name, machine_bytes, host_id, host_label,
                                                  data_directory, how)
        VALUES (node, name, locality_uuid_registry_private.machine_bytes(name), host, label, dir, kind)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            RETURN name;
        END IF;
        IF wanted IS NOT NULL THEN
            RAISE EXCEPTION 'machine name % cannot be adopted: its machine bytes % are another row''s', wanted,
                pg_catalog.encode(locality_uuid_registry_private.machine_bytes(wanted), 'hex')
                USING ERRCODE = '23505', DETAIL = (
                    SELECT pg_catalog.format('Node value %s (%s, %s, data directory %s) has them.', n.node_id,
                                             n.machine_name, n.host_label, n.data_directory)
                    FROM locality_uuid_registry_private.nodes n
                    WHERE n.machine_bytes OPERATOR(pg_catalog.=) locality_uuid_registry_private.machine_bytes(wanted)
                       OR n.machine_name OPERATOR(pg_catalog.=) wanted
                    LIMIT 1);
        END IF;
    END LOOP;
    RAISE EXCEPTION 'no free machine name for node value %', node USING ERRCODE = '54000';
END
$$;

-- The next value of the sequence that no row holds (a row may have been
-- adopted with that value).
CREATE OR REPLACE FUNCTION locality_uuid_registry_private.next_node() RETURNS integer
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    v integer;
BEGIN
    LOOP
        v := pg_catalog.nextval('locality_uuid_registry_private.node_values'::pg_catalog.regclass);
        IF NOT EXISTS (SELECT FROM locality_uuid_registry_private.nodes n WHERE n.node_id OPERATOR(pg_catalog.=) v) THEN
            RETURN v;
        END IF;
    END LOOP;
END
$$;

-- A claim for a host identity (host: the 32-hex digest a server's
-- locality_uuid_binding() shows; label: the identity as given) and data
-- directory: its live claim if it has one, else a new node value and
-- machine name. adopt_node: take that value instead (a value already in
-- use on this host), refused if any row has or had it; adopt_name: the
-- machine name to record with it (else lu-<hex>).
CREATE OR REPLACE FUNCTION locality_uuid_registry.claim(host text, label text, dir text,
                                                       adopt_node integer DEFAULT NULL, adopt_name text DEFAULT NULL)
    RETURNS TABLE (node_id integer, machine_name text, machine_bytes text, host_label text, existing boolean)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    live locality_uuid_registry_private.nodes;
    holder locality_uuid_registry_private.nodes;
    node integer;
    name text;
BEGIN
    IF host IS NULL OR label IS NULL OR dir IS NULL THEN
        RAISE EXCEPTION 'a claim needs a host, a label and a data directory' USING ERRCODE = '22004';
    END IF;
    IF adopt_name IS NOT NULL AND adopt_node IS NULL THEN
        RAISE EXCEPTION 'a machine name is adopted only with a node value' USING ERRCODE = '22023';
    END IF;
    LOCK TABLE locality_uuid_registry_private.nodes IN SHARE UPDATE EXCLUSIVE MODE;
    SELECT * INTO live FROM locality_uuid_registry_private.nodes n
    WHERE n.host_id OPERATOR(pg_catalog.=) host AND n.data_directory OPERATOR(pg_catalog.=) dir
      AND n.retired_at IS NULL AND n.how OPERATOR(pg_catalog.<>) 'leased';
    IF FOUND THEN
        IF adopt_node IS NOT NULL AND (live.node_id OPERATOR(pg_catalog.<>) adopt_node
                                       OR (adopt_name IS NOT NULL AND live.machine_name OPERATOR(pg_catalog.<>) adopt_name)) THEN
            RAISE EXCEPTION 'this host and data directory already hold node value % (machine name %)',
                live.node_id, live.machine_name
                USING ERRCODE = '23505',
                      HINT = 'Retire that row first (UPDATE locality_uuid_registry_private.nodes SET retired_at = now() WHERE node_id = ...) to adopt another value.';
        END IF;
        -- Marked seen unless another transaction holds the row (an
        -- auditor's seen() left open, whose own mark stands unless it
        -- rolls back): a mark waits for no one.
        UPDATE locality_uuid_registry_private.nodes n SET last_seen = pg_catalog.now()
        WHERE n.node_id OPERATOR(pg_catalog.=) live.node_id
          AND n.node_id OPERATOR(pg_catalog.=) ANY (SELECT m.node_id FROM locality_uuid_registry_private.nodes m
                                                    WHERE m.node_id OPERATOR(pg_catalog.=) live.node_id
                                                    FOR NO KEY UPDATE SKIP LOCKED);
        RETURN QUERY SELECT live.node_id, live.machine_name, pg_catalog.encode(live.machine_bytes, 'hex'),
                            live.host_label, true;
        RETURN;
    END IF;
    IF adopt_node IS NOT NULL THEN
        IF adopt_node OPERATOR(pg_catalog.<) 1 OR adopt_node OPERATOR(pg_catalog.>) 268435455 THEN
            RAISE EXCEPTION 'node value % is out of range', adopt_node
                USING ERRCODE = '22003', DETAIL = 'The registry holds node values 1 to 268435455.';
        END IF;
        SELECT * INTO holder FROM locality_uuid_registry_private.nodes n WHERE n.node_id OPERATOR(pg_catalog.=) adopt_node;
        IF FOUND THEN
            RAISE EXCEPTION 'node value % is already in the registry', adopt_node
                USING ERRCODE = '23505',
                      DETAIL = pg_catalog.format('It is %s for %s, data directory %s%s; a value is never handed out twice.',
                                                 CASE WHEN holder.retired_at IS NULL THEN 'claimed' ELSE 'retired' END,
                                                 holder.host_label, holder.data_directory,
                                                 CASE WHEN holder.retired_at IS NULL THEN ''
                                                      ELSE pg_catalog.format(' (retired %s)', holder.retired_at) END),
                      HINT = 'Claim without --node-id for a new value.';
        END IF;
        node := adopt_node;
    ELSE
        node := locality_uuid_registry_private.next_node();
    END IF;
    name := locality_uuid_registry_private.insert_node(node, adopt_name, host, label, dir,
                                               CASE WHEN adopt_node IS NULL THEN 'claimed' ELSE 'adopted' END);
    UPDATE locality_uuid_registry_private.claims c
    SET claims = c.claims OPERATOR(pg_catalog.+) 1, last_claim_at = pg_catalog.now();
    RETURN QUERY SELECT node, name, pg_catalog.encode(locality_uuid_registry_private.machine_bytes(name), 'hex'), label, false;
END
$$;

-- Consecutive node values for ordinals 0 .. n-1 of a set (a StatefulSet
-- called label): host digests hosts[i] of identities labels[i]
-- ("<label>/<ordinal>", digested by the claimer as a server digests its
-- identity), each with its own machine name; the block claimed before if
-- there is one (refused with another size).
CREATE OR REPLACE FUNCTION locality_uuid_registry.claim_block(label text, dir text, hosts text[], labels text[])
    RETURNS TABLE (node_id integer, machine_name text, machine_bytes text, host_label text, existing boolean)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    n integer := pg_catalog.cardinality(hosts);
    held integer;
    base integer;
    node integer;
    name text;
BEGIN
    IF label IS NULL OR dir IS NULL OR n IS NULL OR n OPERATOR(pg_catalog.<) 1 OR n OPERATOR(pg_catalog.>) 10000
       OR n OPERATOR(pg_catalog.<>) pg_catalog.cardinality(labels) THEN
        RAISE EXCEPTION 'a block claim needs a label, a data directory and 1 to 10000 hosts with their labels'
            USING ERRCODE = '22023';
    END IF;
    LOCK TABLE locality_uuid_registry_private.nodes IN SHARE UPDATE EXCLUSIVE MODE;
    SELECT pg_catalog.count(*) INTO held FROM locality_uuid_registry_private.nodes r
    WHERE r.host_id OPERATOR(pg_catalog.=) ANY (hosts) AND r.data_directory OPERATOR(pg_catalog.=) dir
      AND r.retired_at IS NULL AND r.how OPERATOR(pg_catalog.<>) 'leased';
    -- The block's claims past n (it was claimed larger): another size.
    IF EXISTS (SELECT FROM locality_uuid_registry_private.nodes r
               WHERE pg_catalog.starts_with(r.host_label, label OPERATOR(pg_catalog.||) '/')
                 AND r.host_label OPERATOR(pg_catalog.<>) ALL (labels)
                 AND r.data_directory OPERATOR(pg_catalog.=) dir AND r.retired_at IS NULL
                 AND r.how OPERATOR(pg_catalog.<>) 'leased') THEN
        held := -1;
    END IF;
    IF held OPERATOR(pg_catalog.=) n THEN
        RETURN QUERY SELECT r.node_id, r.machine_name, pg_catalog.encode(r.machine_bytes, 'hex'), r.host_label, true
                     FROM locality_uuid_registry_private.nodes r
                     WHERE r.host_id OPERATOR(pg_catalog.=) ANY (hosts) AND r.data_directory OPERATOR(pg_catalog.=) dir
                       AND r.retired_at IS NULL AND r.how OPERATOR(pg_catalog.<>) 'leased'
                     ORDER BY r.node_id;
        RETURN;
    END IF;
    IF held OPERATOR(pg_catalog.<>) 0 THEN
        RAISE EXCEPTION 'the registry holds a block % of another size than %: claim the block with its original size',
            pg_catalog.quote_literal(label), n USING ERRCODE = '23505';
    END IF;
    FOR i IN 1..n LOOP
        node := locality_uuid_registry_private.next_node();
        IF i OPERATOR(pg_catalog.=) 1 THEN
            base := node;
        ELSIF node OPERATOR(pg_catalog.<>) (base OPERATOR(pg_catalog.+) i OPERATOR(pg_catalog.-) 1) THEN
            RAISE EXCEPTION 'the node values of a block must be consecutive, and value % is taken',
                base OPERATOR(pg_catalog.+) i OPERATOR(pg_catalog.-) 1
                USING ERRCODE = '40001', HINT = 'Claim the block again: it starts past the taken value.';
        END IF;
        name := locality_uuid_registry_private.insert_node(node, NULL, hosts[i], labels[i], dir, 'claimed');
        RETURN QUERY SELECT node, name, pg_catalog.encode(locality_uuid_registry_private.machine_bytes(name), 'hex'),
                            labels[i], false;
    END LOOP;
    UPDATE locality_uuid_registry_private.claims c
    SET claims = c.claims OPERATOR(pg_catalog.+) 1, last_claim_at = pg_catalog.now();
END
$$;

-- A lease: a node value and a machine name never handed out before, for
-- one start of a server (locality_uuid.registry), recorded with the host
-- (digest and label), the data directory, the system identifier and the
-- start. Every start takes a new one, a standby's too, so that no copy,
-- clone, revert or promoted standby ever shares one with another start.
CREATE OR REPLACE FUNCTION locality_uuid_registry.lease(host text, label text, dir text, system_identifier text,
                                                       started_at timestamptz)
    RETURNS TABLE (node_id integer, machine_name text, machine_bytes text)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    node integer;
    name text;
BEGIN
    IF host IS NULL OR label IS NULL OR dir IS NULL OR system_identifier IS NULL OR started_at IS NULL THEN
        RAISE EXCEPTION 'a lease needs a host, a label, a data directory, a system identifier and a start'
            USING ERRCODE = '22004';
    END IF;
    LOCK TABLE locality_uuid_registry_private.nodes IN SHARE UPDATE EXCLUSIVE MODE;
    node := locality_uuid_registry_private.next_node();
    name := locality_uuid_registry_private.insert_node(node, NULL, host, label, dir, 'leased');
    UPDATE locality_uuid_registry_private.nodes n
    SET system_identifier = lease.system_identifier, started_at = lease.started_at, last_seen = pg_catalog.now()
    WHERE n.node_id OPERATOR(pg_catalog.=) node;
    UPDATE locality_uuid_registry_private.claims c
    SET leases = c.leases OPERATOR(pg_catalog.+) 1, last_claim_at = pg_catalog.now();
    RETURN QUERY SELECT node, name, pg_catalog.encode(locality_uuid_registry_private.machine_bytes(name), 'hex');
END
$$;

-- The audit's mark: last_seen = now() for the claims found live where
-- they were claimed (node value, host digest and data directory alike).
-- Returns how many.
CREATE OR REPLACE FUNCTION locality_uuid_registry.seen(nodes integer[], hosts text[], dirs text[]) RETURNS integer
    LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
WITH marked AS (
    UPDATE locality_uuid_registry_private.nodes n SET last_seen = pg_catalog.now()
    FROM ROWS FROM (pg_catalog.unnest(nodes), pg_catalog.unnest(hosts), pg_catalog.unnest(dirs)) s(node, host, dir)
    WHERE n.node_id OPERATOR(pg_catalog.=) s.node AND n.host_id OPERATOR(pg_catalog.=) s.host
      AND n.data_directory OPERATOR(pg_catalog.=) s.dir AND n.retired_at IS NULL
    RETURNING 1)
SELECT pg_catalog.count(*)::integer FROM marked
$$;

-- The registry's rows, for a provisioner checking its claim and an
-- auditor (EXECUTE on it, not SELECT on the table: doc/fleets.md).
CREATE OR REPLACE FUNCTION locality_uuid_registry.nodes()
    RETURNS TABLE (node_id integer, machine_name text, machine_bytes bytea, host_id text, host_label text,
                   data_directory text, how text, system_identifier text, started_at timestamptz,
                   claimed_at timestamptz, last_seen timestamptz, retired_at timestamptz)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
SELECT n.node_id, n.machine_name, n.machine_bytes, n.host_id, n.host_label, n.data_directory, n.how,
       n.system_identifier, n.started_at, n.claimed_at, n.last_seen, n.retired_at
FROM locality_uuid_registry_private.nodes n
$$;

-- The rows holding any of these node values, machine names or machine
-- bytes (a claim's check: the table's unique indexes serve it, where a
-- filter on nodes(), never inlined, would read every row).
CREATE OR REPLACE FUNCTION locality_uuid_registry.holders(node_ids integer[], names text[], bytes bytea[])
    RETURNS TABLE (node_id integer, machine_name text, machine_bytes bytea, host_id text, host_label text,
                   data_directory text, how text, system_identifier text, started_at timestamptz,
                   claimed_at timestamptz, last_seen timestamptz, retired_at timestamptz)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
SELECT n.node_id, n.machine_name, n.machine_bytes, n.host_id, n.host_label, n.data_directory, n.how,
       n.system_identifier, n.started_at, n.claimed_at, n.last_seen, n.retired_at
FROM locality_uuid_registry_private.nodes n
WHERE n.node_id OPERATOR(pg_catalog.=) ANY (node_ids) OR n.machine_name OPERATOR(pg_catalog.=) ANY (names)
   OR n.machine_bytes OPERATOR(pg_catalog.=) ANY (bytes)
$$;

-- The budget (doc/fleets.md, "The budget"): rows, leases among them, and
-- the last node value drawn (0: none yet).
CREATE OR REPLACE FUNCTION locality_uuid_registry.budget()
    RETURNS TABLE (rows bigint, leases bigint, sequence_at bigint)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
SELECT (SELECT pg_catalog.count(*) FROM locality_uuid_registry_private.nodes),
       (SELECT pg_catalog.count(*) FROM locality_uuid_registry_private.nodes n WHERE n.how OPERATOR(pg_catalog.=) 'leased'),
       (SELECT CASE WHEN s.is_called THEN s.last_value ELSE 0 END FROM locality_uuid_registry_private.node_values s)
$$;

REVOKE ALL ON FUNCTION locality_uuid_registry_private.machine_bytes(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION locality_uuid_registry_private.insert_node(integer, text, text, text, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION locality_uuid_registry.lease(text, text, text, text, timestamptz) FROM PUBLIC;
REVOKE ALL ON FUNCTION locality_uuid_registry_private.next_node() FROM PUBLIC;
REVOKE ALL ON FUNCTION locality_uuid_registry.claim(text, text, text, integer, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION locality_uuid_registry.claim_block(text, text, text[], text[]) FROM PUBLIC;
REVOKE ALL ON FUNCTION locality_uuid_registry.seen(integer[], text[], text[]) FROM PUBLIC;
)SQL";

// What a registry must be for its claims to be trusted, as rows of
// problems (none: trusted). $1: the role that must own it. Roles that are
// members of the owner act as the owner, and superusers may do anything
// anyway: neither is a problem. Two parts: who may change it (owners,
// grants on the schema, its relations, their columns and its functions,
// members of the predefined roles that write or lock every table, the
// database's owner, triggers, rules, row security), always; and, with $2
// true, what keeps a value from being handed out twice (its tables,
// sequence and unique constraints). Before fleet registry changes anything in a registry found
// in place, the first part alone ($2 false): nothing another role planted
// runs with the owner's rights. Before every use, both.
constexpr const char kTrustSql[] = R"SQL(
WITH owner AS (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname::pg_catalog.text OPERATOR(pg_catalog.=) $1::pg_catalog.text),
-- The API schema, and the private one from layout 3 on (a server also
-- leases from layout 2, whose tables are in the API schema; a private
-- schema beside one is not the registry's, and CREATE on the database
-- would otherwise be enough to have the registry refused).
api AS (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname OPERATOR(pg_catalog.=) 'locality_uuid_registry'),
ns AS (SELECT n.oid, n.nspname, n.nspowner, n.nspacl FROM pg_catalog.pg_namespace n
       WHERE n.nspname OPERATOR(pg_catalog.=) 'locality_uuid_registry'
          OR (n.nspname OPERATOR(pg_catalog.=) 'locality_uuid_registry_private'
              AND EXISTS (SELECT FROM api
                          WHERE COALESCE(pg_catalog.substring(pg_catalog.obj_description(api.oid, 'pg_namespace'),
                                                              '^locality_uuid registry, layout ([0-9]{1,4})$')::pg_catalog.int4, 0)
                                OPERATOR(pg_catalog.>=) 3))),
rels AS (SELECT c.oid, c.relname, c.relkind, c.relowner, c.relacl, c.relrowsecurity
         FROM pg_catalog.pg_class c JOIN ns ON c.relnamespace OPERATOR(pg_catalog.=) ns.oid),
grants AS (SELECT a.grantee, a.privilege_type, CASE c.relkind WHEN 'S' THEN 'sequence' ELSE 'table' END AS kind,
                  pg_catalog.format('%s %I', CASE c.relkind WHEN 'S' THEN 'sequence' ELSE 'table' END, c.relname) AS obj
           FROM rels c, LATERAL pg_catalog.aclexplode(c.relacl) a
           UNION ALL
           -- Column grants (GRANT UPDATE (col) ON ...) live in pg_attribute.
           SELECT a.grantee, a.privilege_type, 'column', pg_catalog.format('column %I.%I', c.relname, att.attname)
           FROM rels c JOIN pg_catalog.pg_attribute att ON att.attrelid OPERATOR(pg_catalog.=) c.oid,
                LATERAL pg_catalog.aclexplode(att.attacl) a
           UNION ALL
           -- A function's NULL ACL is its default: EXECUTE for PUBLIC.
           -- (kind: insert_node and next_node write and draw; nodes(),
           -- holders() and budget() only read)
           SELECT a.grantee, a.privilege_type,
                  CASE WHEN p.proname OPERATOR(pg_catalog.=) ANY ('{insert_node,next_node}'::pg_catalog.name[]) THEN 'helper'
                       -- (by the catalogs alone: a name lookup would need USAGE on
                       -- the schema, which a login checking it may lack)
                       WHEN ns.nspname OPERATOR(pg_catalog.=) 'locality_uuid_registry'
                            AND p.proname::pg_catalog.text OPERATOR(pg_catalog.||) '(' OPERATOR(pg_catalog.||)
                                pg_catalog.oidvectortypes(p.proargtypes) OPERATOR(pg_catalog.||) ')'
                                OPERATOR(pg_catalog.=) ANY ('{nodes(),budget(),"holders(integer[], text[], bytea[])"}'::pg_catalog.text[])
                       THEN 'reader'
                       ELSE 'function' END,
                  pg_catalog.format('function %s', p.oid::pg_catalog.regprocedure)
           FROM pg_catalog.pg_proc p JOIN ns ON p.pronamespace OPERATOR(pg_catalog.=) ns.oid,
                LATERAL pg_catalog.aclexplode(COALESCE(p.proacl, pg_catalog.acldefault('f', p.proowner))) a
           UNION ALL
           SELECT a.grantee, a.privilege_type,
                  CASE WHEN ns.nspname OPERATOR(pg_catalog.=) 'locality_uuid_registry' THEN 'schema' ELSE 'private schema' END,
                  pg_catalog.format('schema %I', ns.nspname)
           FROM ns, LATERAL pg_catalog.aclexplode(ns.nspacl) a),
-- Grants to a role other than the owner and its members (0: PUBLIC).
others AS (SELECT g.*, CASE WHEN g.grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid THEN 'PUBLIC'
                            ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(g.grantee)::pg_catalog.text) END AS role
           FROM grants g, owner
           WHERE CASE WHEN g.grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid THEN true
                      ELSE NOT pg_catalog.pg_has_role(g.grantee, owner.oid, 'MEMBER') END),
-- Roles that do not act as the owner: neither superusers nor its members.
untrusted AS (SELECT r.oid, r.rolname FROM pg_catalog.pg_roles r, owner
              WHERE NOT r.rolsuper AND NOT pg_catalog.pg_has_role(r.oid, owner.oid, 'MEMBER')),
-- Predefined roles that may write or lock every table with no grant on it
-- (pg_write_all_data, 14+: rows and setval; pg_maintain, 17+: LOCK in any
-- mode; a major without one has no row), by the roles they were granted to
-- directly, whom a REVOKE names: other than superusers and the owner's
-- members (whose members are the owner's too).
wide AS (SELECT DISTINCT pg_catalog.quote_ident(m.rolname::pg_catalog.text) AS role, w.rolname::pg_catalog.text AS predefined, v.may
         FROM (VALUES ('pg_write_all_data', 'may write every table and sequence'),
                      ('pg_maintain', 'may lock every table')) v(name, may)
              JOIN pg_catalog.pg_roles w ON w.rolname::pg_catalog.text OPERATOR(pg_catalog.=) v.name
              JOIN pg_catalog.pg_auth_members a ON a.roleid OPERATOR(pg_catalog.=) w.oid
              JOIN untrusted m ON m.oid OPERATOR(pg_catalog.=) a.member),
-- The unique, valid, immediate indexes of nodes, by their columns.
uniq AS (SELECT x.indpred IS NOT NULL AS partial,
                ARRAY(SELECT a.attname::pg_catalog.text
                      FROM pg_catalog.unnest(x.indkey::pg_catalog.int2[]) WITH ORDINALITY k(attnum, i)
                      JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) x.indrelid
                                                    AND a.attnum OPERATOR(pg_catalog.=) k.attnum
                      ORDER BY k.i) AS cols
         FROM pg_catalog.pg_index x JOIN rels c ON x.indrelid OPERATOR(pg_catalog.=) c.oid
         WHERE c.relname OPERATOR(pg_catalog.=) 'nodes' AND x.indisunique AND x.indisvalid AND x.indimmediate
           AND x.indexprs IS NULL)
SELECT p FROM (
    SELECT pg_catalog.format('there is no role %s', pg_catalog.quote_ident($1::pg_catalog.text))
    WHERE NOT EXISTS (SELECT FROM owner)
    UNION ALL
    SELECT pg_catalog.format('schema %I is owned by role %I', ns.nspname, pg_catalog.pg_get_userbyid(ns.nspowner))
    FROM ns, owner WHERE ns.nspowner OPERATOR(pg_catalog.<>) owner.oid
    UNION ALL
    SELECT pg_catalog.format('%s %I is owned by role %I',
                             CASE c.relkind WHEN 'S' THEN 'sequence' WHEN 'i' THEN 'index' WHEN 'r' THEN 'table'
                                            ELSE 'relation' END,
                             c.relname, pg_catalog.pg_get_userbyid(c.relowner))
    FROM rels c, owner WHERE c.relowner OPERATOR(pg_catalog.<>) owner.oid
    UNION ALL
    SELECT pg_catalog.format('function %s is owned by role %I', p.oid::pg_catalog.regprocedure,
                             pg_catalog.pg_get_userbyid(p.proowner))
    FROM pg_catalog.pg_proc p JOIN ns ON p.pronamespace OPERATOR(pg_catalog.=) ns.oid, owner
    WHERE p.proowner OPERATOR(pg_catalog.<>) owner.oid
    UNION ALL
    SELECT pg_catalog.format('type %s is owned by role %I', t.oid::pg_catalog.regtype, pg_catalog.pg_get_userbyid(t.typowner))
    FROM pg_catalog.pg_type t JOIN ns ON t.typnamespace OPERATOR(pg_catalog.=) ns.oid, owner
    WHERE t.typowner OPERATOR(pg_catalog.<>) owner.oid
    UNION ALL
    SELECT pg_catalog.format('role %s has %s on %s', o.role, o.privilege_type, o.obj)
    FROM others o
    WHERE o.privilege_type OPERATOR(pg_catalog.=) ANY ('{CREATE,INSERT,UPDATE,DELETE,TRUNCATE,TRIGGER,REFERENCES,MAINTAIN}'::pg_catalog.text[])
       -- nextval on node_values spends values without a row (and a loop
       -- of them, all 268435455).
       OR (o.kind OPERATOR(pg_catalog.=) 'sequence' AND o.privilege_type OPERATOR(pg_catalog.=) 'USAGE')
       -- The SECURITY DEFINER functions are the delegations (doc/fleets.md,
       -- "Who may do what"), each to a role named; PUBLIC may call none
       -- but the readers (as SELECT on the tables was PUBLIC's to have),
       -- and insert_node and next_node (which write and draw) are nobody's.
       OR (o.privilege_type OPERATOR(pg_catalog.=) 'EXECUTE'
           AND ((o.kind OPERATOR(pg_catalog.=) 'function' AND o.role OPERATOR(pg_catalog.=) 'PUBLIC')
                OR o.kind OPERATOR(pg_catalog.=) 'helper'))
       -- Any privilege on the private schema: USAGE names the tables (and
       -- takes locks on them at parse time, privileges or not).
       OR o.kind OPERATOR(pg_catalog.=) 'private schema'
    UNION ALL
    SELECT pg_catalog.format('role %s is a member of %s, which %s: REVOKE %s FROM %s',
                             x.role, x.predefined, x.may, x.predefined, x.role)
    FROM wide x
    UNION ALL
    -- The database's owner may ANALYZE every table in it (PostgreSQL's
    -- rule since long before pg_maintain), schema USAGE or not: BEGIN;
    -- ANALYZE; holds SHARE UPDATE EXCLUSIVE on nodes until that
    -- transaction ends, the lock every lease and claim takes.
    SELECT pg_catalog.format('database %I is owned by role %I, who may ANALYZE the registry''s tables inside a transaction and hold the lock every lease and claim takes: ALTER DATABASE %I OWNER TO %I',
                             d.datname, pg_catalog.pg_get_userbyid(d.datdba), d.datname, $1::pg_catalog.text)
    FROM pg_catalog.pg_database d JOIN untrusted u ON u.oid OPERATOR(pg_catalog.=) d.datdba
    WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()
    UNION ALL
    -- From layout 3 the roles' schema holds functions alone: a relation
    -- there (a view over the tables, say) they may name, and lock from
    -- parse time, the tables behind a view too.
    SELECT pg_catalog.format('%s %I is in schema locality_uuid_registry, which other roles may use: move it to locality_uuid_registry_private',
                             CASE c.relkind WHEN 'v' THEN 'view' WHEN 'S' THEN 'sequence' WHEN 'i' THEN 'index' ELSE 'relation' END,
                             c.relname)
    FROM pg_catalog.pg_class c JOIN ns ON c.relnamespace OPERATOR(pg_catalog.=) ns.oid
    WHERE ns.nspname OPERATOR(pg_catalog.=) 'locality_uuid_registry'
      AND EXISTS (SELECT FROM ns p WHERE p.nspname OPERATOR(pg_catalog.=) 'locality_uuid_registry_private')
    UNION ALL
    SELECT pg_catalog.format('table %I has trigger %I', c.relname, t.tgname)
    FROM pg_catalog.pg_trigger t JOIN rels c ON t.tgrelid OPERATOR(pg_catalog.=) c.oid WHERE NOT t.tgisinternal
    UNION ALL
    SELECT pg_catalog.format('table %I has rule %I', c.relname, r.rulename)
    FROM pg_catalog.pg_rewrite r JOIN rels c ON r.ev_class OPERATOR(pg_catalog.=) c.oid
    WHERE r.rulename OPERATOR(pg_catalog.<>) '_RETURN'
    UNION ALL
    SELECT pg_catalog.format('table %I has row security policy %I', c.relname, p.polname)
    FROM pg_catalog.pg_policy p JOIN rels c ON p.polrelid OPERATOR(pg_catalog.=) c.oid
    UNION ALL
    SELECT pg_catalog.format('table %I has row security enabled', c.relname) FROM rels c WHERE c.relrowsecurity
    UNION ALL
    SELECT pg_catalog.format('%s %s is missing', e.kind, e.name)
    FROM (VALUES ('table', 'nodes', 'r'), ('table', 'claims', 'r'), ('sequence', 'node_values', 'S')) e(kind, name, relkind)
    WHERE $2::pg_catalog.bool AND NOT EXISTS (SELECT FROM rels c WHERE c.relname OPERATOR(pg_catalog.=) e.name
                                            AND c.relkind OPERATOR(pg_catalog.=) e.relkind::pg_catalog."char")
    UNION ALL
    SELECT 'sequence node_values does not run from 1 to 268435455 by 1 without cycling'
    FROM rels c JOIN pg_catalog.pg_sequence s ON s.seqrelid OPERATOR(pg_catalog.=) c.oid
    WHERE $2::pg_catalog.bool AND c.relname OPERATOR(pg_catalog.=) 'node_values'
      AND NOT (s.seqmin OPERATOR(pg_catalog.=) 1 AND s.seqmax OPERATOR(pg_catalog.=) 268435455
               AND s.seqincrement OPERATOR(pg_catalog.=) 1 AND NOT s.seqcycle)
    UNION ALL
    SELECT pg_catalog.format('table nodes has no unique constraint on (%s)', pg_catalog.array_to_string(e.cols, ', '))
    FROM (VALUES ('{node_id}'::pg_catalog.text[], false), ('{machine_name}', false), ('{machine_bytes}', false),
                 ('{host_id,data_directory}', true)) e(cols, partial)
    WHERE $2::pg_catalog.bool AND EXISTS (SELECT FROM rels c WHERE c.relname OPERATOR(pg_catalog.=) 'nodes')
      AND NOT EXISTS (SELECT FROM uniq u WHERE u.cols OPERATOR(pg_catalog.=) e.cols
                                           AND u.partial OPERATOR(pg_catalog.=) e.partial)
) problems(p)
)SQL";

}  // namespace locality_registry
