#!/usr/bin/env bash
# README command 2: every test. Unit tests (CTest), pg_regress and isolation
# suites with and without shared_preload_libraries, and the integration
# scripts under test/. Prints one line per suite and "N passed, N failed".
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ensure_packages "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}" || exit 1

passed=0
failed=0
failures=()
# suite NAME COMMAND...: runs one suite, keeps its output in $LOGS/NAME.log.
LOGS=$(mktemp -d /tmp/locality-uuid-tests.XXXXXX)
suite() {
  local name=$1; shift
  local start=$SECONDS
  if "$@" >"$LOGS/$name.log" 2>&1; then
    passed=$((passed + 1)); printf 'ok     %-28s %4ds\n' "$name" $((SECONDS - start))
  else
    failed=$((failed + 1)); failures+=("$name")
    printf 'FAILED %-28s %4ds  (log: %s)\n' "$name" $((SECONDS - start)) "$LOGS/$name.log"
    tail -n 60 "$LOGS/$name.log" | sed 's/^/    | /'
  fi
}

unit_tests() {
  cmake -S "$ROOT" -B "$ROOT/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
    cmake --build "$ROOT/build" -j"$(nproc)" >/dev/null &&
    (cd "$ROOT/build" && ctest --output-on-failure -j"$(nproc)")
}

# pg_regress + isolation; on failure show the diffs.
regression() {
  local rc=0
  with_cluster "$@" -- make -C "$ROOT" installcheck || rc=$?
  [ $rc -eq 0 ] || cat "$ROOT"/regression.diffs "$ROOT"/output_iso/regression.diffs 2>/dev/null | head -200
  return $rc
}

log "unit tests"
suite unit-tests unit_tests
build_and_install_extension
suite regress-per-backend regression
suite regress-preloaded regression -o shared_preload_libraries=locality_uuid
for t in "$ROOT"/test/integration/*.sh; do
  suite "$(basename "$t" .sh)" timeout --kill-after=30 1800 bash "$t"
done

echo
[ $failed -eq 0 ] || echo "failed suites: ${failures[*]}"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
