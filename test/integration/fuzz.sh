#!/usr/bin/env bash
# libFuzzer over the core's parsers and decoders, for a bounded time each
# (FUZZ_SECONDS, default 60), seeded from test/fuzz/corpus (left unchanged).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
seconds=${FUZZ_SECONDS:-60}
build="$ROOT/build-fuzz"
# The clang of this major's PGXS (CLANG in its Makefile.global), as C++.
clang=$(pgxs_clang)
# (A test run's compiler cache runs it: scripts/compiler_cache.sh.)
CXX=${clang/clang-/clang++-} cmake -S "$ROOT" -B "$build" -DLOCALITY_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER_LAUNCHER="${LOCALITY_COMPILER_LAUNCHER:-}" >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
for target in text layout; do
  scratch=$(mktemp -d)
  "$build/test/fuzz/fuzz_$target" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$scratch/" "$scratch" "$ROOT/test/fuzz/corpus/$target" 2>&1 | tail -n 12
  rm -rf "$scratch"
  echo "fuzz_$target: ${seconds}s without a finding"
done
