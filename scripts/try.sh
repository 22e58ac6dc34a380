#!/usr/bin/env bash
# README command 1: build, install and run locality_uuid for real against a
# throw-away local PostgreSQL 15, showing ids of both modes and their fields.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ensure_packages "${BUILD_PACKAGES[@]}"
build_and_install_extension
log "starting a throw-away PostgreSQL with locality_uuid preloaded"
with_cluster -o shared_preload_libraries=locality_uuid -o locality_uuid.node_id=223574608 -- \
  psql -X -v ON_ERROR_STOP=1 -f "$ROOT/examples/tour.sql"
log "the command-line tool"
locality-uuid -n 3
locality-uuid decode 20be0ffc-314a-bd53-7a50-013a65ca76d2
