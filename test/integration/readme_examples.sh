#!/usr/bin/env bash
# Every ```sql block of README.md runs, in order, in one session of a fresh
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
python3 - "$ROOT/README.md" "$work" <<'EOF'
import json, re, sys
readme, work = sys.argv[1], sys.argv[2]
# Blocks may be indented (inside a list item): the indent is taken off.
blocks = ["".join(line[len(indent):] for line in body.splitlines(keepends=True))
          for indent, body in re.findall(r"^( *)```sql\n(.*?)^\1```", open(readme).read(), flags=re.M | re.S)]
statements = []  # [sql text, [expected rows] or None]
for block in blocks:
    current, dollar = "", False
    for line in block.splitlines():
        code = line if dollar else line.split("--", 1)[0]
        comment = None if dollar or "--" not in line else line.split("--", 1)[1].strip()
        if not current.strip() and comment is not None and not code.strip() and statements \
                and comment.startswith("result:") and statements[-1][1] is not None:
            statements[-1][1].append(comment[len("result:"):].strip())
            continue
        current += line + "\n"
        dollar ^= line.count("$$") % 2 == 1
        if not dollar and code.rstrip().endswith(";"):
            rows = []
            if comment is not None and comment.startswith("result:"):
                rows.append(comment[len("result:"):].strip())
            statements.append([current, rows])
            current = ""
    assert not current.strip(), f"unterminated statement: {current}"
with open(f"{work}/examples.sql", "w") as f:
    for i, (sql, _) in enumerate(statements):
        f.write(f"\\echo '@@ {i}'\n{sql}")
json.dump([rows for _, rows in statements], open(f"{work}/expected.json", "w"))
print(f"{len(blocks)} sql blocks, {len(statements)} statements, "
      f"{sum(1 for _, r in statements if r)} with result comments")
EOF

run() {
  psql -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE app" -c "CREATE ROLE loader"
  PGTZ=UTC psql -X -q -A -t -F ' | ' -v ON_ERROR_STOP=1 -d app -f "$1" >"$2"
}
export -f run
# As the Quick start sets a server up: preloaded, with a node value.
with_cluster -o shared_preload_libraries=locality_uuid -o locality_uuid.node_id=17 -- \
  bash -c "run $work/examples.sql $work/output.txt"

python3 - "$work" <<'EOF'
import json, sys
work = sys.argv[1]
expected = json.load(open(f"{work}/expected.json"))
got, current = {}, None
for line in open(f"{work}/output.txt").read().splitlines():
    if line.startswith("@@ "):
        current = int(line[3:]); got[current] = []
    elif current is not None and line != "":
        got[current].append(line.strip())  # as the comments hold them (plans are indented)
bad = 0
for i, rows in enumerate(expected):
    if rows and got.get(i) != rows:
        print(f"statement {i}: README says {rows}, it printed {got.get(i)}")
        bad += 1
checked = sum(1 for r in expected if r)
print(f"{checked - bad} of {checked} result comments match what runs")
sys.exit(1 if bad else 0)
EOF
echo "every README sql example ran and printed what its result comments say"
