#!/usr/bin/env bash
# All benchmarks, one after the other (about 10 minutes on 2 cores):
#   bash bench/run.sh
# Each prints a Markdown table; none fails on a missed target.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ensure_packages "${BUILD_PACKAGES[@]}" python3
build_and_install_extension
for b in cost locality spread scaling; do
  echo; echo "## $b"; echo
  bash "$ROOT/bench/$b.sh" 2>&1 | grep -vE '^(Creating new PostgreSQL cluster|Dropping cluster)'
done
