-- The registry as locality-uuid 1.4 made it (layout 2, its functions revision 1:
-- no comment on lease(), no identity): kRegistryTablesSql and
-- kRegistryFunctionsSql of src/registry/registry_sql.hpp at cfb0841^, and the
-- schema comment its fleet registry set. Frozen: leases.sh makes one with it
-- and updates it with this version's fleet registry.
CREATE SCHEMA IF NOT EXISTS locality_uuid_registry;
CREATE SEQUENCE IF NOT EXISTS locality_uuid_registry.node_values
    AS integer MINVALUE 1 MAXVALUE 268435455 NO CYCLE;
CREATE TABLE IF NOT EXISTS locality_uuid_registry.nodes (
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
    ON locality_uuid_registry.nodes (host_id, data_directory) WHERE retired_at IS NULL AND how <> 'leased';
CREATE TABLE IF NOT EXISTS locality_uuid_registry.claims (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    claims bigint NOT NULL DEFAULT 0,
    leases bigint NOT NULL DEFAULT 0,
    last_claim_at timestamptz);
INSERT INTO locality_uuid_registry.claims DEFAULT VALUES ON CONFLICT DO NOTHING;
COMMENT ON TABLE locality_uuid_registry.nodes IS
    'locality_uuid node values and Hot Guid machine names, claimed once per host and data directory, never reused';
-- The Hot Guid machine bytes of a name: the first three bytes of its MD5
-- (machine names are ASCII: the CHECK on nodes.machine_name).
CREATE OR REPLACE FUNCTION locality_uuid_registry.machine_bytes(name text) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT SET search_path = pg_catalog, pg_temp AS $$
SELECT pg_catalog.substring(pg_catalog.decode(pg_catalog.md5(name), 'hex'), 1, 3)
$$;

-- Inserts node value `node` for a host with the first machine name whose
-- bytes no row has: `wanted` if given (refused if taken), else lu-<hex>,
-- lu-<hex>-1, ... Returns the name.
CREATE OR REPLACE FUNCTION locality_uuid_registry.insert_node(node integer, wanted text, host text, label text,
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
        INSERT INTO locality_uuid_registry.nodes (node_id, machine_name, machine_bytes, host_id, host_label,
                                                  data_directory, how)
        VALUES (node, name, locality_uuid_registry.machine_bytes(name), host, label, dir, kind)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            RETURN name;
        END IF;
        IF wanted IS NOT NULL THEN
            RAISE EXCEPTION 'machine name % cannot be adopted: its machine bytes % are another row''s', wanted,
                pg_catalog.encode(locality_uuid_registry.machine_bytes(wanted), 'hex')
                USING ERRCODE = '23505', DETAIL = (
                    SELECT pg_catalog.format('Node value %s (%s, %s, data directory %s) has them.', n.node_id,
                                             n.machine_name, n.host_label, n.data_directory)
                    FROM locality_uuid_registry.nodes n
                    WHERE n.machine_bytes OPERATOR(pg_catalog.=) locality_uuid_registry.machine_bytes(wanted)
                       OR n.machine_name OPERATOR(pg_catalog.=) wanted
                    LIMIT 1);
        END IF;
    END LOOP;
    RAISE EXCEPTION 'no free machine name for node value %', node USING ERRCODE = '54000';
END
$$;

-- The next value of the sequence that no row holds (a row may have been
-- adopted with that value).
CREATE OR REPLACE FUNCTION locality_uuid_registry.next_node() RETURNS integer
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    v integer;
BEGIN
    LOOP
        v := pg_catalog.nextval('locality_uuid_registry.node_values'::pg_catalog.regclass);
        IF NOT EXISTS (SELECT FROM locality_uuid_registry.nodes n WHERE n.node_id OPERATOR(pg_catalog.=) v) THEN
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
    live locality_uuid_registry.nodes;
    holder locality_uuid_registry.nodes;
    node integer;
    name text;
BEGIN
    IF host IS NULL OR label IS NULL OR dir IS NULL THEN
        RAISE EXCEPTION 'a claim needs a host, a label and a data directory' USING ERRCODE = '22004';
    END IF;
    IF adopt_name IS NOT NULL AND adopt_node IS NULL THEN
        RAISE EXCEPTION 'a machine name is adopted only with a node value' USING ERRCODE = '22023';
    END IF;
    LOCK TABLE locality_uuid_registry.nodes IN SHARE ROW EXCLUSIVE MODE;
    SELECT * INTO live FROM locality_uuid_registry.nodes n
    WHERE n.host_id OPERATOR(pg_catalog.=) host AND n.data_directory OPERATOR(pg_catalog.=) dir
      AND n.retired_at IS NULL AND n.how OPERATOR(pg_catalog.<>) 'leased';
    IF FOUND THEN
        IF adopt_node IS NOT NULL AND (live.node_id OPERATOR(pg_catalog.<>) adopt_node
                                       OR (adopt_name IS NOT NULL AND live.machine_name OPERATOR(pg_catalog.<>) adopt_name)) THEN
            RAISE EXCEPTION 'this host and data directory already hold node value % (machine name %)',
                live.node_id, live.machine_name
                USING ERRCODE = '23505',
                      HINT = 'Retire that row first (UPDATE locality_uuid_registry.nodes SET retired_at = now() WHERE node_id = ...) to adopt another value.';
        END IF;
        UPDATE locality_uuid_registry.nodes n SET last_seen = pg_catalog.now()
        WHERE n.node_id OPERATOR(pg_catalog.=) live.node_id;
        RETURN QUERY SELECT live.node_id, live.machine_name, pg_catalog.encode(live.machine_bytes, 'hex'),
                            live.host_label, true;
        RETURN;
    END IF;
    IF adopt_node IS NOT NULL THEN
        IF adopt_node OPERATOR(pg_catalog.<) 1 OR adopt_node OPERATOR(pg_catalog.>) 268435455 THEN
            RAISE EXCEPTION 'node value % is out of range', adopt_node
                USING ERRCODE = '22003', DETAIL = 'The registry holds node values 1 to 268435455.';
        END IF;
        SELECT * INTO holder FROM locality_uuid_registry.nodes n WHERE n.node_id OPERATOR(pg_catalog.=) adopt_node;
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
        node := locality_uuid_registry.next_node();
    END IF;
    name := locality_uuid_registry.insert_node(node, adopt_name, host, label, dir,
                                               CASE WHEN adopt_node IS NULL THEN 'claimed' ELSE 'adopted' END);
    UPDATE locality_uuid_registry.claims c
    SET claims = c.claims OPERATOR(pg_catalog.+) 1, last_claim_at = pg_catalog.now();
    RETURN QUERY SELECT node, name, pg_catalog.encode(locality_uuid_registry.machine_bytes(name), 'hex'), label, false;
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
    LOCK TABLE locality_uuid_registry.nodes IN SHARE ROW EXCLUSIVE MODE;
    SELECT pg_catalog.count(*) INTO held FROM locality_uuid_registry.nodes r
    WHERE r.host_id OPERATOR(pg_catalog.=) ANY (hosts) AND r.data_directory OPERATOR(pg_catalog.=) dir
      AND r.retired_at IS NULL AND r.how OPERATOR(pg_catalog.<>) 'leased';
    -- The block's claims past n (it was claimed larger): another size.
    IF EXISTS (SELECT FROM locality_uuid_registry.nodes r
               WHERE pg_catalog.starts_with(r.host_label, label OPERATOR(pg_catalog.||) '/')
                 AND r.host_label OPERATOR(pg_catalog.<>) ALL (labels)
                 AND r.data_directory OPERATOR(pg_catalog.=) dir AND r.retired_at IS NULL
                 AND r.how OPERATOR(pg_catalog.<>) 'leased') THEN
        held := -1;
    END IF;
    IF held OPERATOR(pg_catalog.=) n THEN
        RETURN QUERY SELECT r.node_id, r.machine_name, pg_catalog.encode(r.machine_bytes, 'hex'), r.host_label, true
                     FROM locality_uuid_registry.nodes r
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
        node := locality_uuid_registry.next_node();
        IF i OPERATOR(pg_catalog.=) 1 THEN
            base := node;
        ELSIF node OPERATOR(pg_catalog.<>) (base OPERATOR(pg_catalog.+) i OPERATOR(pg_catalog.-) 1) THEN
            RAISE EXCEPTION 'the node values of a block must be consecutive, and value % is taken',
                base OPERATOR(pg_catalog.+) i OPERATOR(pg_catalog.-) 1
                USING ERRCODE = '40001', HINT = 'Claim the block again: it starts past the taken value.';
        END IF;
        name := locality_uuid_registry.insert_node(node, NULL, hosts[i], labels[i], dir, 'claimed');
        RETURN QUERY SELECT node, name, pg_catalog.encode(locality_uuid_registry.machine_bytes(name), 'hex'),
                            labels[i], false;
    END LOOP;
    UPDATE locality_uuid_registry.claims c
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
    LOCK TABLE locality_uuid_registry.nodes IN SHARE ROW EXCLUSIVE MODE;
    node := locality_uuid_registry.next_node();
    name := locality_uuid_registry.insert_node(node, NULL, host, label, dir, 'leased');
    UPDATE locality_uuid_registry.nodes n
    SET system_identifier = lease.system_identifier, started_at = lease.started_at, last_seen = pg_catalog.now()
    WHERE n.node_id OPERATOR(pg_catalog.=) node;
    UPDATE locality_uuid_registry.claims c
    SET leases = c.leases OPERATOR(pg_catalog.+) 1, last_claim_at = pg_catalog.now();
    RETURN QUERY SELECT node, name, pg_catalog.encode(locality_uuid_registry.machine_bytes(name), 'hex');
END
$$;

-- The audit's mark: last_seen = now() for the claims found live where
-- they were claimed (node value, host digest and data directory alike).
-- Returns how many.
CREATE OR REPLACE FUNCTION locality_uuid_registry.seen(nodes integer[], hosts text[], dirs text[]) RETURNS integer
    LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
WITH marked AS (
    UPDATE locality_uuid_registry.nodes n SET last_seen = pg_catalog.now()
    FROM ROWS FROM (pg_catalog.unnest(nodes), pg_catalog.unnest(hosts), pg_catalog.unnest(dirs)) s(node, host, dir)
    WHERE n.node_id OPERATOR(pg_catalog.=) s.node AND n.host_id OPERATOR(pg_catalog.=) s.host
      AND n.data_directory OPERATOR(pg_catalog.=) s.dir AND n.retired_at IS NULL
    RETURNING 1)
SELECT pg_catalog.count(*)::integer FROM marked
$$;

REVOKE ALL ON FUNCTION locality_uuid_registry.machine_bytes(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION locality_uuid_registry.insert_node(integer, text, text, text, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION locality_uuid_registry.lease(text, text, text, text, timestamptz) FROM PUBLIC;
REVOKE ALL ON FUNCTION locality_uuid_registry.next_node() FROM PUBLIC;
REVOKE ALL ON FUNCTION locality_uuid_registry.claim(text, text, text, integer, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION locality_uuid_registry.claim_block(text, text, text[], text[]) FROM PUBLIC;
REVOKE ALL ON FUNCTION locality_uuid_registry.seen(integer[], text[], text[]) FROM PUBLIC;
COMMENT ON SCHEMA locality_uuid_registry IS 'locality_uuid registry, layout 2';
