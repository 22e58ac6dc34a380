#!/usr/bin/env bash
# ensure_packages_without_services (scripts/common.sh), which the Patroni
# suite installs etcd-server and patroni with: no packaged service may start
# during the install, and the machine's policy-rc.d (or its absence) is
# exactly as it was afterwards, also when the install fails or is killed.
# The policy file is a temporary path (LOCALITY_POLICY_RC) and the install
# a stand-in that records what a maintainer script's invoke-rc.d would have
# been told; the real file and a real install are what pg15/patroni runs
# under (every Debian container image ships "exit 101").
set -uo pipefail
export LOCALITY_POLICY_RC
WORK=$(mktemp -d /tmp/locality-policy-rc.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
LOCALITY_POLICY_RC=$WORK/policy-rc.d
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"

failures=0 checks=0
check() {
  checks=$((checks + 1))
  if eval "$2"; then echo "ok:   $1"; else echo "FAIL: $1"; failures=$((failures + 1)); fi
}

# The stand-in for apt-get: what invoke-rc.d would get from the policy now
# (101 forbids the start), then the install's outcome ($INSTALL: ok, fail,
# or hang until killed).
ensure_packages() {
  local status=0
  if [ -x "$POLICY_RC" ]; then "$POLICY_RC" etcd start >/dev/null 2>&1 || status=$?; else status=none; fi
  echo "$status" >"$WORK/seen"
  case ${INSTALL:-ok} in
  ok) return 0 ;;
  fail) return 100 ;;
  # (wait, not sleep: the TERM trap runs at once)
  hang) sleep 60 >/dev/null 2>&1 & echo $! >"$WORK/sleeper"; touch "$WORK/hanging"; wait $! ;;
  esac
}
# A package name no machine has, so the install is always attempted.
PKG=locality-uuid-no-such-package

policy() { printf '#!/bin/sh\n%s\n' "$1" >"$POLICY_RC"; chmod 755 "$POLICY_RC"; }
digest() { if [ -e "$POLICY_RC" ]; then sha256sum <"$POLICY_RC"; else echo absent; fi; }

# 1. No policy: the install runs under one that refuses, none is left.
rm -f "$POLICY_RC"
ensure_packages_without_services "$PKG"; rc=$?
check "no policy: the install saw starts refused (101)" '[ "$(cat "$WORK/seen")" = 101 ]'
check "no policy: installed (status 0), none left behind" '[ $rc = 0 ] && [ ! -e "$POLICY_RC" ]'

# 2. Debian's container policy (exit 101): used as it is, unchanged.
policy 'exit 101 # a container image'
before=$(digest)
ensure_packages_without_services "$PKG"; rc=$?
check "a refusing policy: the install saw 101" '[ "$(cat "$WORK/seen")" = 101 ]'
check "a refusing policy: the same file afterwards" '[ $rc = 0 ] && [ "$(digest)" = "$before" ]'

# 3. A policy that allows starts: ours during the install, then the
#    machine's own back, byte for byte and with its mode.
policy 'exit 0 # this machine starts services'
chmod 750 "$POLICY_RC"
before=$(digest)
ensure_packages_without_services "$PKG"; rc=$?
check "an allowing policy: the install saw 101" '[ "$(cat "$WORK/seen")" = 101 ]'
check "an allowing policy: put back byte for byte, mode 750" \
  '[ $rc = 0 ] && [ "$(digest)" = "$before" ] && [ "$(stat -c %a "$POLICY_RC")" = 750 ]'

# 4. An install that fails: its status returned, the policy put back.
INSTALL=fail ensure_packages_without_services "$PKG"; rc=$?
check "a failing install: status 100 returned, the policy put back" '[ $rc = 100 ] && [ "$(digest)" = "$before" ]'
rm -f "$POLICY_RC"
INSTALL=fail ensure_packages_without_services "$PKG"; rc=$?
check "a failing install without a policy: none left behind" '[ $rc = 100 ] && [ ! -e "$POLICY_RC" ]'

# 5. An install killed midway (the run stopped): the trap puts it back.
for start in allowing none; do
  if [ $start = allowing ]; then policy 'exit 0'; else rm -f "$POLICY_RC"; fi
  before=$(digest)
  rm -f "$WORK/hanging"
  (INSTALL=hang ensure_packages_without_services "$PKG") &
  pid=$!
  for _ in $(seq 100); do [ -e "$WORK/hanging" ] && break; sleep 0.1; done
  during=$(digest)
  kill -TERM "$pid"; wait "$pid" 2>/dev/null
  kill "$(cat "$WORK/sleeper")" 2>/dev/null
  check "killed during the install ($start policy): ours was in place, the machine's back" \
    '[ "$during" != "$before" ] && [ "$(digest)" = "$before" ]'
done

# 6. The caller's own EXIT trap survives the function.
out=$(bash -c '
  . "$1"; trap "echo caller-trap-ran" EXIT
  ensure_packages() { :; }
  ensure_packages_without_services locality-uuid-no-such-package' _ "$ROOT/scripts/common.sh")
check "the caller's EXIT trap still runs" '[ "$out" = caller-trap-ran ]'
check "and no policy left behind by it" '[ ! -e "$POLICY_RC" ]'

echo "$checks checks, $failures failed"
[ $failures -eq 0 ]
