#!/usr/bin/env bash
# The SQL edition (README, Managed services) beside the C edition and what
# PostgreSQL ships, per call, one backend: bench/cost.sh's harness (best of
# 5 interleaved rounds of SELECT count(f(...)) FROM generate_series(1, N))
# with bench/sql/sql_edition_queries.txt, the edition installed in schema
# sqled. Fewer calls than cost.sh (BENCH_N, BENCH_ROWS: 200,000): the SQL
# edition takes microseconds per call. On another major:
#   bash scripts/in_major.sh 18 bash bench/run.sh sql_edition
set -euo pipefail
export BENCH_N=${BENCH_N:-200000} BENCH_ROWS=${BENCH_ROWS:-200000}
export BENCH_QUERIES="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/sql/sql_edition_queries.txt" BENCH_SQL_EDITION=1
exec bash "$(dirname "${BASH_SOURCE[0]}")/cost.sh"
