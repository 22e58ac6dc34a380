#!/usr/bin/env bash
# README command 2: every test, on every PostgreSQL major Debian ships.
#
# On this machine's own major (15 on bookworm): every per-major suite
# (major_suites below) and every integration script under test/integration,
# in two lanes at once (LANE_SUITES below; scripts/chroot.sh, run_in_lane).
# Meanwhile, beside them, each other major (13, 17, 18, 19) and this
# machine's major on other architectures (i386 natively, or under qemu on a
# kernel without 32-bit x86; arm64 and s390x, weak memory order and
# big-endian, under user-mode qemu) in a throw-away chroot
# (scripts/chroot.sh, its own network namespace): every chroot is made (or
# taken from the cache) at once when the run starts, and three runners run
# them as they are ready, each the per-major suites that can fail
# differently there (why_not_here below, and doc/development.md: where each
# suite runs, and why).
#
# Prints one line per suite per major and architecture, the ten slowest
# suites, the wall time of this machine's suites and of each chroot (made
# new or from the cache, and run), and "N passed, N failed". A build that
# fails on this machine ends the run at once, red; a chroot that cannot be
# made or fails is reported with every other, and the run is red.
#
#   bash scripts/test.sh               everything
#   bash scripts/test.sh --quick       this major: build, unit tests, both
#                                      pg_regress runs and the integration
#                                      suites that take seconds (the inner
#                                      loop; a few minutes)
#   bash scripts/test.sh --this-major  only the per-major suites, against
#                                      this machine's major (what each
#                                      chroot runs)
#   bash scripts/test.sh --chroots     only the chroots, not this machine's
#                                      suites (said as such)
#   LOCALITY_MAJORS="13 17" bash scripts/test.sh   only these chroot majors
#   LOCALITY_ARCHES="s390x" bash scripts/test.sh   only these architectures
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
. "$ROOT/scripts/cpu.sh"
. "$ROOT/scripts/compiler_cache.sh"

mode=all
case "${1:-}" in
--this-major) mode=this-major ;;
--quick) mode=quick ;;
--chroots) mode=chroots ;;
--lane) mode=lane ;;  # (scripts/test.sh itself, in its second lane)
"") ;;
*) echo "usage: scripts/test.sh [--quick | --this-major | --chroots]" >&2; exit 2 ;;
esac

# The run's compiler cache (ccache): set up here, inherited by the second
# lane, lent to the chroots.
if [ "${LOCALITY_CHROOT:-0}" != 1 ] && [ "$mode" != lane ]; then
  use_compiler_cache
fi

passed=0
failed=0
failures=()
timings=()   # "SECONDS NAME" of every suite, for the slowest ten
cpu_timings=()  # "CPU-SECONDS NAME" of every suite measured (scripts/cpu.sh)
LOGS=${LOCALITY_LOGS:-$(mktemp -d /tmp/locality-uuid-tests.XXXXXX)}
RUN_START=$SECONDS

record() {  # record ok|FAILED NAME SECONDS [CPU-SECONDS]
  local cpu=${4:-}
  timings+=("$3 $2")
  [ -z "$cpu" ] || cpu_timings+=("$cpu $2")
  if [ "$1" = ok ]; then
    passed=$((passed + 1)); printf 'ok     %-34s %4ds%s\n' "$2" "$3" "${cpu:+  cpu $(printf '%4d' "$cpu")s}"
  else
    failed=$((failed + 1)); failures+=("$2")
    printf 'FAILED %-34s %4ds%s\n' "$2" "$3" "${cpu:+  cpu $(printf '%4d' "$cpu")s}"
  fi
}

# This machine's suites run in two lanes at once (a full run): most of them
# here, these in a second lane (run_in_lane: an overlay of this machine's
# root with its own network) from the moment the build is installed. They
# are long and touch nothing but their own servers and the installed
# module, and together take about as long as the rest. A run that cannot
# make a lane runs them here afterwards.
LANE_SUITES=(ha copies leases sql-edition-ha fleet fill_plan state_faults bench_backfill concurrent_refills restart preload)
# in_this_lane NAME: whether this run's lane (LOCALITY_LANE: "here", "lane",
# or unset: every suite) runs the suite NAME.
in_this_lane() {
  case ${LOCALITY_LANE:-} in
  here) [[ " ${LANE_SUITES[*]} " != *" $1 "* ]] ;;
  lane) [[ " ${LANE_SUITES[*]} lane-install " == *" $1 "* ]] ;;
  *) return 0 ;;
  esac
}

# suite NAME COMMAND...: runs one suite of this major, keeping its output
# in $LOGS; on failure shows the end of it. Returns the suite's status.
# The servers' logs of a suite that fails (test/integration/lib/servers.sh,
# keep_logs_if_failed) are kept beside its log and shown with it. A suite
# of the other lane is left to it, silently (it prints its own line).
suite() {
  in_this_lane "$1" || return 0
  local name="$SUITE_PREFIX/$1"; shift
  local start=$SECONDS log="$LOGS/${name//\//-}.log" f cpu
  export LOCALITY_KEEP_LOGS="$LOGS/${name//\//-}.servers"
  if with_cpu_account "$log.cpu" "$@" >"$log" 2>&1; then
    cpu=$(cat "$log.cpu")
    record ok "$name" $((SECONDS - start)) "$cpu"
  else
    cpu=$(cat "$log.cpu")
    record FAILED "$name" $((SECONDS - start)) "$cpu"
    # What the suite said failed first (the end of its output may be a
    # server's log), then the end of it.
    grep -m 20 -E '^(FAIL|not ok|ERROR)' "$log" | sed 's/^/    ! /'
    tail -n 60 "$log" | sed 's/^/    | /'
    for f in "$LOCALITY_KEEP_LOGS"/*; do
      [ -f "$f" ] || continue
      echo "    | --- server log $(basename "$f") (last 80 lines):"
      tail -n 80 "$f" | sed 's/^/    | /'
    done
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
  if [ ${#timings[@]} -gt 0 ] && [ "$mode" != this-major ] && [ "$mode" != lane ]; then
    echo "slowest suites:"
    printf '%s\n' "${timings[@]}" | sort -rn | head -n 10 | awk '{printf "  %5ds  %s\n", $1, $2}'
    if [ ${#cpu_timings[@]} -gt 0 ]; then
      echo "most CPU (user + system, the suite and every process it started; this machine's suites):"
      printf '%s\n' "${cpu_timings[@]}" | sort -rn | head -n 10 | awk '{printf "  %5ds  %s\n", $1, $2}'
    fi
    compiler_cache_summary
    echo "total: $(( (SECONDS - RUN_START) / 60 )) min $(( (SECONDS - RUN_START) % 60 )) s"
  fi
  [ $failed -eq 0 ] || echo "failed suites: ${failures[*]}"
  echo "$passed passed, $failed failed"
}

# The end of a run: logs are kept only when something failed.
finish() {
  summary
  if [ $failed -eq 0 ]; then rm -rf "$LOGS"; else echo "logs: $LOGS"; fi
  [ $failed -eq 0 ]
}

# The unit tests (CTest). Under qemu only their own target is built, without
# debug information (the CLI, which the full build also makes, is built and
# tested by build-install and the cli suite there already), by the lent
# cross compiler where there is one (emulated_build_options). On the 64-bit
# emulated architectures (arm64, s390x) the threaded tests are left out:
# qemu on this x86-64 machine orders the guest's memory as x86 does, so a
# missing barrier cannot show there (#51), and the rest of what they check
# (10M ids from 8 threads) is the arithmetic the native runs check; they
# took 4 of the 5 minutes of each emulated unit-tests suite. i386 keeps
# them: its 64-bit atomics are 32-bit code (cmpxchg8b), which qemu runs on
# parallel threads too.
THREADED_UNIT_TESTS='^(SharedCounters|BlockCells)[.]|^HotGuidGenerator[.]EightThreads'
unit_tests() {
  local build="$ROOT/build" configure=() target=() leave_out=()
  if [ "${LOCALITY_EMULATED:-0}" = 1 ]; then
    configure=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG")
    [ -z "${LOCALITY_CROSS:-}" ] || configure+=(-DCMAKE_CXX_COMPILER="$LOCALITY_CROSS/g++")
    target=(--target core_unit_tests)
    [ "${LOCALITY_ARCH:-}" = i386 ] || leave_out=(-E "$THREADED_UNIT_TESTS")
  fi
  cmake -S "$ROOT" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOCALITY_WERROR=ON "${configure[@]}" >/dev/null &&
    cmake --build "$build" -j"$(nproc)" "${target[@]}" >/dev/null || return 1
  if [ ${#leave_out[@]} -gt 0 ]; then
    echo "under qemu, left out (threaded): $(cd "$build" && ctest -N -R "$THREADED_UNIT_TESTS" | sed -n 's/^ *Test *#[0-9]*: //p' | tr '\n' ' ')"
  fi
  (cd "$build" && ctest --output-on-failure -j"$(nproc)" "${leave_out[@]}")
}

# pg_regress + isolation; on failure show the diffs.
regression() {
  local rc=0
  with_cluster "$@" -- make -C "$ROOT" PG_CONFIG="$PG_CONFIG" installcheck || rc=$?
  [ $rc -eq 0 ] || cat "$ROOT"/regression.diffs "$ROOT"/output_iso/regression.diffs 2>/dev/null | head -200
  return $rc
}

# Where each per-major suite runs: wherever it can fail differently, and
# no more (doc/development.md, "where each suite runs"). Prints why not,
# or nothing where it runs. This machine's run (outside a chroot) runs
# every suite.
OLDEST_MAJOR=13
NEWEST_MAJOR=19
why_not_here() {
  local suite=$1 arch=${LOCALITY_ARCH:-} emulated=${LOCALITY_EMULATED:-0}
  [ "${LOCALITY_CHROOT:-0}" = 1 ] || return 0
  case $suite in
  regress-per-backend|upgrade)
    if [ "$emulated" = 1 ]; then
      echo "under qemu: the shared-memory run is the one byte order and memory order can change"
      return
    fi ;;
  esac
  case $suite in
  upgrade|sql-edition|sql-edition-safety|sql-edition-moves|sql-edition-tenant|debian-package)
    [ -n "$arch" ] && echo "SQL and packaging only: the same on every architecture; runs on every major" ;;
  ha|sql-edition-ha|copies|leases)
    if [ -n "$arch" ]; then
      echo "replay and promotion are the same code on every architecture; runs on $OLDEST_MAJOR, $NEWEST_MAJOR and this machine's major"
    elif [ "$PG_MAJOR" != "$OLDEST_MAJOR" ] && [ "$PG_MAJOR" != "$NEWEST_MAJOR" ]; then
      echo "replay and promotion use 15's API up to $NEWEST_MAJOR: runs on $OLDEST_MAJOR (before custom WAL), $NEWEST_MAJOR and this machine's major"
    fi ;;
  esac
}

# maybe NAME COMMAND...: the suite, or a line saying why it is left out here.
maybe() {
  in_this_lane "$1" || return 0
  local why
  why=$(why_not_here "$1")
  if [ -n "$why" ]; then skip "$1" "$why"; else suite "$@"; fi
}

# A suite's time limit ends a hang; it does not judge speed (bench/ does).
# A cold run shares the two cores with making seven chroots and the other
# lane: suites take up to three times as long as in a cached run (ha: 1,200
# s and more, where a cached run takes about 400).
LIMIT=1800
LIMIT_LONG=3000  # ha, copies
# What every major runs (where it can fail differently). A build that
# fails stops everything (exit 3 tells an outer run that this was fatal).
major_suites() {
  suite build-install build_and_install_extension || { finish; exit 3; }
  [ -z "${AFTER_BUILD:-}" ] || "$AFTER_BUILD"
  suite unit-tests unit_tests
  maybe regress-per-backend regression -o locality_uuid.shared_counter=off
  suite regress-preloaded regression -o shared_preload_libraries=locality_uuid
  maybe upgrade bash "$ROOT/test/integration/upgrade.sh"
  maybe sql-edition timeout --kill-after=30 "$LIMIT" bash "$ROOT/test/integration/sql_edition.sh"
  maybe sql-edition-safety timeout --kill-after=30 "$LIMIT" bash "$ROOT/test/integration/sql_edition_safety.sh"
  maybe sql-edition-moves timeout --kill-after=30 "$LIMIT" bash "$ROOT/test/integration/sql_edition_moves.sh"
  maybe sql-edition-tenant timeout --kill-after=30 "$LIMIT" bash "$ROOT/test/integration/sql_edition_tenant.sh"
  if [ -n "${LOCALITY_ARCH:-}" ]; then
    # The CLI's known-answer decodes and its agreement with SQL: this
    # machine's run has cli.sh among its integration scripts, an
    # architecture's chroot runs it here.
    suite cli timeout --kill-after=30 "$LIMIT" bash "$ROOT/test/integration/cli.sh"
  fi
  if [ "${LOCALITY_ARCH:-}" = arm64 ]; then
    # The flags a start's move publishes, read by retrying clients
    # (#51): this machine's run has identity_late.sh among its
    # integration scripts; arm64's code, as GCC orders it for aarch64,
    # runs it here too (qemu keeps x86's memory order).
    suite identity_late timeout --kill-after=30 "$LIMIT" bash "$ROOT/test/integration/identity_late.sh"
  fi
  maybe ha timeout --kill-after=30 "$LIMIT_LONG" bash "$ROOT/test/integration/ha.sh"
  maybe copies timeout --kill-after=30 "$LIMIT_LONG" bash "$ROOT/test/integration/copies.sh"
  maybe leases timeout --kill-after=30 "$LIMIT" bash "$ROOT/test/integration/leases.sh"
  maybe sql-edition-ha timeout --kill-after=30 "$LIMIT" bash "$ROOT/test/integration/sql_edition_ha.sh"
  maybe debian-package timeout --kill-after=30 "$LIMIT" bash "$ROOT/test/integration/debian_package.sh"
}

# Every suite of this machine: the per-major ones, then every integration
# script the per-major ones do not run.
this_machine_suites() {
  major_suites
  local t
  for t in "$ROOT"/test/integration/*.sh; do
    case "$(basename "$t")" in upgrade.sh | sql_edition*.sh | ha.sh | copies.sh | leases.sh | debian_package.sh) continue ;; esac  # per major, above
    suite "$(basename "$t" .sh)" timeout --kill-after=30 "$LIMIT" bash "$t"
  done
}

# The integration suites of the inner loop (--quick): seconds each.
QUICK_SUITES=(install_scripts upgrade make_install readme_examples cli sql_edition preload restart)

if [ "$mode" = this-major ]; then
  ensure_packages "${BUILD_PACKAGES[@]}" "${MAJOR_TEST_PACKAGES[@]}" || exit 1
  major_suites
  finish
  exit
fi

if [ "$mode" = lane ]; then
  # In the second lane (a copy of the tree, built by the other lane): that
  # build is installed here again (make install, nothing compiled unless a
  # source changed) and the installed module must be byte-identical to it.
  export LOCALITY_LANE=lane
  suite lane-install install_built_extension || { finish; exit 3; }
  this_machine_suites
  finish
  exit
fi

if [ "$mode" = quick ]; then
  ensure_packages "${BUILD_PACKAGES[@]}" cmake libgtest-dev python3 || exit 1
  suite build-install build_and_install_extension || { finish; exit 1; }
  suite unit-tests unit_tests
  suite regress-per-backend regression -o locality_uuid.shared_counter=off
  suite regress-preloaded regression -o shared_preload_libraries=locality_uuid
  for t in "${QUICK_SUITES[@]}"; do
    suite "$t" timeout --kill-after=30 "$LIMIT" bash "$ROOT/test/integration/$t.sh"
  done
  finish
  exit
fi

. "$ROOT/scripts/chroot.sh" || { echo "scripts/chroot.sh did not load" >&2; exit 1; }
# (What the whole run uses: scripts/cpu.sh; printed at its end, and its
# group removed however the run ends.)
cpu_account_run
trap cpu_release_run EXIT
ensure_packages "${BUILD_PACKAGES[@]}" || exit 1
# shellcheck disable=SC2046
ensure_packages $(host_test_packages) mmdebstrap iproute2 openssl || exit 1
# (leases.sh's transaction pooler, on this machine only; its package
# would start a PgBouncer of its own)
ensure_packages_without_services pgbouncer || exit 1

read -r -a majors <<<"${LOCALITY_MAJORS-${CHROOT_MAJORS[*]}}"
read -r -a arches <<<"${LOCALITY_ARCHES-${CHROOT_ARCHES[*]}}"
targets=("${majors[@]}" "${arches[@]}")
for t in "${targets[@]}"; do
  known_target "$t" || { echo "no chroot for $t (majors: ${CHROOT_MAJORS[*]}; architectures: ${CHROOT_ARCHES[*]})" >&2; exit 2; }
done

# The architectures: how i386 runs is decided once (natively, or under qemu
# on a kernel without 32-bit x86), and every architecture's qemu handler is
# registered now, one after the other, before anything runs in parallel.
# One that cannot be set up is a failure of that chroot alone, reported
# with the others at the end.
if [ ${#arches[@]} -gt 0 ]; then
  ensure_packages arch-test qemu-user-static || exit 1
  settle_i386 || exit 1
  trap 'unregister_i386_qemu; cpu_release_run' EXIT
  for t in "${arches[@]}"; do
    start=$SECONDS
    if ! ensure_foreign_arch "$t" >"$LOGS/prepare-$t.log" 2>&1; then
      echo "failed $((SECONDS - start)) new" >"$LOGS/made-$t"
    fi
  done
fi
[[ " ${arches[*]} " == *" i386 "* ]] &&
  log "i386 runs $([ "$I386_RUNS" = native ] && echo "natively" || echo "under qemu (LOCALITY_I386=${LOCALITY_I386:-auto}; this kernel runs i386 itself: $I386_NATIVE)")"

# Every chroot is made (or found in the cache) at once, in the background,
# beside this machine's suites: making one is mostly downloads and dpkg,
# and they overlap. Each writes $LOGS/made-TARGET: "ok|failed SECONDS
# cached|new".
prepare_one() {
  local t=$1 start=$SECONDS how=new status=ok
  [ -s "$(chroot_tarball "$t")" ] && how=cached
  with_cpu_account "$LOGS/cpu-made-$t" prepare_chroot "$t" >>"$LOGS/prepare-$t.log" 2>&1 || status=failed
  echo "$status $((SECONDS - start)) $how" >"$LOGS/made-$t.part"
  mv "$LOGS/made-$t.part" "$LOGS/made-$t"
}
# (Each in a subshell that says "failed" for it if it dies without a word:
# a runner must never wait for a chroot that will not come.)
for t in "${targets[@]}"; do
  [ -e "$LOGS/made-$t" ] && continue
  ( prepare_one "$t"; [ -e "$LOGS/made-$t" ] || echo "failed 0 new" >"$LOGS/made-$t" ) &
done

# Three runners take the chroots as they are made, in the order below
# (longest first where several are ready): each unpacks a fresh copy and
# runs the per-major suites there, writing its output to
# $LOGS/chroot-TARGET.out and "STATUS SECONDS" to .rc ("prepare" when the
# chroot could not be made). The emulated architectures come first when
# ready: under qemu they are the longest. A run keeps both cores busy (its
# CPU pressure stays near 100%): more runners would not end it sooner.
# Each chroot has a network namespace of its own, so its servers' ports
# never meet another's.
run_order=()
for t in s390x arm64 13 19 17 18 i386; do
  [[ " ${targets[*]} " == *" $t "* ]] && run_order+=("$t")
done
for t in "${targets[@]}"; do [[ " ${run_order[*]} " == *" $t "* ]] || run_order+=("$t"); done
claim_next() {  # prints the next ready target no runner has claimed, waiting for one; nothing when none is left
  local t left
  while :; do
    left=0
    for t in "${run_order[@]}"; do
      [ -e "$LOGS/claimed-$t" ] && continue
      left=1
      [ -e "$LOGS/made-$t" ] || continue
      mkdir "$LOGS/claimed-$t" 2>/dev/null && { echo "$t"; return; }
    done
    [ $left = 1 ] || return 0
    sleep 2
  done
}
chroot_runner() {
  local t start rc status
  while t=$(claim_next) && [ -n "$t" ]; do
    read -r status _ _ <"$LOGS/made-$t"
    if [ "$status" != ok ]; then echo "prepare 0" >"$LOGS/chroot-$t.rc"; continue; fi
    start=$SECONDS rc=0
    with_cpu_account "$LOGS/cpu-chroot-$t" run_in_chroot "$t" >"$LOGS/chroot-$t.out" 2>&1 || rc=$?
    echo "$rc $((SECONDS - start))" >"$LOGS/chroot-$t.rc.part" && mv "$LOGS/chroot-$t.rc.part" "$LOGS/chroot-$t.rc"
  done
}
runners=()
for _ in 1 2 3; do
  chroot_runner &
  runners+=($!)
done
# At the end (or an early exit): the background jobs still running, never
# a pid that has since been reused.
trap 'kill $(jobs -pr) 2>/dev/null; unregister_i386_qemu; cpu_release_run' EXIT

# The second lane of this machine's suites, started once the build is
# installed; writes "STATUS SECONDS" to $LOGS/lane.rc when it ends.
lane_pid=""
start_lane() {
  local dir
  mkdir -p "$LOGS/lane"
  dir=$(new_lane) || echo "could not make a lane directory" >"$LOGS/lane.out"
  (
    start=$SECONDS rc=0
    LOCALITY_LOGS="$LOGS/lane" with_cpu_account "$LOGS/cpu-lane" \
      run_in_lane "$dir" "$LOGS" bash scripts/test.sh --lane >>"$LOGS/lane.out" 2>&1 || rc=$?
    echo "$rc $((SECONDS - start))" >"$LOGS/lane.rc.part" && mv "$LOGS/lane.rc.part" "$LOGS/lane.rc"
  ) &
  lane_pid=$!
}

# cpu_note NAME: ", cpu N s" from $LOGS/NAME (with_cpu_account), or
# nothing where it was not measured.
cpu_note() {
  local cpu=""
  [ ! -s "$LOGS/$1" ] || cpu=$(cat "$LOGS/$1")
  [ -z "$cpu" ] || printf ', cpu %4ss' "$cpu"
}

# fold_output FILE: the suite lines and closing tally a chroot or the lane
# printed, folded into this run's (its suites' times join this run's).
fold_output() {
  local line
  while IFS= read -r line; do
    if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
      passed=$((passed + BASH_REMATCH[1])); failed=$((failed + BASH_REMATCH[2]))
    elif [[ $line =~ ^(ok|FAILED)\ +([^ ]+)\ +([0-9]+)s(\ +cpu\ +([0-9]+)s)?$ ]]; then
      timings+=("${BASH_REMATCH[3]} ${BASH_REMATCH[2]}")
      [ -z "${BASH_REMATCH[5]}" ] || cpu_timings+=("${BASH_REMATCH[5]} ${BASH_REMATCH[2]}")
      [ "${BASH_REMATCH[1]}" = FAILED ] && failures+=("${BASH_REMATCH[2]}")
      echo "$line"
    elif [[ $line =~ ^(failed\ suites:|logs:) ]]; then
      :
    else
      echo "$line"
    fi
  done <"$1"
}

host_start=$SECONDS
lane_took=""
if [ "$mode" = chroots ]; then
  skip "*" "--chroots: this machine's suites not run"
else
  log "PostgreSQL $PG_MAJOR on this machine"
  export LOCALITY_LANE=here
  AFTER_BUILD=start_lane
  this_machine_suites
  # The second lane's suites: its lines, or, where no lane could be made,
  # the suites themselves, here, now.
  while [ ! -e "$LOGS/lane.rc" ] && kill -0 "$lane_pid" 2>/dev/null; do sleep 2; done
  lane_rc=lost
  [ ! -e "$LOGS/lane.rc" ] || read -r lane_rc lane_took <"$LOGS/lane.rc"
  if [ "$lane_rc" = 97 ]; then
    log "no second lane on this machine ($(tail -n 1 "$LOGS/lane.out")): its suites run here"
    lane_took=""
    LOCALITY_LANE=lane AFTER_BUILD="" this_machine_suites
  else
    log "PostgreSQL $PG_MAJOR on this machine, second lane"
    failed_before=$failed
    [ ! -e "$LOGS/lane.out" ] || fold_output "$LOGS/lane.out"
    if [ "$lane_rc" != 0 ] && [ $failed -eq "$failed_before" ]; then
      record FAILED "pg$PG_MAJOR/lane" 0
      tail -n 30 "$LOGS/lane.out" 2>/dev/null | sed 's/^/    | /'
    fi
  fi
fi
host_took=$((SECONDS - host_start))

# The chroots' results, in the order of the targets: every one is
# reported, a chroot that could not be made or failed among them; the run
# is red if any failed.
chroot_times=()
for t in "${targets[@]}"; do
  log "$(describe_target "$t") in a chroot"
  # (A target whose result never comes, every runner gone, is lost: said
  # as a failure, never waited for.)
  while [ ! -e "$LOGS/chroot-$t.rc" ]; do
    alive=0
    for r in "${runners[@]}"; do kill -0 "$r" 2>/dev/null && alive=1; done
    [ $alive = 1 ] || [ -e "$LOGS/chroot-$t.rc" ] || { echo "lost 0" >"$LOGS/chroot-$t.rc"; break; }
    sleep 2
  done
  read -r rc took <"$LOGS/chroot-$t.rc"
  made=0 how=new
  [ ! -e "$LOGS/made-$t" ] || read -r _ made how <"$LOGS/made-$t"
  if [ "$rc" = lost ]; then
    record FAILED "$t/lost" 0
    echo "    | no runner reported on it: the runners ended without its result"
    chroot_times+=("$(printf '%-44s lost' "$(describe_target "$t")")")
    continue
  fi
  if [ "$rc" = prepare ]; then
    record FAILED "$t/chroot" "$made"
    tail -n 30 "$LOGS/prepare-$t.log" | sed 's/^/    | /'
    chroot_times+=("$(printf '%-44s could not be made (%ss)' "$(describe_target "$t")" "$made")")
    continue
  fi
  failed_before=$failed
  fold_output "$LOGS/chroot-$t.out"
  # A chroot that failed without reporting a failed suite still fails.
  if [ "$rc" -ne 0 ] && [ $failed -eq "$failed_before" ]; then record FAILED "$t/run" 0; fi
  chroot_times+=("$(printf '%-44s made in %4ss%s (%s), ran %4ss%s' "$(describe_target "$t")" "$made" \
    "$(cpu_note "cpu-made-$t")" "$([ "$how" = cached ] && echo "from the cache" || echo "new")" "$took" \
    "$(cpu_note "cpu-chroot-$t")")")
done

echo
echo "wall time: this machine's suites $((host_took / 60)) min $((host_took % 60)) s${lane_took:+ (the second lane $((lane_took / 60)) min $((lane_took % 60)) s of it$(cpu_note cpu-lane))}; each chroot (made while they ran):"
printf '  %s\n' "${chroot_times[@]}"
cpu_release_run
run_cpu=$CPU_RUN_SECONDS
if [ -n "$run_cpu" ]; then
  wall=$((SECONDS - RUN_START))
  echo "CPU of the whole run (user + system): $((run_cpu / 60)) min $((run_cpu % 60)) s, $((100 * run_cpu / (wall * $(nproc)))) % of $(nproc) cores over its $((wall / 60)) min $((wall % 60)) s"
fi
finish
