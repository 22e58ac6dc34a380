#!/usr/bin/env bash
# README command 2: every test, on every PostgreSQL major Debian ships.
#
# On this machine's own major (15 on bookworm): building and installing,
# unit tests (CTest), pg_regress + isolation per backend and preloaded, and
# every integration script under test/integration. Then each other major
# (13, 17, 18, 19) in a throw-away chroot of its Debian suite
# (scripts/chroot.sh): building and installing, unit tests, pg_regress +
# isolation per backend and preloaded, the upgrade path, the HA cases
# (test/integration/ha.sh: failover, PITR, pg_rewind, pg_upgrade) and the
# Debian packages (test/integration/debian_package.sh: build, lintian,
# debian/tests as autopkgtest runs them).
#
# Prints one line per suite per major and "N passed, N failed". A build
# that fails ends the run at once, red.
#
#   bash scripts/test.sh               everything
#   bash scripts/test.sh --this-major  only the per-major suites, against
#                                      this machine's major (what each
#                                      chroot runs)
#   LOCALITY_MAJORS="13 17" bash scripts/test.sh   only these chroot majors
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
  local name="pg$PG_MAJOR/$1"; shift
  local start=$SECONDS log="$LOGS/${name//\//-}.log"
  if "$@" >"$log" 2>&1; then
    record ok "$name" $((SECONDS - start))
  else
    record FAILED "$name" $((SECONDS - start))
    tail -n 60 "$log" | sed 's/^/    | /'
    return 1
  fi
}

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
  suite regress-per-backend regression
  suite regress-preloaded regression -o shared_preload_libraries=locality_uuid
  suite upgrade bash "$ROOT/test/integration/upgrade.sh"
  suite ha timeout --kill-after=30 1200 bash "$ROOT/test/integration/ha.sh"
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

# The other majors' chroots are made (or found in the cache) in the
# background while this machine's suites run.
read -r -a majors <<<"${LOCALITY_MAJORS-${CHROOT_MAJORS[*]}}"
(
  for m in "${majors[@]}"; do
    if prepare_chroot "$m" >"$LOGS/prepare-pg$m.log" 2>&1; then touch "$LOGS/prepare-pg$m.ok"
    else touch "$LOGS/prepare-pg$m.failed"; fi
  done
) &
preparer=$!
trap 'kill $preparer 2>/dev/null' EXIT

log "PostgreSQL $PG_MAJOR on this machine"
major_suites
for t in "$ROOT"/test/integration/*.sh; do
  case "$(basename "$t")" in upgrade.sh | ha.sh | debian_package.sh) continue ;; esac  # per major, above
  suite "$(basename "$t" .sh)" timeout --kill-after=30 1800 bash "$t"
done

for m in "${majors[@]}"; do
  log "PostgreSQL $m in a ${SUITE_OF_MAJOR[$m]} chroot"
  start=$SECONDS
  while [ ! -e "$LOGS/prepare-pg$m.ok" ] && [ ! -e "$LOGS/prepare-pg$m.failed" ]; do sleep 2; done
  if [ -e "$LOGS/prepare-pg$m.failed" ]; then
    record FAILED "pg$m/chroot" $((SECONDS - start))
    tail -n 30 "$LOGS/prepare-pg$m.log" | sed 's/^/    | /'
    finish; exit 1
  fi
  record ok "pg$m/chroot" $((SECONDS - start))
  failed_before=$failed
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
  done < <(run_in_chroot "$m"; echo "chroot-exit=$?")
  # A chroot that failed without reporting a failed suite still fails.
  if [ "$rc" -ne 0 ] && [ $failed -eq "$failed_before" ]; then record FAILED "pg$m/run" 0; fi
  [ "$rc" -eq 3 ] && { finish; exit 1; }
done

finish
