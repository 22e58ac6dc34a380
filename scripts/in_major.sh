#!/usr/bin/env bash
# Runs a command of this repository against another PostgreSQL major, in a
# throw-away chroot of the Debian suite that ships it (scripts/chroot.sh),
# with this source tree copied in, e.g.
#   bash scripts/in_major.sh 18 bash bench/cost.sh
#   bash scripts/in_major.sh 13 bash scripts/test.sh --this-major
# The command starts in the tree's root; build and install first if it
# needs the extension (bench/run.sh and scripts/test.sh do).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
. "$ROOT/scripts/chroot.sh"
major=${1:?usage: in_major.sh MAJOR COMMAND...}
shift
[ -n "${SUITE_OF_MAJOR[$major]:-}" ] || { echo "no chroot for PostgreSQL $major (known: ${CHROOT_MAJORS[*]})" >&2; exit 2; }
ensure_packages mmdebstrap
prepare_chroot "$major"
run_in_chroot "$major" "$@"
