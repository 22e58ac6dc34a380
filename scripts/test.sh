#!/usr/bin/env bash
# README command 2: every test, on every PostgreSQL major Debian ships.
#
# On this machine's own major (15 on bookworm): building and installing,
# unit tests (CTest), pg_regress + isolation per backend and preloaded, and
# every integration script under test/integration. Then each other major
# (13, 17, 18, 19) in a throw-away chroot of its Debian suite
# (scripts/chroot.sh): building and installing, unit tests, pg_regress +
# isolation per backend and preloaded, the upgrade path, the SQL edition
# (sql_edition.sh against the C edition; sql_edition_ha.sh through
# failover, a crash, PITR and pg_upgrade), the HA cases
# (test/integration/ha.sh: failover, PITR, pg_rewind, pg_upgrade) and the
# Debian packages (test/integration/debian_package.sh: build, lintian,
# debian/tests as autopkgtest runs them).
#
# Then this machine's major on other architectures, each in a chroot of
# this machine's suite: i386 (32-bit, natively), arm64 and s390x (weak
# memory order, big-endian; under user-mode qemu). They run the same
# per-major suites and the CLI's; under qemu the HA and packaging suites
# are skipped, with a line saying so.
#
# Prints one line per suite per major and architecture, each chroot's
# time, and "N passed, N failed". A build that fails ends the run at
# once, red.
#
#   bash scripts/test.sh               everything
#   bash scripts/test.sh --this-major  only the per-major suites, against
#                                      this machine's major (what each
#                                      chroot runs)
#   LOCALITY_MAJORS="13 17" bash scripts/test.sh   only these chroot majors
#   LOCALITY_ARCHES="s390x" bash scripts/test.sh   only these architectures
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

this_major_only=false
[ "${1:-}" = --this-major ] && this_major_only=true

passed=0
failed=0
failures=()
LOGS=$(mktemp -d /tmp/locality-uuid-tests.XXXXXX)

record() {  # record ok|FAILED NAME SECONDS [LOG]
  if [ "$1" = ok ]; then
    passed=$((passed + 1)); printf 'ok     %-34s %4ds\n' "$2" "$3"
  else
    failed=$((failed + 1)); failures+=("$2")
    printf 'FAILED %-34s %4ds\n' "$2" "$3"
  fi
}

# suite NAME COMMAND...: runs one suite of this major, keeping its output
# in $LOGS; on failure shows the end of it. Returns the suite's status.
suite() {
  local name="$SUITE_PREFIX/$1"; shift
  local start=$SECONDS log="$LOGS/${name//\//-}.log"
  if "$@" >"$log" 2>&1; then
    record ok "$name" $((SECONDS - start))
  else
    record FAILED "$name" $((SECONDS - start))
    tail -n 60 "$log" | sed 's/^/    | /'
    return 1
  fi
}

# Suites are named by major, and by architecture in an architecture's
# chroot: pg15/regress-preloaded, s390x-pg15/regress-preloaded.
SUITE_PREFIX="${LOCALITY_ARCH:+$LOCALITY_ARCH-}pg$PG_MAJOR"

# skip NAME WHY: a suite this run leaves out, said as such.
skip() { printf 'skip   %-34s (%s)\n' "$SUITE_PREFIX/$1" "$2"; }

summary() {
  echo
  [ $failed -eq 0 ] || echo "failed suites: ${failures[*]}"
  echo "$passed passed, $failed failed"
}

# The end of a run: logs are kept only when something failed.
finish() {
  summary
  if [ $failed -eq 0 ]; then rm -rf "$LOGS"; else echo "logs: $LOGS"; fi
  [ $failed -eq 0 ]
}

unit_tests() {
  local build="$ROOT/build"
  cmake -S "$ROOT" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOCALITY_WERROR=ON >/dev/null &&
    cmake --build "$build" -j"$(nproc)" >/dev/null &&
    (cd "$build" && ctest --output-on-failure -j"$(nproc)")
}

# pg_regress + isolation; on failure show the diffs.
regression() {
  local rc=0
  with_cluster "$@" -- make -C "$ROOT" PG_CONFIG="$PG_CONFIG" installcheck || rc=$?
  [ $rc -eq 0 ] || cat "$ROOT"/regression.diffs "$ROOT"/output_iso/regression.diffs 2>/dev/null | head -200
  return $rc
}

# What every major runs. A build that fails stops everything (exit 3 tells
# an outer run that this was fatal).
major_suites() {
  suite build-install build_and_install_extension || { finish; exit 3; }
  suite unit-tests unit_tests
  suite regress-per-backend regression -o locality_uuid.shared_counter=off
  suite regress-preloaded regression -o shared_preload_libraries=locality_uuid
  suite upgrade bash "$ROOT/test/integration/upgrade.sh"
  if [ "${LOCALITY_EMULATED:-0}" = 1 ]; then
    skip sql-edition "under qemu: SQL and PL/pgSQL only, no code of ours that an architecture changes; i386 runs it natively"
  else
    suite sql-edition timeout --kill-after=30 900 bash "$ROOT/test/integration/sql_edition.sh"
    suite sql-edition-safety timeout --kill-after=30 900 bash "$ROOT/test/integration/sql_edition_safety.sh"
    suite sql-edition-moves timeout --kill-after=30 900 bash "$ROOT/test/integration/sql_edition_moves.sh"
  fi
  if [ -n "${LOCALITY_ARCH:-}" ]; then
    # The CLI's known-answer decodes and its agreement with SQL: this
    # machine's run has cli.sh among its integration scripts, an
    # architecture's chroot runs it here.
    suite cli timeout --kill-after=30 900 bash "$ROOT/test/integration/cli.sh"
  fi
  if [ "${LOCALITY_EMULATED:-0}" = 1 ]; then
    skip ha "under qemu: eight servers and 16M-id sides take too long emulated; i386 runs it natively"
    skip sql-edition-ha "under qemu: SQL and PL/pgSQL only, and five servers; i386 runs it natively"
    skip debian-package "under qemu: lintian and a package build take too long emulated; i386 runs it natively"
    return
  fi
  suite ha timeout --kill-after=30 1200 bash "$ROOT/test/integration/ha.sh"
  suite sql-edition-ha timeout --kill-after=30 900 bash "$ROOT/test/integration/sql_edition_ha.sh"
  suite debian-package timeout --kill-after=30 900 bash "$ROOT/test/integration/debian_package.sh"
}

if $this_major_only; then
  ensure_packages "${BUILD_PACKAGES[@]}" "${MAJOR_TEST_PACKAGES[@]}" || exit 1
  major_suites
  finish
  exit
fi

. "$ROOT/scripts/chroot.sh"
ensure_packages "${BUILD_PACKAGES[@]}" || exit 1
# shellcheck disable=SC2046
ensure_packages $(host_test_packages) mmdebstrap || exit 1

# The other majors' and architectures' chroots are made (or found in the
# cache) in the background while this machine's suites run.
read -r -a majors <<<"${LOCALITY_MAJORS-${CHROOT_MAJORS[*]}}"
read -r -a arches <<<"${LOCALITY_ARCHES-${CHROOT_ARCHES[*]}}"
targets=("${majors[@]}" "${arches[@]}")
for t in "${targets[@]}"; do
  known_target "$t" || { echo "no chroot for $t (majors: ${CHROOT_MAJORS[*]}; architectures: ${CHROOT_ARCHES[*]})" >&2; exit 2; }
done
# What the architectures' chroots need, installed now rather than by the
# preparer while suites run.
[ ${#arches[@]} -eq 0 ] || ensure_packages arch-test qemu-user-static || exit 1
(
  for t in "${targets[@]}"; do
    start=$SECONDS
    if prepare_chroot "$t" >"$LOGS/prepare-$t.log" 2>&1; then
      echo "$((SECONDS - start))" >"$LOGS/prepare-$t.ok"
    else
      touch "$LOGS/prepare-$t.failed"
    fi
  done
) &
preparer=$!
trap 'kill $preparer 2>/dev/null' EXIT

log "PostgreSQL $PG_MAJOR on this machine"
major_suites
for t in "$ROOT"/test/integration/*.sh; do
  case "$(basename "$t")" in upgrade.sh | sql_edition*.sh | ha.sh | debian_package.sh) continue ;; esac  # per major, above
  suite "$(basename "$t" .sh)" timeout --kill-after=30 1800 bash "$t"
done

for t in "${targets[@]}"; do
  log "$(describe_target "$t") in a chroot"
  start=$SECONDS
  while [ ! -e "$LOGS/prepare-$t.ok" ] && [ ! -e "$LOGS/prepare-$t.failed" ]; do sleep 2; done
  if [ -e "$LOGS/prepare-$t.failed" ]; then
    record FAILED "$t/chroot" $((SECONDS - start))
    tail -n 30 "$LOGS/prepare-$t.log" | sed 's/^/    | /'
    finish; exit 1
  fi
  record ok "$t/chroot" $((SECONDS - start))
  failed_before=$failed
  start=$SECONDS
  # The chroot prints its own suite lines; its closing tally is folded
  # into this run's.
  while IFS= read -r line; do
    if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
      passed=$((passed + BASH_REMATCH[1])); failed=$((failed + BASH_REMATCH[2]))
    elif [[ $line =~ ^chroot-exit=([0-9]+)$ ]]; then
      rc=${BASH_REMATCH[1]}
    elif [[ $line =~ ^FAILED\ +([^ ]+) ]]; then
      failures+=("${BASH_REMATCH[1]}"); echo "$line"
    elif [[ $line =~ ^(failed\ suites:|logs:) ]]; then
      :
    else
      echo "$line"
    fi
  done < <(run_in_chroot "$t"; echo "chroot-exit=$?")
  echo "time   $(describe_target "$t"): $((SECONDS - start))s (chroot made in $(cat "$LOGS/prepare-$t.ok")s; 0: cached)"
  # A chroot that failed without reporting a failed suite still fails.
  if [ "$rc" -ne 0 ] && [ $failed -eq "$failed_before" ]; then record FAILED "$t/run" 0; fi
  [ "$rc" -eq 3 ] && { finish; exit 1; }
done

finish
