#!/usr/bin/env bash
# Every ```sql block of README.md runs, in order, without error, in a fresh
# database with the extension (a database "app" and a role "loader" exist
# for the settings examples).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
sql=$(mktemp)
awk '/^```sql$/ {inside = 1; next} /^```$/ {inside = 0} inside' "$ROOT/README.md" >"$sql"
blocks=$(grep -c '^```sql$' "$ROOT/README.md")
echo "$blocks sql blocks, $(wc -l <"$sql") lines"
run() {
  psql -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE app" -c "CREATE ROLE loader"
  psql -X -q -v ON_ERROR_STOP=1 -d app -f "$1" >/dev/null
}
export -f run
with_cluster -- bash -c "run $sql"
echo "every README sql example ran"
