#!/usr/bin/env bash
# The quick benchmarks, one after the other (about 15 minutes on 2 cores), or
# the ones named (growth, backfill, replay_cost and fill_plan, which take longer, and sql_edition,
# sql_edition_versions and leases, only so), against
# this machine's PostgreSQL:
#   bash bench/run.sh            bash bench/run.sh cost scaling    bash bench/run.sh backfill
# or another major's, in a throw-away chroot:
#   bash scripts/in_major.sh 18 bash bench/run.sh cost
# Each prints a Markdown table; none fails on a missed target.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ensure_packages "${BUILD_PACKAGES[@]}" python3
build_and_install_extension
[ $# -gt 0 ] || set -- cost locality spread scaling
for b in "$@"; do
  echo; echo "## $b"; echo
  bash "$ROOT/bench/$b.sh" 2>&1 | grep -vE '^(Creating new PostgreSQL cluster|Dropping cluster)'
done
