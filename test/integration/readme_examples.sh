#!/usr/bin/env bash
# Every ```sql block of README.md (and of the doc/ pages it names where their text was) runs, in order, in one session of a fresh
# database of a server that preloads the library with node_id 17 (a
# database "app" and a role "loader" exist
# for the settings examples; TimeZone is UTC), and every statement followed
# by "-- result: ..." comments prints exactly those rows (one comment per
# row, columns joined by " | ", as psql -A -t -F ' | ' prints them).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# README -> a psql script with a marker before each statement, and the
# expected rows of each statement that has them.
python3 "$ROOT/test/integration/lib/readme_blocks.py" extract sql "$work" "$ROOT/README.md"

run() {
  psql -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE app" -c "CREATE ROLE loader"
  PGTZ=UTC psql -X -q -A -t -F ' | ' -v ON_ERROR_STOP=1 -d app -f "$1" >"$2"
}
export -f run
# As the Quick start sets a server up: preloaded, with a node value and a
# machine name.
with_cluster -o shared_preload_libraries=locality_uuid -o locality_uuid.node_id=17 -o locality_uuid.machine_name=db17 -- \
  bash -c "run $work/examples.sql $work/output.txt"

python3 "$ROOT/test/integration/lib/readme_blocks.py" compare "$work"
echo "every README sql example ran and printed what its result comments say"

# The first screen (40 lines) says who needs it and who does not, that
# ids do not sort by time (and what to use), and the two commands (review
# first-day-1.3, finding 10).
first=$(head -n 40 "$ROOT/README.md")
for text in "Who needs it" "Who does not" "Neither mode sorts by time" "uuidv7()" "bash scripts/try.sh" "bash scripts/test.sh"; do
  grep -qF "$text" <<<"$first" || { echo "FAIL: the README's first 40 lines do not say: $text"; exit 1; }
done
echo "the README's first 40 lines say who needs it and who does not, that ids do not sort by time, and the two commands"
