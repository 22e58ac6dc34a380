#!/usr/bin/env bash
# README command 1: build, install and run locality_uuid for real against a
# throw-away local PostgreSQL 15, showing ids of both modes and their fields.
#
# It installs into PostgreSQL's own directories (the only place a server
# loads extensions from), and never removes or replaces an install it did
# not make itself: if locality_uuid is installed already, by the Debian
# package or by a make install of another tree, it stops and says so. What
# it installs is recorded (.try-installed: a checksum of each file), so a
# later run may replace its own install, and nothing else.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ensure_packages "${BUILD_PACKAGES[@]}"

MARKER="$ROOT/.try-installed"
libdir=$("$PG_CONFIG" --pkglibdir)
sharedir=$("$PG_CONFIG" --sharedir)
installed=("$libdir/locality_uuid.so" "$sharedir/extension/locality_uuid.control" /usr/local/bin/locality-uuid)
for f in "${installed[@]}"; do
  [ -e "$f" ] || continue
  if owner=$(dpkg -S "$f" 2>/dev/null); then
    echo "scripts/try.sh: $f belongs to the Debian package ${owner%%:*}; not replacing it." >&2
    echo "  Try the installed package instead (README, Quick start), or remove it first: apt-get remove ${owner%%:*}" >&2
    exit 1
  fi
  if [ ! -f "$MARKER" ] || ! grep -qF "  $f" "$MARKER" || ! (cd / && sha256sum --quiet -c "$MARKER" >/dev/null 2>&1); then
    echo "scripts/try.sh: $f is installed already, and not by this tree's scripts/try.sh; not replacing it." >&2
    echo "  If it is yours to replace (an earlier make install), remove it first: make -C <that tree> uninstall" >&2
    exit 1
  fi
done
log "building and installing locality_uuid $(control_version) for PostgreSQL $PG_MAJOR"
make -C "$ROOT" -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG" >/dev/null
make -C "$ROOT" -s PG_CONFIG="$PG_CONFIG" install >/dev/null
sha256sum "${installed[@]}" >"$MARKER"

log "starting a throw-away PostgreSQL with locality_uuid preloaded"
with_cluster -o shared_preload_libraries=locality_uuid -o locality_uuid.node_id=223574608 \
  -o locality_uuid.machine_name=try-223574608 -- \
  psql -X -v ON_ERROR_STOP=1 -f "$ROOT/examples/tour.sql"
log "the command-line tool"
locality-uuid -n 3
locality-uuid decode 20be0ffc-314a-bd53-7a50-013a65ca76d2
