#!/usr/bin/env bash
# A copy started on another host before its host identity file can be read
# (issue #51, finding 1), with clients that retry: while the file cannot be
# read, every server-wide id is refused (55000) and the clients try again
# at once, in a loop; the file then appears, naming another host. The
# first backend to read it makes the start's move due; every id drawn from
# then on, by any client, must come from the moved counters: none from the
# counters the origin has too. ROUNDS rounds (a restart with the file
# unreadable, then another host), CLIENTS clients retrying in each, each
# drawing DRAWS ids once it has its first. Run here and under arm64's qemu
# (scripts/test.sh): there the glue is aarch64 code, as GCC orders its
# loads and stores for that architecture (qemu on x86-64 keeps x86's
# memory order, so a missing barrier the hardware would expose cannot
# show there; a flag read in the wrong order can, anywhere).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
. "$ROOT/test/integration/lib/servers.sh"
. "$ROOT/test/integration/lib/positions.sh"
WORK=$(mktemp -d /tmp/locality-identity-late.XXXXXX)
DATA=$WORK/data
FIXED="'2020-01-01 00:00:00+00'"
CLIENTS=4 DRAWS=50
ROUNDS=10
[ "${LOCALITY_EMULATED:-0}" = 1 ] && ROUNDS=4  # each restart under qemu takes seconds
failures=0
pgctl() { as_postgres timeout 120 "$BIN/pg_ctl" -D "$DATA" -l "$WORK/server.log" -w "$@" >/dev/null; }
trap 'keep_logs_if_failed $? "$WORK"; stop_servers_under "$WORK"; rm -rf "$WORK"' EXIT
q() { psql -X -q -At -v ON_ERROR_STOP=1 -h "$WORK" -p "$PORT" -U postgres -d postgres "$@"; }
check() { if eval "$2"; then echo "ok:   $1"; else echo "FAIL: $1"; failures=$((failures + 1)); fi; }
chown postgres "$WORK"

echo "host-0" >"$WORK/host.id"
PORT=$(init_server "$DATA" "$WORK" <<CONF
locality_uuid.node_id = 4244
locality_uuid.host_identity_file = '$WORK/host.id'
CONF
)
pgctl start
q -c "CREATE EXTENSION locality_uuid"
q -c "SELECT locality_uuid()" >/dev/null  # bound to host-0; the state file written
# retrying(DRAWS): one client's ids: tries again at once while ids are
# refused with 55000 (for at most 120 s), then draws DRAWS given-time
# variable ids. A row per id: the refusals before the first, its position.
q <<SQL
CREATE FUNCTION retrying(draws int) RETURNS TABLE (tries int, pos numeric) LANGUAGE plpgsql AS \$f\$
DECLARE
  id uuid;
  stop timestamptz := clock_timestamp() + interval '120 s';
BEGIN
  tries := 0;
  LOOP
    BEGIN
      id := locality_uuid_at($FIXED, false);
      EXIT;
    EXCEPTION WHEN object_not_in_prerequisite_state THEN
      tries := tries + 1;
      IF clock_timestamp() > stop THEN RAISE; END IF;
    END;
  END LOOP;
  pos := $(position_sql id);
  RETURN NEXT;
  FOR i IN 2 .. draws LOOP
    id := locality_uuid_at($FIXED, false);
    pos := $(position_sql id);
    RETURN NEXT;
  END LOOP;
END
\$f\$;
SQL

draws=0 before_move=0 retried=0 tries_total=0 waited=0
for round in $(seq $ROUNDS); do
  pgctl stop -m fast
  mark=$(state_value variable)
  chmod 000 "$WORK/host.id"
  pgctl start
  error=$(q -v VERBOSITY=verbose -c "SELECT locality_uuid()" 2>&1 | tr '\n' ' ' || true)
  [ "$round" = 1 ] && first_error=$error
  grep -qF "ERROR:  55000: could not read the host identity file \"$WORK/host.id\"" <<<"$error" && waited=$((waited + 1))
  jobs_=()
  for c in $(seq $CLIENTS); do
    PGAPPNAME=retrying q -F ' ' -c "SELECT tries, pos FROM retrying($DRAWS)" >"$WORK/client.$c" 2>&1 &
    jobs_+=($!)
  done
  all_retrying() {
    [ "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'retrying' AND state = 'active'")" = $CLIENTS ]
  }
  poll 120 all_retrying || true
  sleep 0.3
  echo "host-$round" >"$WORK/host.id"
  chmod 644 "$WORK/host.id"
  wait "${jobs_[@]}" || true
  for c in $(seq $CLIENTS); do
    first=yes
    while read -r tries pos; do
      [[ $tries =~ ^[0-9]+$ && $pos =~ ^[0-9]+$ ]] || continue
      draws=$((draws + 1))
      moved "$pos" "$mark" || before_move=$((before_move + 1))
      if [ $first = yes ]; then
        [ "$tries" -gt 0 ] && retried=$((retried + 1))
        tries_total=$((tries_total + tries))
        first=no
      fi
    done <"$WORK/client.$c"
  done
done
check "the identity file unreadable at the start: ids refused ($waited of $ROUNDS rounds): ${first_error:0:100}" \
  '[ "$waited" = $ROUNDS ]'
check "$ROUNDS rounds of $CLIENTS clients, each retrying when the file appeared ($retried of $((ROUNDS * CLIENTS)), $tries_total refusals in all)" \
  '[ "$retried" = $((ROUNDS * CLIENTS)) ]'
check "... $draws ids drawn once it named another host, $before_move of them before the move" \
  '[ "$draws" = $((ROUNDS * CLIENTS * DRAWS)) ] && [ "$before_move" = 0 ]'
moves=$(grep -c "this server started on another host (read once its host identity file could be)" "$WORK/server.log" || true)
check "... one move a round, logged as read late ($moves)" '[ "$moves" = $ROUNDS ]'

echo
[ $failures = 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "identity-late checks passed"
