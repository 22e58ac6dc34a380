-- What an ordinary role may do, and what it may not.
CREATE ROLE regress_locality_app NOLOGIN;
SET ROLE regress_locality_app;

-- Every function but the release of future runs is callable by an ordinary role.
SELECT locality_uuid_version(locality_uuid()) AS a, locality_uuid_version(locality_uuid(true)) AS b,
       locality_uuid_version(locality_uuid(now())) AS c, locality_uuid_version(locality_uuid(now(), false)) AS d,
       locality_uuid_version(locality_uuid_at(now())) AS e, locality_uuid_version(locality_uuid_at(now(), true)) AS f,
       locality_uuid_counter('20be0ffc-314a-bd53-7a50-013a65ca76d2') AS counter,
       locality_uuid_pid('20be0ffc-314a-bd53-7a50-013a65ca76d2') AS pid,
       locality_uuid_mac('20be0ffc-314a-bd53-7a50-013a65ca76d2') AS mac,
       locality_uuid_node('20be0ffc-314a-bd53-7a50-013a65ca76d2') AS node,
       locality_uuid_timestamp('20be0ffc-314a-bd53-7a50-013a65ca76d2') AT TIME ZONE 'UTC' AS utc;
SELECT locality_uuid_counter_scope() IN ('server', 'backend') AS scope_known,
       locality_uuid_node_id() BETWEEN 0 AND 268435455 AS node_known,
       locality_uuid_node_source() IS NOT NULL AS source_known;
SELECT locality_uuid_use_sequential_ids();
SHOW locality_uuid.sequential;
SELECT locality_uuid_use_variable_ids();
SET locality_uuid.sequential = on;
RESET locality_uuid.sequential;
SELECT form_uuid_v1('2020-01-01+00', 1, '44:88:99:36:57:32') AS v1,
       form_uuid_v1_nth('2020-01-01+00', 20000, '44:88:99:36:57:32') AS v1_nth,
       uuid_v1_timestamp('6b54058a-a413-11e6-b501-a0999b048337') AT TIME ZONE 'UTC' AS v1_time,
       uuid_v1_clock_seq('6b54058a-a413-11e6-b501-a0999b048337') AS v1_clock_seq,
       uuid_v1_node('6b54058a-a413-11e6-b501-a0999b048337') AS v1_node;

-- Releasing runs or Hot Guid seconds affects every id of the server, and so
-- do accepting a state file in doubt and moving the counters on to
-- continue another edition's: superusers only, or roles granted EXECUTE.
SELECT * FROM locality_uuid_release_future_windows();
SELECT locality_uuid_accept_state_file();
SELECT * FROM hot_guid_release_future_seconds();
SELECT * FROM locality_uuid_counters();
SELECT locality_uuid_continue_after(0, 0, 0, 0, 0);

-- The node id belongs to the server's configuration, not to a role.
SET locality_uuid.node_id = 42;
SELECT set_config('locality_uuid.node_id', '42', false);
ALTER ROLE regress_locality_app SET locality_uuid.node_id = 42;
RESET ROLE;

-- Nothing runs with its owner's rights.
SELECT count(*) AS security_definer_functions
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'locality_uuid') AND p.prosecdef;

-- Trusted: a role with CREATE on the database installs it without being a
-- superuser, into a schema of its own, and owns the extension.  (What keeps
-- the script, which then runs as superuser, safe from objects that role
-- made: PostgreSQL searches pg_catalog first and pg_temp last while it runs
-- an extension script, and the script runs nothing but CREATE FUNCTION,
-- CREATE PROCEDURE (a PL/pgSQL body, stored, never run) and COMMENT;
-- test/integration/install_scripts.sh checks the latter.)
DROP EXTENSION locality_uuid;
DO $$ BEGIN EXECUTE format('GRANT CREATE ON DATABASE %I TO regress_locality_app', current_database()); END $$;
SET ROLE regress_locality_app;
CREATE SCHEMA app;
CREATE EXTENSION locality_uuid SCHEMA app;
SELECT count(*) AS functions_in_app
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'locality_uuid')
  AND p.pronamespace = 'app'::regnamespace;
SELECT app.locality_uuid_version(app.locality_uuid()) AS installed_by_app;
-- Owning the (trusted) extension gives no right to release runs or
-- seconds, or to accept a state file.
SELECT * FROM app.locality_uuid_release_future_windows();
SELECT app.locality_uuid_accept_state_file();
SELECT * FROM app.hot_guid_release_future_seconds();
SELECT extname, extowner::regrole AS owner FROM pg_extension WHERE extname = 'locality_uuid';
DROP EXTENSION locality_uuid;
DROP SCHEMA app CASCADE;
RESET ROLE;
DO $$ BEGIN EXECUTE format('REVOKE CREATE ON DATABASE %I FROM regress_locality_app', current_database()); END $$;
DROP ROLE regress_locality_app;
CREATE EXTENSION locality_uuid;
