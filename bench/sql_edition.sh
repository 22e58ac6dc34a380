#!/usr/bin/env bash
# The SQL edition (README, Managed services) beside the C edition and what
# PostgreSQL ships, per call, one backend: bench/cost.sh's harness (best of
# 5 interleaved rounds of SELECT count(f(...)) FROM generate_series(1, N))
# with bench/sql/sql_edition_queries.txt, the edition installed in schema
# sqled. Fewer calls than cost.sh (BENCH_N, BENCH_ROWS: 200,000): the SQL
# edition takes microseconds per call. After the table, from the same run:
# each SQL generator's ratio to gen_random_uuid() (the target: 3x) and each
# SQL reader's to the C edition's (the target: 5x). On another major:
#   bash scripts/in_major.sh 18 bash bench/run.sh sql_edition
set -euo pipefail
export BENCH_N=${BENCH_N:-200000} BENCH_ROWS=${BENCH_ROWS:-200000}
export BENCH_QUERIES="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/sql/sql_edition_queries.txt" BENCH_SQL_EDITION=1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
bash "$(dirname "${BASH_SOURCE[0]}")/cost.sh" | tee "$out"
python3 - "$out" <<'PY'
import re, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r'\| (.+?) +\| +([0-9.]+) \|', line)
    if m:
        rows[m.group(1).strip()] = float(m.group(2))
base = rows['gen_random_uuid()']
print()
print('SQL edition per kind, from this run:')
worst = 0
for name, ns in rows.items():
    if name.startswith('SQL ') and name[4:] in [n[2:] for n in rows if n.startswith('C ')]:
        c = rows['C ' + name[4:]]
        generator = name.startswith(('SQL locality_uuid(', 'SQL locality_uuid_at(', 'SQL hot_guid(5'))
        if generator:
            ratio = ns / base
            worst = max(worst, ratio)
            print('  %-34s %7.0f ns  %5.2fx gen_random_uuid() (target 3x)%s' % (name, ns, ratio, '' if ratio <= 3 else '  OVER'))
        elif name == 'SQL form_uuid_v1':
            print('  %-34s %7.0f ns  %5.2fx the C edition (PL/pgSQL)' % (name, ns, ns / c))
        else:
            print('  %-34s %7.0f ns  %5.2fx the C edition (target 5x)%s' % (name, ns, ns / c, '' if ns / c <= 5 else '  OVER'))
print('every SQL generator within %.2fx gen_random_uuid()' % worst)
PY
