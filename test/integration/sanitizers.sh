#!/usr/bin/env bash
# The C++ unit tests and the CLI built with AddressSanitizer and
# UndefinedBehaviorSanitizer; any report fails the run.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
build="$ROOT/build-asan"
cmake -S "$ROOT" -B "$build" -DLOCALITY_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd "$build" && ctest --output-on-failure -j"$(nproc)")
"$build/locality-uuid" -n 1000 --sequential >/dev/null
"$build/locality-uuid" decode 20be0ffc-314a-bd53-7a50-013a65ca76d2 >/dev/null
"$build/locality-uuid" v1 --time 5236-03-31T21:21:00.684697Z --clock-seq 16383 --mac ff:ff:ff:ff:ff:ff >/dev/null
"$build/locality-uuid" v1-time 6b54058a-a413-11e6-b501-a0999b048337 >/dev/null
"$build/locality-uuid" decode nonsense >/dev/null 2>&1 && exit 1
echo "unit tests and CLI clean under ASan + UBSan"
