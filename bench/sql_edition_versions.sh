#!/usr/bin/env bash
# The SQL edition of another commit beside this tree's, per id, one
# backend, one database: what a change to the makers costs, free of the
# machine's drift between runs (bench/sql_edition.sh compares with what
# PostgreSQL ships; this compares two versions of the edition). Each is
# installed by its own psql script (make sql-edition in a git worktree of
# COMMIT) into schema before / after; every generator is timed in both
# (best of BENCH_REPEAT, 5, executor times of BENCH_N, 200,000,
# calls), one version after the other per generator. Usage:
#   bash bench/run.sh sql_edition_versions          (COMMIT: BENCH_BEFORE, default HEAD~1)
#   BENCH_BEFORE=14d76e4 bash bench/sql_edition_versions.sh
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
before=${BENCH_BEFORE:-HEAD~1}
tree=$(mktemp -d)
trap 'git -C "$ROOT" worktree remove --force "$tree" >/dev/null 2>&1 || rm -rf "$tree"' EXIT
git -C "$ROOT" worktree add -q --detach "$tree" "$before"
make -s -C "$tree" sql-edition >/dev/null
make -s -C "$ROOT" sql-edition >/dev/null
export BEFORE_SCRIPT="$tree/locality_uuid_sql.sql" AFTER_SCRIPT="$ROOT/locality_uuid_sql.sql" N=${BENCH_N:-200000}
export BEFORE_NAME="$(git -C "$ROOT" rev-parse --short "$before")" AFTER_NAME="$(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- src/sql || echo '+changes')"
run() {
  set -euo pipefail
  . "$ROOT/bench/common.sh"
  psql -X -q -v ON_ERROR_STOP=1 -c "CREATE SCHEMA before" -c "CREATE SCHEMA after"
  psql -X -q -v ON_ERROR_STOP=1 -v locality_schema=before -f "$BEFORE_SCRIPT" >/dev/null
  psql -X -q -v ON_ERROR_STOP=1 -v locality_schema=after -f "$AFTER_SCRIPT" >/dev/null
  machine_line
  echo "calls per query: $N; best of ${BENCH_REPEAT:-5}; before: $BEFORE_NAME, after: $AFTER_NAME"
  echo
  echo "| generator | before ns/call | after ns/call | after / before |"
  echo "|---|---|---|---|"
  for call in "locality_uuid()" "locality_uuid(true)" "locality_uuid_at(now(), false)" "locality_uuid_at(now(), true)" \
              "hot_guid(5)" "hot_guid(5, now())"; do
    b=$(best_ms "SELECT count(before.$call) FROM generate_series(1, $N)")
    a=$(best_ms "SELECT count(after.$call) FROM generate_series(1, $N)")
    python3 -c "print('| %s | %.1f | %.1f | %.3f |' % ('$call', $b * 1e6 / $N, $a * 1e6 / $N, $a / $b))"
  done
}
export -f run
with_cluster -- bash -c run
