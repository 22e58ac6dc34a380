-- locality_uuid 1.1 -> 1.2
-- Only CREATE FUNCTION, CREATE PROCEDURE (PL/pgSQL, stored, not run),
-- ALTER FUNCTION (volatility), REVOKE and COMMENT,
-- every type schema-qualified, as in the install scripts
-- (test/integration/install_scripts.sh checks both).

\echo Use "ALTER EXTENSION locality_uuid UPDATE TO '1.2'" to load this file. \quit

-- The machine name and bytes change only with a reload of
-- locality_uuid.machine_name: one value per statement is right.
ALTER FUNCTION hot_guid_machine_name() STABLE;
ALTER FUNCTION hot_guid_machine_id() STABLE;

-- Hot Guid time ranges as ranges of the key: IMMUTABLE (an absolute
-- instant rounded up to its second).

CREATE FUNCTION hot_guid_lower(ts pg_catalog.timestamptz) RETURNS pg_catalog.uuid
    AS 'MODULE_PATHNAME', 'hot_guid_lower'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION hot_guid_lower(pg_catalog.timestamptz) IS
    'Smallest id of the Hot Guids made at ts or later: id >= hot_guid_lower(a) AND id < hot_guid_lower(b) is a key range';

-- A forward clock glitch of 64 or more windows leaves a sequential run in
-- the future; this releases it (README, Guarantees). Superusers only, or
-- roles granted EXECUTE.
CREATE FUNCTION locality_uuid_release_future_windows(
        OUT window_start pg_catalog.timestamptz, OUT window_end pg_catalog.timestamptz)
    RETURNS SETOF pg_catalog.record
    AS 'MODULE_PATHNAME', 'locality_uuid_release_future_windows'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
REVOKE ALL ON FUNCTION locality_uuid_release_future_windows() FROM PUBLIC;
COMMENT ON FUNCTION locality_uuid_release_future_windows() IS
    'Releases the sequential runs of windows 64 or more ahead of the clock (after a forward clock glitch) and returns them';

-- After locality_uuid.state could not be read at start and was then put
-- back (or deleted), or when it was written by another cluster (pg_upgrade,
-- a copy): server-wide ids wait until a superuser says the file is the
-- newest one (README, Operations). Superusers only, or roles granted EXECUTE.
CREATE FUNCTION locality_uuid_accept_state_file()
    RETURNS pg_catalog.text
    AS 'MODULE_PATHNAME', 'locality_uuid_accept_state_file'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
REVOKE ALL ON FUNCTION locality_uuid_accept_state_file() FROM PUBLIC;
COMMENT ON FUNCTION locality_uuid_accept_state_file() IS
    'Makes the state file now in the data directory (or fresh counters, if there is none) this server''s, after it was put back or came from another cluster';

-- After a forward clock glitch, clock Hot Guids carry the glitch's second
-- until real time reaches it, then refuse: this releases those seconds
-- (README, Hot Guids). Superusers only, or roles granted EXECUTE.
CREATE FUNCTION hot_guid_release_future_seconds(
        OUT released_from pg_catalog.timestamptz, OUT released_to pg_catalog.timestamptz)
    RETURNS SETOF pg_catalog.record
    AS 'MODULE_PATHNAME', 'hot_guid_release_future_seconds'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
REVOKE ALL ON FUNCTION hot_guid_release_future_seconds() FROM PUBLIC;
COMMENT ON FUNCTION hot_guid_release_future_seconds() IS
    'Releases the clock Hot Guid seconds reserved ahead of the clock (after a forward clock glitch) and returns them';

-- Monitoring: how much of the current window's server-wide sequential run
-- is used (2^31 ids a window, shared by every role and database).
CREATE FUNCTION locality_uuid_window_usage(
        OUT window_start pg_catalog.timestamptz, OUT window_end pg_catalog.timestamptz,
        OUT ids_drawn pg_catalog.int8, OUT ids_left pg_catalog.int8)
    RETURNS pg_catalog.record
    AS 'MODULE_PATHNAME', 'locality_uuid_window_usage'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION locality_uuid_window_usage() IS
    'The server-wide sequential run of the current 10-minute window: ids drawn and ids left of its 2^31';

-- Backfills: a column filled from an expression of each row, in batches of
-- batch_size rows in key order with a COMMIT each, so a live table is never
-- locked for long and a stopped run resumes where it stopped. PL/pgSQL,
-- SECURITY INVOKER and without SET (either would forbid the COMMITs): every
-- statement runs with the caller's privileges and search_path, as if the
-- caller had typed it. Operators on our own values are written with
-- operands of exactly matching pg_catalog types, so that no operator of
-- another schema on that path is a better match.
CREATE PROCEDURE locality_uuid_fill(
        tbl pg_catalog.regclass, col pg_catalog.name, expr pg_catalog.text,
        key_col pg_catalog.name DEFAULT NULL, batch_size pg_catalog.int4 DEFAULT 10000,
        max_rows pg_catalog.int8 DEFAULT NULL, INOUT filled pg_catalog.int8 DEFAULT NULL)
    LANGUAGE plpgsql AS $fill$
DECLARE
  rel pg_catalog.oid := tbl::pg_catalog.oid;
  key_type text;            -- the key's type, for the text round trip of last_key
  last_key text;            -- the largest key of the last committed batch
  to_fill bigint;           -- rows without a value when the call began
  null_keys bigint;
  batches bigint := 0;
  n bigint;
  nulls bigint;
  null_key text;
  missing name;
  left_null bigint;         -- rows still without a value at the end
  seqscan text := pg_catalog.current_setting('enable_seqscan');  -- the caller's, outside batches
  started timestamptz := pg_catalog.clock_timestamp();
  reported timestamptz := started;
  keys text[];              -- the batch's keys, in key order
  keys_sql text;
  first_sql text;           -- the first batch's keys start at the first row to fill
  next_sql text;            -- the others' after the last key written
  update_sql text;
BEGIN
  filled := 0;
  IF tbl IS NULL OR col IS NULL OR expr IS NULL THEN
    RAISE EXCEPTION 'locality_uuid_fill: tbl, col and expr must not be NULL'
      USING ERRCODE = 'null_value_not_allowed',
            DETAIL = pg_catalog.format('tbl is %s, col is %s, expr is %s.', coalesce(tbl::text, 'NULL'),
                                       coalesce(pg_catalog.quote_ident(col), 'NULL'), coalesce(pg_catalog.quote_literal(expr), 'NULL'));
  END IF;
  IF expr !~ '\S' THEN
    RAISE EXCEPTION 'locality_uuid_fill: expr must not be empty'
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Give an expression of the row t, e.g. ''locality_uuid_at(t.created_at, true)''.';
  END IF;
  IF batch_size IS NULL OR batch_size < 1 THEN
    RAISE EXCEPTION 'locality_uuid_fill: batch_size must be at least 1'
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = pg_catalog.format('batch_size is %s.', coalesce(batch_size::text, 'NULL'));
  END IF;
  IF max_rows < 0 THEN
    RAISE EXCEPTION 'locality_uuid_fill: max_rows must not be negative'
      USING ERRCODE = 'invalid_parameter_value', DETAIL = pg_catalog.format('max_rows is %s.', max_rows);
  END IF;
  -- Under REPEATABLE READ or SERIALIZABLE every batch that meets a
  -- concurrent update fails; READ COMMITTED rechecks those rows instead.
  IF pg_catalog.current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'locality_uuid_fill: batches must run at isolation level READ COMMITTED'
      USING ERRCODE = 'invalid_transaction_state',
            DETAIL = pg_catalog.format('The transaction isolation level is %s.', pg_catalog.current_setting('transaction_isolation')),
            HINT = 'SET default_transaction_isolation = ''read committed'' in this session, then call again.';
  END IF;
  FOR missing IN SELECT c FROM pg_catalog.unnest(ARRAY[col, key_col]) c
                 WHERE c IS NOT NULL AND NOT EXISTS (
                   SELECT FROM pg_catalog.pg_attribute
                   WHERE attrelid = rel AND attname = c AND attnum > 0 AND NOT attisdropped) LOOP
    RAISE EXCEPTION 'column "%" of relation "%" does not exist', missing, tbl
      USING ERRCODE = 'undefined_column';
  END LOOP;
  -- A plain table with children: its unique index does not cover theirs.
  IF EXISTS (SELECT FROM pg_catalog.pg_class WHERE oid = rel AND relkind = 'r' AND relhassubclass) THEN
    RAISE EXCEPTION 'locality_uuid_fill: % has inheritance children', tbl
      USING ERRCODE = 'feature_not_supported',
            HINT = 'Fill each table of the hierarchy by itself; a partitioned table can be filled as a whole.';
  END IF;
  -- The key: key_col, or the table's one-column primary key. Batches end
  -- at a key value, so it must be unique under the very order they follow:
  -- NOT NULL, with a valid, non-partial unique index on it alone whose
  -- collation and operator class are the column's defaults.
  key_col := coalesce(key_col,
    (SELECT a.attname FROM pg_catalog.pg_index x
       JOIN pg_catalog.pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = x.indkey[0]
     WHERE x.indrelid = rel AND x.indisprimary AND x.indnkeyatts = 1));
  SELECT pg_catalog.format_type(a.atttypid, a.atttypmod) INTO key_type
  FROM pg_catalog.pg_attribute a
  WHERE a.attrelid = rel AND a.attname = key_col AND a.attnum > 0 AND NOT a.attisdropped AND a.attnotnull
    AND EXISTS (SELECT FROM pg_catalog.pg_index x
                JOIN pg_catalog.pg_opclass oc ON oc.oid = x.indclass[0]
                WHERE x.indrelid = rel AND x.indisunique AND x.indisvalid AND x.indnkeyatts = 1
                  AND x.indkey[0] = a.attnum AND x.indpred IS NULL AND x.indexprs IS NULL
                  AND x.indcollation[0] = a.attcollation AND oc.opcdefault)
    -- Batches pass their keys as an array of the key's type.
    AND NOT EXISTS (SELECT FROM pg_catalog.pg_type ty WHERE ty.oid = a.atttypid AND ty.typcategory = 'A');
  IF key_type IS NULL THEN
    RAISE EXCEPTION 'locality_uuid_fill: % has no unique key to batch by', tbl
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = CASE WHEN key_col IS NULL
                       THEN 'key_col is not given and the table has no one-column primary key.'
                       ELSE pg_catalog.format('Column %I must be NOT NULL, not of an array type, and have a valid, non-partial unique index on it alone, with the column''s collation and default operator class.', key_col) END,
            HINT = 'Name such a column as key_col.';
  END IF;
  IF key_col = col THEN
    RAISE EXCEPTION 'locality_uuid_fill: the key to batch by cannot be the column being filled'
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  -- The caller's rights, before the counting scan rather than after it.
  IF NOT (pg_catalog.has_column_privilege(rel, col, 'UPDATE') AND pg_catalog.has_column_privilege(rel, col, 'SELECT')
          AND pg_catalog.has_column_privilege(rel, key_col, 'SELECT')) THEN
    RAISE EXCEPTION 'permission denied for table %', tbl
      USING ERRCODE = 'insufficient_privilege',
            DETAIL = pg_catalog.format('locality_uuid_fill needs SELECT on columns %I and %I and UPDATE on column %I.',
                                       key_col, col, col);
  END IF;
  -- Keys travel between batches as text: print them in forms that read
  -- back to the same value, whatever the session's settings (local to
  -- each transaction, so set again after every COMMIT).
  PERFORM pg_catalog.set_config('DateStyle', 'ISO', true), pg_catalog.set_config('IntervalStyle', 'postgres', true),
          pg_catalog.set_config('extra_float_digits', '3', true);
  -- How many rows to fill (a scan), and where the first one is (a search
  -- in key order: rows before it were filled by earlier calls, and a
  -- stopped run resumes there).
  -- A NOT NULL not yet validated (18+) may still hide NULL keys.
  EXECUTE pg_catalog.format(
    'SELECT pg_catalog.count(*), pg_catalog.count(*) FILTER (WHERE %2$I IS NULL),
            (SELECT f.%2$I::text FROM %1$s f WHERE f.%3$I IS NULL AND f.%2$I IS NOT NULL ORDER BY f.%2$I LIMIT 1)
     FROM %1$s WHERE %3$I IS NULL', tbl, key_col, col)
    INTO to_fill, null_keys, last_key;
  IF null_keys > 0 THEN
    RAISE EXCEPTION 'locality_uuid_fill: % rows of % have no %', null_keys, tbl, pg_catalog.quote_ident(key_col)
      USING ERRCODE = 'not_null_violation',
            HINT = 'Give them keys, or name another key_col.';
  END IF;
  -- A batch: the next batch_size keys with no value, in key order on the
  -- key's index (ORDER BY names the key qualified: bare, it would be the
  -- text output column of the same name, in text order); then those rows
  -- updated through the same index, as a list of keys: a bitmap scan visits
  -- their pages in physical order, however the table is stored. A row
  -- filled meanwhile is skipped. It returns the rows written and the first
  -- key that got a NULL. The row is t in expr.
  keys_sql := $sql$SELECT pg_catalog.array_agg(b.%2$I::text ORDER BY b.%2$I)
     FROM (SELECT %2$I FROM %1$s WHERE %2$I %4$s $1::%3$s AND %5$I IS NULL ORDER BY %2$I LIMIT $2) b$sql$;
  first_sql := pg_catalog.format(keys_sql, tbl, key_col, key_type, '>=', col);
  next_sql := pg_catalog.format(keys_sql, tbl, key_col, key_type, '>', col);
  update_sql := pg_catalog.format(
    $sql$WITH done AS (UPDATE %1$s t SET %3$I = (%5$s
                       ) WHERE t.%2$I = ANY ($1::%4$s[]) AND t.%3$I IS NULL
                       RETURNING t.%2$I AS fill_key, t.%3$I IS NULL AS is_null)
     SELECT pg_catalog.count(*), pg_catalog.count(*) FILTER (WHERE is_null),
            (SELECT d.fill_key::text FROM done d WHERE d.is_null ORDER BY d.fill_key LIMIT 1)
     FROM done$sql$, tbl, key_col, col, key_type, expr);
  WHILE last_key IS NOT NULL AND (max_rows IS NULL OR filled < max_rows) LOOP
    -- A batch reads the key's index only. Left to costs, the planner
    -- scans the whole table instead once batch_size is a fraction of a
    -- percent of it; enable_seqscan off keeps every batch at the size of
    -- the batch. Only for the batch's two statements: the caller's value
    -- is back before anything else runs (plans that a trigger or expr's
    -- functions cache while the UPDATE runs keep it off, README).
    PERFORM pg_catalog.set_config('DateStyle', 'ISO', true), pg_catalog.set_config('IntervalStyle', 'postgres', true),
            pg_catalog.set_config('extra_float_digits', '3', true), pg_catalog.set_config('enable_seqscan', 'off', true);
    EXECUTE CASE WHEN batches = 0 THEN first_sql ELSE next_sql END
      INTO keys
      USING last_key, CASE WHEN max_rows IS NULL THEN batch_size ELSE least(batch_size, max_rows - filled) END;
    IF keys IS NULL THEN                   -- no row left to fill past the last batch
      PERFORM pg_catalog.set_config('enable_seqscan', seqscan, true);
      last_key := NULL;
      EXIT;
    END IF;
    last_key := keys[pg_catalog.array_upper(keys, 1)];
    EXECUTE update_sql INTO n, nulls, null_key USING keys;
    PERFORM pg_catalog.set_config('enable_seqscan', seqscan, true);
    IF nulls > 0 THEN                      -- never a NULL: this batch is rolled back
      RAISE EXCEPTION 'locality_uuid_fill: the expression gave NULL for % of % rows of %', nulls, n, tbl
        USING ERRCODE = 'not_null_violation',
              DETAIL = pg_catalog.format('The first is the row with %I = %s. This batch was rolled back; the %s rows filled before it are committed.',
                                         key_col, null_key, filled),
              HINT = 'Give those rows a value the expression can use, or make it cover them (e.g. coalesce(t.created_at, to_timestamp(0))), then call again.';
    END IF;
    COMMIT;
    filled := filled + n;
    batches := batches + 1;
    IF pg_catalog.clock_timestamp() - reported >= interval '10 s' THEN
      reported := pg_catalog.clock_timestamp();
      RAISE NOTICE 'locality_uuid_fill: %.%: % of % rows filled, % rows/s, up to % = %',
        tbl, pg_catalog.quote_ident(col), filled, to_fill,
        pg_catalog.round(filled::pg_catalog.numeric
                         / greatest(extract(epoch FROM reported - started)::pg_catalog.numeric, 0.001)),
        pg_catalog.quote_ident(key_col), last_key;
    END IF;
  END LOOP;
  -- What is left, counted rather than assumed: rows a trigger kept from
  -- changing, rows added behind the batches meanwhile; rows that row
  -- security hides from the caller are neither filled nor counted.
  IF last_key IS NULL THEN
    EXECUTE pg_catalog.format('SELECT pg_catalog.count(*) FROM %s WHERE %I IS NULL', tbl, col) INTO left_null;
  END IF;
  RAISE NOTICE 'locality_uuid_fill: %.%: % rows filled in % %, %', tbl, pg_catalog.quote_ident(col), filled, batches,
    CASE WHEN batches = 1 THEN 'batch' ELSE 'batches' END,
    CASE WHEN last_key IS NOT NULL
           THEN pg_catalog.format('stopped at max_rows with about %s left', greatest(to_fill - filled, 0))
         WHEN left_null = 0 THEN 'no row without a value left'
         ELSE pg_catalog.format('%s rows still without a value (kept by a trigger, or added behind the batches meanwhile)', left_null) END
    || CASE WHEN pg_catalog.row_security_active(rel) THEN '; row security may hide more rows from this role' ELSE '' END;
END
$fill$;
COMMENT ON PROCEDURE locality_uuid_fill(pg_catalog.regclass, pg_catalog.name, pg_catalog.text, pg_catalog.name, pg_catalog.int4, pg_catalog.int8, pg_catalog.int8) IS
    'Fills col with expr (of row t) in batches of batch_size rows in key order, a COMMIT each, resuming at the first row without a value; returns the rows filled';
