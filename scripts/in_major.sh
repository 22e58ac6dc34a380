#!/usr/bin/env bash
# Runs a command of this repository against another PostgreSQL major or on
# another architecture, in a throw-away chroot (scripts/chroot.sh) with this
# source tree copied in, e.g.
#   bash scripts/in_major.sh 18 bash bench/cost.sh
#   bash scripts/in_major.sh 13 bash scripts/test.sh --this-major
#   bash scripts/in_major.sh s390x bash scripts/test.sh --this-major
# The command starts in the tree's root; build and install first if it
# needs the extension (bench/run.sh and scripts/test.sh do).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
. "$ROOT/scripts/chroot.sh"
target=${1:?usage: in_major.sh MAJOR|ARCH COMMAND...}
shift
known_target "$target" ||
  { echo "no chroot for $target (majors: ${CHROOT_MAJORS[*]}; architectures: ${CHROOT_ARCHES[*]})" >&2; exit 2; }
ensure_packages mmdebstrap
trap unregister_i386_qemu EXIT  # LOCALITY_I386=qemu on a kernel that runs i386 itself
prepare_chroot "$target"
run_in_chroot "$target" "$@"
