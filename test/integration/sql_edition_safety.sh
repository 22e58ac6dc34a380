#!/usr/bin/env bash
# The SQL edition in a database other roles share (issue #36), on a server
# that preloads the C edition (the edition move needs its server-wide
# counters):
#   install     every form (psql script, the extension, pg_tle's text run
#               as the creating role) refuses, before it changes anything,
#               a schema where another role may create (functions and a
#               sequence of the edition's names planted there, with a trap
#               that counts whether it ran: never), one another role owns,
#               one holding another role's objects, one holding objects of
#               the edition's names the installer does not own; the error
#               names the check, the objects and roles, and the line of the
#               check; a schema of the installer's own installs cleanly
#   privileges  sequences and the lock view start owner-only under default
#               privileges that grant everything to another role; a role
#               given EXECUTE ON ALL FUNCTIONS makes ids but cannot set the
#               node value, release runs or hand counters over; a role
#               without USAGE on the runs cannot take one over; a member of
#               the owner role can
#               (and, 14+, a schema while another role is a member of
#               pg_write_all_data, 17+ pg_maintain, directly or through a
#               group: named with the REVOKE)
#   locks       a role with only CONNECT holding every advisory lock it can
#               name and an ACCESS SHARE lock on every relation of the
#               edition, and the read-only role holding from parse time
#               (PREPARE, one of them in a PREPARE TRANSACTION) ROW SHARE
#               on every relation and ROW EXCLUSIVE on one, delay neither a
#               run's takeover, nor the release by more than a second, nor
#               the move of a copy's first id; a session's first id where
#               nothing moves takes no lock (the owner holding the lock
#               delays none)
#   parallel    every function labelled PARALLEL SAFE runs in a parallel
#               worker (forced parallel mode, the leader not participating)
#               and answers as it does in the leader
# (Copies, upgrades in place and the moves between the editions are
# sql_edition_moves.sh's.)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
make -s -C "$ROOT" PG_CONFIG="$PG_CONFIG" sql-edition
export SCRIPT="$ROOT/locality_uuid_sql.sql" EXT_DIR VERSION
VERSION=$(sql_edition_version)
export FIXTURES="$ROOT/test/fixtures/sql_edition_1.2" N=${SQL_EDITION_SAFETY_IDS:-100000}
EXT_DIR="$("$PG_CONFIG" --sharedir)/extension"
export WORK
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; rm -f "$EXT_DIR/locality_uuid_sql--1.2.sql"; make -s -C "$ROOT/locality_uuid_sql" PG_CONFIG="$PG_CONFIG" uninstall >/dev/null' EXIT
make -s -C "$ROOT/locality_uuid_sql" PG_CONFIG="$PG_CONFIG" install >/dev/null
# The 1.2 extension script, for CREATE EXTENSION ... VERSION '1.2'.
cp "$FIXTURES/locality_uuid_sql--1.2.sql" "$EXT_DIR/"

run() {
  set -euo pipefail
  fail() { echo "FAIL: $*"; exit 1; }
  # as ROLE DB SQL...: psql as a login role, tuples only.
  as() { local role=$1 db=$2; shift 2; psql -X -q -At -v ON_ERROR_STOP=1 -U "$role" -d "$db" "$@"; }
  q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "${DB:-shop}" "$@"; }
  expect() {
    local got
    got=$(q -c "$2" 2>&1) || fail "$1: $got"
    [ "$got" = "$3" ] || fail "$1: got '$got', wanted '$3'"
    echo "ok: $1: $got"
  }
  # Login roles (pg_virtualenv's server takes passwords: each the
  # superuser's, which PGPASSWORD holds).
  for role in dba mallory app reader ops; do q -d postgres -c "CREATE ROLE $role LOGIN PASSWORD '$PGPASSWORD'"; done
  q -d postgres -c "GRANT dba TO ops" -c "CREATE DATABASE shop OWNER dba"
  # mallory's trap: a sequence every planted object draws from (a draw
  # survives the rollback of a refused install) before it says so.
  q -c "GRANT CREATE ON DATABASE shop TO mallory"
  as mallory shop -c "CREATE SCHEMA mallory_own" -c "CREATE SEQUENCE mallory_own.trap_ran" \
    -c "GRANT USAGE ON SCHEMA mallory_own TO PUBLIC" -c "GRANT USAGE ON SEQUENCE mallory_own.trap_ran TO PUBLIC"
  trap_ran="SELECT coalesce(pg_sequence_last_value('mallory_own.trap_ran'), 0)"
  plant() {  # plant SCHEMA: mallory's routines, sequences and operators of the edition's names
    as mallory shop <<SQL
CREATE FUNCTION $1.locality_uuid_variable_start() RETURNS int8 LANGUAGE plpgsql AS
  \$\$ BEGIN PERFORM nextval('mallory_own.trap_ran'); RAISE WARNING 'TRAP RAN AS %', current_user; RETURN 0; END \$\$;
CREATE FUNCTION $1.locality_uuid_node_id() RETURNS int4 LANGUAGE plpgsql AS
  \$\$ BEGIN PERFORM nextval('mallory_own.trap_ran'); RAISE WARNING 'TRAP RAN AS %', current_user; RETURN 0; END \$\$;
CREATE FUNCTION $1.locality_uuid_runs() RETURNS regclass[] LANGUAGE plpgsql AS
  \$\$ BEGIN PERFORM nextval('mallory_own.trap_ran'); RAISE WARNING 'TRAP RAN AS %', current_user; RETURN '{}'; END \$\$;
CREATE FUNCTION $1.trap_eq(a oid, b oid) RETURNS bool LANGUAGE plpgsql AS
  \$\$ BEGIN PERFORM nextval('mallory_own.trap_ran'); RAISE WARNING 'TRAP RAN AS %', current_user; RETURN a = b; END \$\$;
CREATE OPERATOR $1.= (LEFTARG = oid, RIGHTARG = oid, FUNCTION = $1.trap_eq);
CREATE SEQUENCE $1.locality_uuid_variable_seq MINVALUE 0 MAXVALUE 1 CYCLE;
CREATE SEQUENCE $1.locality_uuid_run_00;
SQL
  }
  objects_in() { q -c "SELECT (SELECT count(*) FROM pg_proc WHERE pronamespace = '$1'::regnamespace) || ' routines, '
                             || (SELECT count(*) FROM pg_class WHERE relnamespace = '$1'::regnamespace) || ' relations'"; }

  # ---- install: every form refuses a schema other roles can plant in ----
  q -c "SET ROLE dba" -c "CREATE SCHEMA shared" -c "GRANT CREATE, USAGE ON SCHEMA shared TO PUBLIC"
  plant shared
  before=$(objects_in shared)
  # psql script, pg_tle's text (the extension script run as the creating
  # role, as pg_tle runs it), the extension from files (a superuser).
  # (CREATE EXTENSION, which pg_tle runs, puts in the schema's name.)
  tle_text() { grep -v '^\\echo ' "$ROOT/locality_uuid_sql/locality_uuid_sql--$VERSION.sql" | sed "s/@extschema@/$1/g"; }
  install_as() {  # install_as FORM SCHEMA [ROLE]: the install's output, status in $rc
    local form=$1 schema=$2 role=${3:-dba}
    rc=0
    case $form in
      psql) out=$(psql -X -v VERBOSITY=verbose -U "$role" -d shop -v locality_schema="$schema" -f "$SCRIPT" 2>&1) || rc=$? ;;
      pg_tle) out=$(tle_text "$schema" | psql -X -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -U "$role" -d shop -c "SET search_path = $schema" -f - 2>&1) || rc=$? ;;
      extension) out=$(psql -X -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -d shop -c "CREATE EXTENSION locality_uuid_sql SCHEMA $schema" 2>&1) || rc=$? ;;
    esac
  }
  # (A superuser installing trusts no schema a non-superuser owns: that
  # check comes first for the extension.)
  for case in "psql|other roles may create objects in schema shared|CREATE on schema shared is granted to PUBLIC: " \
              "pg_tle|other roles may create objects in schema shared|CREATE on schema shared is granted to PUBLIC: " \
              "extension|schema shared is owned by role dba|A schema's owner can drop and replace the objects in it"; do
    IFS='|' read -r form message detail <<<"$case"
    install_as $form shared
    [ $rc -ne 0 ] || fail "$form installed into shared: $out"
    grep -q "^\(psql:[^:]*:[0-9]*: \)\?ERROR:  42501: locality_uuid: install refused: $message\$" <<<"$out" &&
      grep -qF "DETAIL:  $detail" <<<"$out" && ! grep -q 'TRAP RAN' <<<"$out" ||
      fail "the $form install into shared: $out"
    echo "ok: $form refuses schema shared (exit $rc): $(grep -E '(ERROR|DETAIL):' <<<"$out" | tr '\n' ' ')"
  done
  # The psql script's error names the check's line, before any statement.
  install_as psql shared
  line=$(sed -n 's/^psql:[^:]*:\([0-9]*\): ERROR:  42501: locality_uuid: install refused.*/\1/p' <<<"$out")
  first=$(grep -n -m1 'gexec' "$SCRIPT" | cut -d: -f1)
  sed -n "$((line - 40)),${line}p" "$SCRIPT" | grep -c 'install refused' >/dev/null && [ "$line" -lt "$first" ] ||
    fail "the refusal names line $line (the first statement is at line $first)"
  echo "ok: the refusal names line $line of the script, the check's (its first statement runs at line $first)"
  expect "the trap never ran" "$trap_ran" "0"
  [ "$(objects_in shared)" = "$before" ] || fail "a refused install changed schema shared: $(objects_in shared)"
  expect "no extension after the refusals" "SELECT count(*) FROM pg_extension WHERE extname = 'locality_uuid_sql'" "0"

  # Other refusals, each naming the objects and roles.
  q -c "SET ROLE mallory" -c "CREATE SCHEMA mallorys" -c "GRANT CREATE, USAGE ON SCHEMA mallorys TO dba"
  q -c "SET ROLE dba" -c "CREATE SCHEMA leftover" -c "GRANT CREATE, USAGE ON SCHEMA leftover TO mallory"
  plant leftover
  q -c "SET ROLE dba" -c "REVOKE CREATE ON SCHEMA leftover FROM mallory" -c "CREATE SCHEMA theirs"
  q -c "CREATE FUNCTION theirs.locality_uuid_runs() RETURNS regclass[] LANGUAGE sql AS 'SELECT ''{}''::regclass[]'" \
    -c "CREATE SCHEMA planted_su" -c "CREATE FUNCTION planted_su.locality_uuid_runs() RETURNS regclass[] LANGUAGE sql AS 'SELECT ''{}''::regclass[]'"
  # The private schema (NAME_private) the edition keeps its counters in:
  # one mallory made first, one other roles may use, a name too long for it.
  long=$(printf 'l%.0s' $(seq 56))
  q -c "SET ROLE dba" -c "CREATE SCHEMA hers" -c "CREATE SCHEMA used" -c "CREATE SCHEMA used_private" \
    -c "GRANT USAGE ON SCHEMA used_private TO mallory" -c "CREATE SCHEMA $long"
  q -c "SET ROLE mallory" -c "CREATE SCHEMA hers_private"
  q -c "SET ROLE dba" -c "CREATE SCHEMA crowded" -c "CREATE SCHEMA crowded_private" \
    -c "CREATE FUNCTION crowded_private.f() RETURNS int LANGUAGE sql AS 'SELECT 1'"
  q -c "SET ROLE dba" -c "CREATE SCHEMA su"
  q -c "CREATE SCHEMA su_private"  # (a superuser's, made without AUTHORIZATION)
  for case in "psql|mallorys|42501|schema mallorys is owned by role mallory|A schema's owner can drop and replace the objects in it; the installing role is dba." \
              "extension|mallorys|42501|schema mallorys is owned by role mallory|A schema's owner can drop and replace the objects in it; the installing role is postgres." \
              "psql|leftover|42501|schema leftover holds objects of other roles|Found: function leftover.locality_uuid_node_id() of mallory, function leftover.locality_uuid_runs() of mallory, function leftover.locality_uuid_variable_start() of mallory, function leftover.trap_eq(a oid, b oid) of mallory, operator leftover.= of mallory, relation leftover.locality_uuid_run_00 of mallory, relation leftover.locality_uuid_variable_seq of mallory. The edition would call or meet them." \
              "pg_tle|leftover|42501|schema leftover holds objects of other roles|Found: function leftover.locality_uuid_node_id() of mallory" \
              "psql|theirs|42501|schema theirs holds objects of the edition's names that role dba does not own|Found: function theirs.locality_uuid_runs() of postgres." \
              "extension|planted_su|42710|schema planted_su already holds objects of the edition's names|Found: function planted_su.locality_uuid_runs() of postgres." \
              "psql|hers|42501|schema hers_private is owned by role mallory|A schema's owner can drop and replace the objects in it; the installing role is dba." \
              "psql|used|42501|other roles may use schema used_private|USAGE on schema used_private is granted to mallory: a role that can name the counters can lock them." \
              "extension|used|42710|schema used_private exists|The edition keeps its counters in schema used_private, which it creates." \
              "psql|su|42501|schema su_private is owned by role postgres|A schema's owner can drop and replace the objects in it; the installing role is dba." \
              "psql|crowded|42501|schema crowded_private holds more than the edition's counters|Found: function crowded_private.f(). The edition keeps its counters and lock there, and nothing else." \
              "psql|$long|22023|the schema name must be lower-case letters, digits and _, not a keyword, and at most 55 bytes|The schema is $long; the edition's private schema is ${long}_private."; do
    IFS='|' read -r form schema code message detail <<<"$case"
    install_as "$form" "$schema"
    [ $rc -ne 0 ] || fail "$form installed into $schema"
    grep -q "ERROR:  $code: locality_uuid: install refused: $message\$" <<<"$out" && grep -qF "DETAIL:  $detail" <<<"$out" &&
      ! grep -q 'TRAP RAN' <<<"$out" ||
      fail "the $form install into $schema: $out"
    echo "ok: $form refuses schema $schema: $code $message / $(grep -o 'DETAIL:  .*' <<<"$out" | cut -c10-130)"
  done
  expect "the trap never ran, in any refusal" "$trap_ran" "0"
  expect "the refusals left the private schemas as they were" \
    "SELECT string_agg(n.nspname || ' ' || (SELECT count(*) FROM pg_class WHERE relnamespace = n.oid), ', ' ORDER BY n.nspname)
     FROM pg_namespace n WHERE n.nspname ~ '_private\$'" "crowded_private 0, hers_private 0, su_private 0, used_private 0"
  # Predefined roles that write or lock every relation: a member is
  # refused, named by the role the grant went to (etl, mallory's group).
  if [ "$PG_MAJOR" -ge 14 ]; then
    q -c "CREATE ROLE etl" -c "GRANT pg_write_all_data TO etl" -c "GRANT etl TO mallory" \
      -c "SET ROLE dba" -c "CREATE SCHEMA wide"
    detail="role etl is a member of pg_write_all_data, which may set every sequence, the counters too."
    hint="REVOKE pg_write_all_data FROM etl; Then install again"
    if [ "$PG_MAJOR" -ge 17 ]; then
      q -c "GRANT pg_maintain TO mallory"
      detail="role mallory is a member of pg_maintain, which may lock every relation in any mode, the edition's lock too; $detail"
      hint="REVOKE pg_maintain FROM mallory; $hint"
    fi
    for form in psql pg_tle extension; do
      install_as $form wide
      [ $rc -ne 0 ] || fail "$form installed into wide with etl a member of pg_write_all_data"
      grep -q "ERROR:  42501: locality_uuid: install refused: other roles may write or lock every relation of the database\$" <<<"$out" &&
        grep -qxF "DETAIL:  $detail" <<<"$out" && grep -qF "HINT:  $hint" <<<"$out" || fail "the $form install with wide writers: $out"
      echo "ok: $form refuses while other roles write every relation: $(grep -o 'DETAIL:  .*' <<<"$out" | cut -c10-)"
    done
    expect "the refused installs left schema wide empty" "SELECT count(*) FROM pg_class WHERE relnamespace = 'wide'::regnamespace" "0"
    q -c "REVOKE pg_write_all_data FROM etl" -c "DROP SCHEMA wide"
    [ "$PG_MAJOR" -lt 17 ] || q -c "REVOKE pg_maintain FROM mallory"
    # pg_read_all_data gives USAGE on every schema, the private one too:
    # a WARNING names its members (backups use it), the install goes on.
    q -c "GRANT pg_read_all_data TO etl" -c "SET ROLE dba" -c "CREATE SCHEMA readable"
    install_as psql readable
    [ $rc = 0 ] && grep -q "WARNING:  01000: locality_uuid: roles that may name the edition's counters: etl\$" <<<"$out" &&
      grep -qF "HINT:  Grant pg_read_all_data only to logins you trust with that (backups), or REVOKE pg_read_all_data FROM etl." <<<"$out" ||
      fail "the install with a pg_read_all_data member: $out"
    echo "ok: psql installs, warning of pg_read_all_data's members: $(grep -o 'WARNING:  .*' <<<"$out")"
    q -c "REVOKE pg_read_all_data FROM etl"
  else
    echo "ok: (PostgreSQL $PG_MAJOR has no pg_write_all_data: nothing to refuse)"
  fi

  # Default privileges that hand everything to mallory and withhold
  # EXECUTE from PUBLIC: what the install makes is the owner's alone.
  q -c "SET ROLE dba" -c "CREATE SCHEMA ids" \
    -c "ALTER DEFAULT PRIVILEGES REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC" \
    -c "ALTER DEFAULT PRIVILEGES IN SCHEMA ids GRANT ALL ON SEQUENCES TO mallory" \
    -c "ALTER DEFAULT PRIVILEGES IN SCHEMA ids GRANT ALL ON TABLES TO mallory" \
    -c "ALTER DEFAULT PRIVILEGES GRANT ALL ON SEQUENCES TO mallory" -c "ALTER DEFAULT PRIVILEGES GRANT ALL ON TABLES TO mallory" \
    -c "ALTER DEFAULT PRIVILEGES GRANT ALL ON SCHEMAS TO mallory"
  install_as psql ids
  [ $rc = 0 ] && [ "$out" = "locality_uuid: the SQL edition $VERSION is installed in schema ids" ] ||
    fail "the psql install into ids: $out"
  echo "ok: psql installs into a schema of dba's own: $out"
  expect "dba's default privileges reached nothing in ids_private" \
    "SELECT count(*) FROM pg_class c, aclexplode(c.relacl) a WHERE c.relnamespace = 'ids_private'::regnamespace AND a.grantee <> c.relowner
     UNION ALL SELECT count(*) FROM pg_namespace n, aclexplode(n.nspacl) a WHERE n.nspname = 'ids_private' AND a.grantee <> n.nspowner" "0
0"
  # (Its schemas' defaults would make dba's next schema mallory's to create in.)
  q -c "SET ROLE dba" -c "ALTER DEFAULT PRIVILEGES REVOKE ALL ON SCHEMAS FROM mallory"
  q -c "CREATE SCHEMA ids_ext"
  install_as extension ids_ext
  [ $rc = 0 ] || fail "the extension into ids_ext: $out"
  q -c "SET ROLE dba" -c "CREATE SCHEMA ids_tle"
  # pg_tle's text as dba; pg_extension_config_dump is the one statement
  # that needs CREATE EXTENSION's context (pg_tle gives it).
  rc=0
  out=$(tle_text ids_tle | sed '/^DO \$config\$/,$d' | psql -X -q -v ON_ERROR_STOP=1 -U dba -d shop -c "SET search_path = ids_tle" -f - 2>&1) || rc=$?
  [ $rc = 0 ] || fail "pg_tle's text into ids_tle: $out"
  expect "each form installs into a clean schema: routines and relations" \
    "SELECT string_agg(n.nspname || ' ' || (SELECT count(*) FROM pg_proc WHERE pronamespace = n.oid) || '/'
                       || (SELECT count(*) FROM pg_class WHERE relnamespace = n.oid), ', ' ORDER BY n.nspname)
     FROM pg_namespace n WHERE n.nspname ~ '^ids(_ext|_tle)?(_private)?\$'" \
    "ids 62/0, ids_ext 62/0, ids_ext_private 0/73, ids_private 0/73, ids_tle 62/0, ids_tle_private 0/73"
  # A write privilege the owner grants since: the upgrade (a re-run of
  # the psql script) refuses, naming the grant and the REVOKE.
  q -c "SET ROLE dba" -c "GRANT UPDATE ON SEQUENCE ids_private.locality_uuid_hot_seq TO mallory" -c "GRANT TRUNCATE ON ids_private.locality_uuid_lock TO PUBLIC"
  install_as psql ids
  [ $rc -ne 0 ] && grep -q "ERROR:  42501: locality_uuid: install refused: other roles may write the edition's counters or lock its view\$" <<<"$out" &&
    grep -qxF "DETAIL:  UPDATE on ids_private.locality_uuid_hot_seq is granted to mallory; TRUNCATE on ids_private.locality_uuid_lock is granted to PUBLIC." <<<"$out" &&
    grep -qF "HINT:  REVOKE UPDATE ON ids_private.locality_uuid_hot_seq FROM mallory; REVOKE TRUNCATE ON ids_private.locality_uuid_lock FROM PUBLIC; Then run" <<<"$out" ||
    fail "the upgrade with write grants: $out"
  echo "ok: an upgrade refuses write grants to other roles: $(grep -o 'DETAIL:  .*' <<<"$out" | cut -c10-)"
  q -c "SET ROLE dba" -c "REVOKE UPDATE ON SEQUENCE ids_private.locality_uuid_hot_seq FROM mallory" -c "REVOKE TRUNCATE ON ids_private.locality_uuid_lock FROM PUBLIC"
  install_as psql ids
  [ $rc = 0 ] || fail "the upgrade once revoked: $out"
  expect "mallory holds no privilege on a sequence, the lock's view or their schema" \
    "SELECT count(*) FILTER (WHERE has_table_privilege('mallory', c.oid, 'SELECT,INSERT,UPDATE,DELETE,TRUNCATE,REFERENCES,TRIGGER')
                                OR (c.relkind = 'S' AND has_sequence_privilege('mallory', c.oid, 'USAGE,SELECT,UPDATE')))
            || ' of ' || count(*) || ', schema: ' || has_schema_privilege('mallory', 'ids_private', 'USAGE,CREATE')
     FROM pg_class c WHERE c.relnamespace = 'ids_private'::regnamespace" "0 of 73, schema: false"
  expect "the trap never ran" "$trap_ran" "0"

  # ---- privileges: the README's recipe, EXECUTE on everything ----
  # (This database's default privileges withhold EXECUTE from PUBLIC:
  # the read-only role gets every function but the makers', as
  # doc/sql-edition.md says for that case.)
  q -c "SET ROLE dba" -c "GRANT USAGE ON SCHEMA ids TO app, reader" -c "GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ids TO app, reader" \
    -c "REVOKE EXECUTE ON FUNCTION ids.locality_uuid_clock_id(boolean), ids.locality_uuid_given_id(timestamptz, boolean),
                                   ids.locality_uuid_hot_make(bigint, timestamptz, bigint), ids.locality_uuid_window_usage() FROM reader" \
    -c "SELECT ids.locality_uuid_set_node(17, 'db-17')"
  got=$(as app shop -c "SELECT ids.locality_uuid_node(ids.locality_uuid()) || ' ' || ids.locality_uuid_node(ids.locality_uuid(true))
                              || ' ' || ids.hot_guid_machine(ids.hot_guid(3)) || ' ' || ids.locality_uuid_node(ids.locality_uuid_at(now(), true))")
  [ "$got" = "17 17 f52bb9 17" ] || fail "app's ids: $got"
  echo "ok: app, with USAGE and EXECUTE on all functions, makes ids of every kind: $got"
  got=$(as app shop -c "SELECT ids_drawn > 0 AND ids_left > 0 FROM ids.locality_uuid_window_usage()")
  [ "$got" = t ] || fail "app's window usage: $got"
  for call in "SELECT ids.locality_uuid_set_node(1, 'x')|locality_uuid_set_node" \
              "SELECT * FROM ids.locality_uuid_release_future_windows()|locality_uuid_release_future_windows" \
              "SELECT * FROM ids.locality_uuid_counters()|locality_uuid_counters" \
              "SELECT ids.locality_uuid_continue_after(0, 0, 0, 0, 0)|locality_uuid_continue_after"; do
    out=$(psql -X -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -U app -d shop -c "${call%|*}" 2>&1) && fail "app could: ${call%|*}"
    grep -q "^ERROR:  42501: permission denied for ${call#*|}\$" <<<"$out" &&
      grep -q "^DETAIL:  Only the SQL edition's owner, role dba, and its members may call it; role app may not.\$" <<<"$out" ||
      fail "app calling ${call#*|}: $out"
    echo "ok: app with EXECUTE cannot call ${call#*|}: $(grep -E '^(ERROR|DETAIL)' <<<"$out" | tr '\n' ' ')"
  done
  expect "the node value is still dba's" "SELECT ids.locality_uuid_node_id()" "17"
  # reader (USAGE on the schema, EXECUTE, no sequence) cannot take a run
  # over for the caller it is not: the run stays where it was.
  # pin_window: now_w, the clock's window now, read once (each statement
  # below names the same run), and run_of, that window's run.
  pin_window() {
    now_w="($(q -c "SELECT floor(extract(epoch FROM clock_timestamp()) / 600)::int8")::int8)"
    run_of="(ids.locality_uuid_runs())[mod($now_w, 64)::int + 1]"
  }
  pin_window
  q -c "SET ROLE dba" -c "SELECT setval($run_of, (($now_w - 70) << 32) + 5)" >/dev/null
  slot_before=$(q -c "SELECT pg_sequence_last_value($run_of)")
  out=$(psql -X -q -v ON_ERROR_STOP=1 -U reader -d shop -c "SELECT ids.locality_uuid_run_place(now(), $now_w, 0)" 2>&1) &&
    fail "reader took a run over: $out"
  [ "$(q -c "SELECT pg_sequence_last_value($run_of)")" = "$slot_before" ] || fail "reader moved the run"
  echo "ok: reader cannot take a run over: $(grep -o 'ERROR: .*' <<<"$out")"
  # doc/sql-edition.md's read-only role: every reader, and neither an id
  # of any kind nor the window's counts (no EXECUTE on the makers).
  got=$(as reader shop -c "SELECT ids.locality_uuid_node('00000001-0000-b000-0011-0190a0000000'::uuid)" 2>&1) ||
    fail "reader's readers: $got"
  [ "$got" = 17 ] || fail "the read-only role's reader: $got"
  for call in "ids.locality_uuid()|locality_uuid_clock_id" "ids.locality_uuid_at(now(), true)|locality_uuid_given_id" \
              "ids.hot_guid(3)|locality_uuid_hot_make" "ids.locality_uuid_window_usage()|locality_uuid_window_usage"; do
    out=$(psql -X -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -U reader -d shop -c "SELECT ${call%|*}" 2>&1) &&
      fail "reader could: ${call%|*}: $out"
    grep -qx "ERROR:  42501: permission denied for function ${call#*|}" <<<"$out" || fail "the read-only role's ${call%|*}: $out"
  done
  echo "ok: the read-only role reads ids ($got) and makes none of any kind, nor reads the window's counts (42501 on each maker)"
  # (app draws from the run only through a maker; place 2^31 - 1 is one a
  # run never hands out.)
  out=$(psql -X -q -v ON_ERROR_STOP=1 -U app -d shop -c "SELECT ids.locality_uuid(true)" \
          -c "SELECT ids.locality_uuid_run_place(now(), $now_w, (($now_w + 1) << 32) + 2147483647)" 2>&1) &&
    fail "app took a run over with a value it did not draw: $out"
  grep -q "ERROR:  permission denied for the sequential run of window" <<<"$out" || fail "app's made-up draw: $out"
  echo "ok: app cannot take a run over with a value it did not draw: $(grep -o 'ERROR: .*' <<<"$out")"
  got=$(as ops shop -c "SELECT 'set' FROM ids.locality_uuid_set_node(17, 'db-17')" \
                    -c "SELECT count(*) || ' released' FROM ids.locality_uuid_release_future_windows()" | paste -sd' ')
  [ "$got" = "set 0 released" ] || fail "ops, a member of dba: $got"
  echo "ok: ops, a member of the owner role, sets the node value and releases"

  # ---- locks: nothing another role can hold delays an id ----
  # A session's first id where the counters are bound already takes no
  # lock: the owner holding the edition's lock delays none (before the
  # fast path, every new session waited its 10 s lock_timeout, 55P03).
  q -c "CREATE DATABASE shop2 TEMPLATE shop OWNER dba"
  as dba shop <<'SQL' >"$WORK/owner_hold.txt" 2>&1 &
BEGIN;
LOCK TABLE ids_private.locality_uuid_lock IN SHARE UPDATE EXCLUSIVE MODE;
SELECT pg_sleep(120);
SQL
  owner_hold=$!
  for _ in $(seq 100); do
    [ "$(q -c "SELECT count(*) FROM pg_locks WHERE relation = 'ids_private.locality_uuid_lock'::regclass AND granted")" = 1 ] && break
    sleep 0.1
  done
  # (Variable, given-time and Hot Guid ids: the current window's run may
  # need its takeover, which waits for the lock, as it must.)
  got=$(as app shop -c "SET statement_timeout = '20s'" -c "SELECT ids.locality_uuid_node(ids.locality_uuid()) || ' '
                                                                 || ids.locality_uuid_node(ids.locality_uuid_at(now(), true)) || ' '
                                                                 || ids.hot_guid_machine(ids.hot_guid(3))" 2>&1) ||
    fail "a new session's first id while the owner holds the lock: $got"
  [ "$got" = "17 17 f52bb9" ] || fail "a new session's first id while the owner holds the lock: $got"
  echo "ok: a new session's first ids while the owner holds the edition's lock: nodes $got, no wait"
  q -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE usename = 'dba' AND query LIKE 'SELECT pg_sleep%'" >/dev/null
  wait $owner_hold || true
  # ---- locks: no other role can name what it could lock ----
  # 1.4 kept the counters and the lock in ids, which the README's roles
  # may use: a role that can name a relation takes a lock on it from parse
  # time, before any privilege check (PREPARE ... FOR UPDATE: ROW SHARE; a
  # prepared UPDATE: ROW EXCLUSIVE, kept past a disconnect by PREPARE
  # TRANSACTION), and CREATE RULE and CREATE TRIGGER wait for their
  # strong locks before they check ownership: queued behind any hold, every
  # later request waits behind them. Since 1.5 they live in ids_private,
  # which only the owner may use. reader and app try each of those on each
  # of its 73 relations, in shop and in its copy shop2, each in a
  # transaction of its own: every one is refused at the name (42501 on the
  # schema), and neither role holds or awaits a lock there.
  attempts="$WORK/attempts.sql"
  q -c "SELECT format(E'BEGIN;\nPREPARE s%1\$s AS SELECT FROM ids_private.%2\$I FOR UPDATE;\nROLLBACK;\n'
                      'BEGIN;\nPREPARE w%1\$s AS UPDATE ids_private.%2\$I SET log_cnt = 0;\nROLLBACK;\n'
                      'CREATE RULE r%1\$s AS ON UPDATE TO ids_private.%2\$I DO INSTEAD NOTHING;\n'
                      'CREATE TRIGGER t%1\$s BEFORE UPDATE ON ids_private.%2\$I FOR EACH ROW EXECUTE FUNCTION ids.locality_uuid_here();',
                      c.oid, c.relname)
      FROM pg_class c WHERE c.relnamespace = 'ids_private'::regnamespace ORDER BY c.relname" >"$attempts"
  for role in reader app; do
    for db in shop shop2; do
      out=$(psql -X -q -v VERBOSITY=verbose -U $role -d $db -f "$attempts" 2>&1 || true)
      refused=$(grep -c "^psql:[^ ]* ERROR:  42501: permission denied for schema ids_private\$" <<<"$out" || true)
      others=$(grep "ERROR:" <<<"$out" | grep -vc "permission denied for schema ids_private\$" || true)
      [ "$refused" = 292 ] && [ "$others" = 0 ] || fail "$role's attempts in $db: $refused refused, $others other errors: $(head -5 <<<"$out")"
    done
  done
  echo "ok: reader and app, in shop and shop2: 292 attempts each (PREPARE ... FOR UPDATE, a prepared UPDATE, CREATE RULE, CREATE TRIGGER on each of 73 relations), all refused at the name"
  out=$(psql -X -q -v ON_ERROR_STOP=1 -U app -d shop -c "BEGIN" -c "PREPARE p AS SELECT FROM ids_private.locality_uuid_lock FOR UPDATE" \
          -c "PREPARE TRANSACTION 'app_holds'" 2>&1) && fail "app prepared a hold: $out"
  grep -q "permission denied for schema ids_private" <<<"$out" || fail "app's prepared hold: $out"
  expect "no prepared transaction holds anything of the edition" \
    "SELECT count(*) FROM pg_locks l WHERE l.pid IS NULL AND l.relation IN (SELECT oid FROM pg_class WHERE relnamespace = 'ids_private'::regnamespace)" "0"
  # The attack 1.4 fell to: app draws in a transaction it leaves open (its
  # maker holds ROW EXCLUSIVE on the counter, as any nextval does); reader
  # then asks for a trigger on that counter. In 1.4 the request queued
  # behind app's hold and every new session's id queued behind it
  # (statement_timeout here); now it is refused at once and ids go on.
  as app shop <<'SQL' >"$WORK/app_open.txt" 2>&1 &
BEGIN;
SELECT ids.locality_uuid();
SELECT pg_sleep(120);
SQL
  app_open=$!
  app_holds="SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
             WHERE a.usename = 'app' AND l.relation = 'ids_private.locality_uuid_variable_seq'::regclass AND l.granted"
  for _ in $(seq 100); do
    [ "$(q -c "$app_holds")" = 1 ] && break
    sleep 0.1
  done
  expect "app's open draw holds the variable counter" "$app_holds" "1"
  psql -X -q -v VERBOSITY=verbose -U reader -d shop -c "SET lock_timeout = 0" \
    -c "CREATE TRIGGER queued BEFORE UPDATE ON ids_private.locality_uuid_variable_seq FOR EACH ROW EXECUTE FUNCTION ids.locality_uuid_here()" \
    >"$WORK/reader_trigger.txt" 2>&1 &
  reader_trigger=$!
  # (Refused at once: its psql ends; were it queued, it would not.)
  for _ in $(seq 100); do kill -0 $reader_trigger 2>/dev/null || break; sleep 0.1; done
  kill -0 $reader_trigger 2>/dev/null && fail "reader's trigger request is still waiting after 10 s"
  wait $reader_trigger || true
  grep -q "ERROR:  42501: permission denied for schema ids_private" "$WORK/reader_trigger.txt" ||
    fail "reader's trigger request: $(cat "$WORK/reader_trigger.txt")"
  got=$(as app shop -c "SET statement_timeout = '5s'" -c "SELECT ids.locality_uuid_node(ids.locality_uuid())" 2>&1) ||
    fail "a new session's id while reader asked for a trigger behind app's draw: $got"
  [ "$got" = 17 ] || fail "a new session's id behind reader's request: $got"
  echo "ok: reader's CREATE TRIGGER on the counter app holds is refused at the name, and a new session's id goes on (node $got)"
  # The control: with USAGE on ids_private (what 1.4's layout gave every
  # role that could use ids), the same request queues and the next id
  # waits behind it.
  q -c "GRANT USAGE ON SCHEMA ids_private TO reader"
  psql -X -q -v VERBOSITY=verbose -U reader -d shop -c "SET lock_timeout = 0" \
    -c "CREATE TRIGGER queued BEFORE UPDATE ON ids_private.locality_uuid_variable_seq FOR EACH ROW EXECUTE FUNCTION ids.locality_uuid_here()" \
    >"$WORK/reader_trigger.txt" 2>&1 &
  reader_trigger=$!
  reader_waits="SELECT count(*) >= 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE a.usename = 'reader' AND NOT l.granted"
  for _ in $(seq 100); do
    [ "$(q -c "$reader_waits")" = t ] && break
    sleep 0.1
  done
  expect "the control: reader's request waits behind app's draw" "$reader_waits" "t"
  out=$(psql -X -q -At -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -U app -d shop -c "SET statement_timeout = '2s'" \
          -c "SELECT ids.locality_uuid_node(ids.locality_uuid())" 2>&1) && fail "the control: an id behind a queued trigger request: $out"
  grep -q "ERROR:  57014: canceling statement due to statement timeout" <<<"$out" || fail "the control: $out"
  echo "ok: the control: with USAGE on ids_private, reader's request queues behind app's draw and a new session's id waits (57014 at 2 s)"
  q -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE usename = 'reader'" >/dev/null
  wait $reader_trigger || true
  q -c "REVOKE USAGE ON SCHEMA ids_private FROM reader"
  q -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE usename = 'app' AND query LIKE 'SELECT pg_sleep%'" >/dev/null
  wait $app_open || true
  # The copy's first id moves its counters under the view's lock.
  got=$(psql -X -q -At -v ON_ERROR_STOP=1 -U app -d shop2 -c "SET statement_timeout = '20s'" \
          -c "SELECT ids.locality_uuid_node(ids.locality_uuid())" 2>&1) ||
    fail "the copy's first id: $got"
  grep -q "WARNING:  locality_uuid: this database is a copy: its counters moved past fresh random points" <<<"$got" &&
    [ "$(tail -n 1 <<<"$got")" = "17" ] && DB=shop2 expect "the copy's counters are bound to shop2" \
      "SELECT pg_sequence_last_value('ids_private.locality_uuid_home_database') = (SELECT oid FROM pg_database WHERE datname = 'shop2')" "t" ||
    fail "the copy's first id: $got"
  echo "ok: the copy's first id moved its counters and bound them to shop2"

  # ---- locks: nor a role with only CONNECT, nor reader, delays a takeover ----
  # mallory takes every advisory lock it can name (both key forms, and the
  # pair the 1.2 takeover used, for every relation of the edition), and
  # tries for relation locks (pg_relation_size needs no privilege, but
  # lets its lock go at once), in a transaction it leaves open.
  q -c "REVOKE CREATE ON DATABASE shop FROM mallory"
  as mallory shop <<'SQL' >"$WORK/holder.txt" 2>&1 &
BEGIN;
SELECT count(pg_advisory_lock(1280664916, c.oid::int)) + count(pg_advisory_lock(c.oid::int8))
       + count(pg_advisory_lock(c.oid::int, c.oid::int)) + count(pg_relation_size(c.oid)) AS held
FROM pg_class c WHERE c.relnamespace = 'ids_private'::regnamespace;
SELECT pg_sleep(120);
SQL
  holder=$!
  for _ in $(seq 1 100); do
    [ "$(q -c "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                WHERE a.usename = 'mallory' AND l.granted AND l.locktype = 'advisory'")" -ge 219 ] && break
    sleep 0.1
  done
  expect "locks mallory holds: advisory ones, none on a relation of the edition" \
    "SELECT count(*) FILTER (WHERE l.locktype = 'advisory') || ' advisory, '
            || count(*) FILTER (WHERE l.locktype = 'relation' AND l.relation IN (SELECT oid FROM pg_class WHERE relnamespace = 'ids_private'::regnamespace))
            || ' on relations of ids_private'
     FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE a.usename = 'mallory' AND l.granted" "219 advisory, 0 on relations of ids_private"
  # A takeover: the current window's slot set to an old window.
  pin_window
  q -c "SET ROLE dba" -c "SELECT setval($run_of, (($now_w - 70) << 32) + 12345)" >/dev/null
  run_start=$(q -c "SELECT pg_sequence_last_value('ids_private.locality_uuid_run_start')")
  took=$(psql -X -q -At -v ON_ERROR_STOP=1 -U app -d shop -c "SET statement_timeout = '20s'" \
           -c "SELECT (extract(epoch FROM clock_timestamp() - t0) * 1000)::int || ' ms '
                      || (ids.locality_uuid_counter(id, true)
                          = (ids.locality_uuid_window_base(floor(extract(epoch FROM ids.locality_uuid_timestamp(id)) / 600)::int8)
                             + 1 + $run_start) % 4294967296)
               FROM (SELECT clock_timestamp() AS t0) t, LATERAL (SELECT ids.locality_uuid(true) AS id) i" 2>&1) ||
    fail "the takeover under mallory's locks: $took"
  [[ $took =~ ^([0-9]+)\ ms\ true$ ]] && [ "${BASH_REMATCH[1]}" -lt 5000 ] || fail "the takeover under mallory's locks: $took"
  echo "ok: a run's takeover under mallory's locks: $took (the first id of the window's run)"
  took=$(psql -X -q -At -v ON_ERROR_STOP=1 -U dba -d shop -c "SET statement_timeout = '20s'" \
           -c "SELECT (extract(epoch FROM clock_timestamp() - t0) * 1000)::int || ' ms, ' || n || ' released'
               FROM (SELECT clock_timestamp() AS t0) t, LATERAL (SELECT count(*) AS n FROM ids.locality_uuid_release_future_windows()) r" 2>&1) ||
    fail "the release under mallory's locks: $took"
  [[ $took =~ ^([0-9]+)\ ms ]] && [ "${BASH_REMATCH[1]}" -lt 5000 ] || fail "the release under mallory's locks: $took"
  echo "ok: the release under mallory's locks: $took"
  q -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE usename IN ('mallory', 'reader')" >/dev/null
  wait $holder || true
  wait

  # ---- parallel: every PARALLEL SAFE function runs in a worker ----
  # A row of each argument type; each function's outcome (value, or
  # SQLSTATE and message) serially, then in a parallel worker alone.
  q -c "CREATE TABLE public.samples (u uuid, t timestamptz, i8 int8, i4 int4, tx text, b bool, m macaddr, by bytea)" \
    -c "INSERT INTO public.samples VALUES ('20be0ffc-314a-bd53-7a50-013a65ca76d2', '2024-05-06 07:08:09.123456+00', 20000, 7,
                                           'abc', true, '44:88:99:36:57:32', 'abc')" \
    -c "GRANT SELECT ON public.samples TO PUBLIC"
  force=$(q -c "SELECT CASE WHEN current_setting('server_version_num')::int >= 160000 THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END")
  calls=$(q -c "SELECT string_agg(format('%s.%I(%s)', 'ids', p.proname,
                                         (SELECT string_agg(CASE t WHEN 'uuid'::regtype THEN 'u' WHEN 'timestamptz'::regtype THEN 't'
                                                                   WHEN 'int8'::regtype THEN 'i8' WHEN 'int4'::regtype THEN 'i4'
                                                                   WHEN 'text'::regtype THEN 'tx' WHEN 'bool'::regtype THEN 'b'
                                                                   WHEN 'macaddr'::regtype THEN 'm' WHEN 'bytea'::regtype THEN 'by' END, ', ')
                                          FROM unnest(p.proargtypes::regtype[]) t)), E'\n' ORDER BY p.proname, p.oid)
                FROM pg_proc p WHERE p.pronamespace = 'ids'::regnamespace AND p.proparallel = 's' AND p.prokind = 'f'")
  n=0
  while IFS= read -r call; do
    # The value, or the error's message, DETAIL and HINT (a worker's
    # error has a CONTEXT of its own).
    only() { sed 's/^psql:[^:]*:[0-9]*: //' | grep -E '^(ERROR|DETAIL|HINT):|^[^A-Z]' | grep -v '^parallel worker$' || true; }
    serial=$(q -c "SET ROLE dba" -c "SELECT (${call})::text FROM public.samples" 2>&1 | only) || true
    plan=$(q -c "SET ROLE dba" -c "SET $force = on" -c "SET parallel_leader_participation = off" \
             -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT (${call})::text FROM public.samples" 2>&1 || true)
    parallel=$(q -c "SET ROLE dba" -c "SET $force = on" -c "SET parallel_leader_participation = off" \
                 -c "SELECT (${call})::text FROM public.samples" 2>&1 | only) || true
    if grep -q '^ERROR' <<<"$serial"; then
      # An error (a helper that raises on purpose): the same from a worker,
      # which the plan cannot show run.
      [ "$serial" = "$parallel" ] || fail "$call: serially '$serial', in a worker '$parallel'"
    else
      grep -q 'Workers Launched: 1' <<<"$plan" || { echo "$plan"; fail "$call did not run in a parallel worker"; }
      [ "$serial" = "$parallel" ] || fail "$call: serially '$serial', in a worker '$parallel'"
    fi
    n=$((n + 1))
  done <<<"$calls"
  echo "ok: $n functions labelled PARALLEL SAFE answer alike in a parallel worker ($force = on, leader not participating)"

}
export -f run
with_cluster -o shared_preload_libraries=locality_uuid -o locality_uuid.node_id=17 -o locality_uuid.machine_name=db-17 \
  -o max_prepared_transactions=2 -- bash -c run
echo "the SQL edition is safe in a shared database on PostgreSQL $PG_MAJOR"
