# Shared by the two README commands (scripts/try.sh, scripts/test.sh) and the
# test scripts: where things are, which PostgreSQL major this machine (or
# chroot) tests, installing what is missing, building.
# Source it; it does not run anything by itself.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export ROOT

log() { printf '\n==> %s\n' "$*" >&2; }

# The named Debian packages that are not installed, one a line.
missing_packages() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
  done
}

# Installs the named Debian packages that are not installed yet.
ensure_packages() {
  local missing=()
  mapfile -t missing < <(missing_packages "$@")
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "missing packages: ${missing[*]} (run as root to install them)" >&2
    return 1
  fi
  log "installing ${missing[*]}"
  # Another install may hold dpkg's lock (the chroot preparer runs beside
  # the suites): wait for it rather than fail.
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

# Installs packages that ship services (etcd-server, patroni) without
# starting any of them: Debian's maintainer scripts start services through
# invoke-rc.d, which asks /usr/sbin/policy-rc.d first (exit 101: "action
# forbidden"). Whatever policy the machine has is respected and left as it
# was:
#   - one that already refuses the start (every Debian container image ships
#     "exit 101") is used as it is;
#   - none: ours (exit 101) for the install, removed after it;
#   - one that would allow the start: set aside for the install and put back
#     byte for byte after it (a trap covers an install that is stopped).
# Returns ensure_packages' status.
POLICY_RC=${LOCALITY_POLICY_RC:-/usr/sbin/policy-rc.d}  # the test points it elsewhere
ensure_packages_without_services() {
  local missing=()
  mapfile -t missing < <(missing_packages "$@")
  [ ${#missing[@]} -eq 0 ] && return 0
  local probe=0
  if [ -e "$POLICY_RC" ]; then
    "$POLICY_RC" locality-uuid-probe start >/dev/null 2>&1 || probe=$?
    if [ "$probe" = 101 ]; then
      log "installing ${missing[*]} under this machine's $POLICY_RC (it refuses service starts)"
      ensure_packages "${missing[@]}"
      return
    fi
  fi
  local saved="" rc=0 sig
  if [ -e "$POLICY_RC" ]; then
    saved=$(mktemp "$POLICY_RC.locality-uuid.XXXXXX") && cp -p "$POLICY_RC" "$saved" ||
      { rm -f "$saved"; echo "could not set $POLICY_RC aside" >&2; return 1; }
  fi
  # A signal during the install puts the machine's policy (or none) back
  # first, then is the caller's again (its own trap, or the default, which
  # runs the caller's EXIT trap).
  POLICY_RC_CALLER_TRAPS=$(trap -p INT TERM HUP QUIT)
  for sig in INT TERM HUP QUIT; do
    # shellcheck disable=SC2064
    trap "policy_rc_interrupted $sig '$saved'" "$sig"
  done
  if printf '#!/bin/sh\n# locality_uuid: no service starts while it installs packages\nexit 101\n' >"$POLICY_RC.new" &&
     chmod 755 "$POLICY_RC.new" && mv -f "$POLICY_RC.new" "$POLICY_RC"; then
    ensure_packages "${missing[@]}" || rc=$?
  else
    echo "could not write $POLICY_RC" >&2; rc=1
  fi
  policy_rc_restore "$saved"
  trap - INT TERM HUP QUIT
  eval "$POLICY_RC_CALLER_TRAPS"
  return $rc
}
policy_rc_interrupted() {  # policy_rc_interrupted SIGNAL SAVED_COPY_OR_EMPTY
  policy_rc_restore "$2"
  trap - INT TERM HUP QUIT
  eval "$POLICY_RC_CALLER_TRAPS"
  kill -s "$1" "$BASHPID"
}
policy_rc_restore() {  # policy_rc_restore SAVED_COPY_OR_EMPTY (twice is harmless)
  if [ -z "$1" ]; then rm -f "$POLICY_RC"; elif [ -e "$1" ]; then mv -f "$1" "$POLICY_RC"; fi
}

# The PostgreSQL major this machine tests: PG_MAJOR if set, else the newest
# installed server, else the one this Debian suite's 'postgresql'
# metapackage depends on (bookworm: 15, bullseye: 13, trixie: 17, ...).
detect_pg_major() {
  if [ -n "${PG_MAJOR:-}" ]; then echo "$PG_MAJOR"; return; fi
  local installed
  installed=$(ls /usr/lib/postgresql/*/bin/postgres 2>/dev/null | sed 's|/usr/lib/postgresql/\([0-9]*\)/.*|\1|' | sort -n | tail -1)
  if [ -n "$installed" ]; then echo "$installed"; return; fi
  local dep
  dep=$(apt-cache depends postgresql 2>/dev/null | sed -n 's/.*Depends: postgresql-\([0-9][0-9]*\)$/\1/p' | head -1)
  if [ -z "$dep" ] && [ "$(id -u)" -eq 0 ]; then
    apt-get update -qq
    dep=$(apt-cache depends postgresql 2>/dev/null | sed -n 's/.*Depends: postgresql-\([0-9][0-9]*\)$/\1/p' | head -1)
  fi
  [ -n "$dep" ] || { echo "cannot tell which PostgreSQL major this Debian ships" >&2; return 1; }
  echo "$dep"
}

PG_MAJOR=$(detect_pg_major) || exit 1
export PG_MAJOR
PG_CONFIG=/usr/lib/postgresql/$PG_MAJOR/bin/pg_config
export PG_CONFIG
# The suites run the programs this machine's packages installed, and no
# others: the system's PATH, without what a contributor's shell adds in
# front of it (a pyenv shim for python3 cost 500 ms a call on a 2-core VM,
# Debian's python3 90 ms, and the suites need Debian's, with the modules its
# packages bring). This major's client programs (psql, pg_dump,
# pg_basebackup...) come from its own directory, ahead of /usr/bin: there
# Debian's pg_wrapper, a Perl script, chooses a version on every call, and
# suites run psql thousands of times (psql -c 'SELECT 1': 146 ms through
# it, 74 ms direct). What needs the wrapper itself (psql --cluster) calls
# /usr/bin/psql by name. A test run's compilers (scripts/compiler_cache.sh)
# come first of all.
PATH="${LOCALITY_COMPILER_PATH:+$LOCALITY_COMPILER_PATH:}/usr/lib/postgresql/$PG_MAJOR/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
export PATH
# (The compiler cache keys paths relative to this tree, wherever it is.)
[ -z "${CCACHE_DIR:-}" ] || export CCACHE_BASEDIR=$ROOT

# What building and testing one major needs. postgresql-server-dev-N pulls
# in the clang and LLVM its PGXS compiles bitcode with.
BUILD_PACKAGES=("postgresql-$PG_MAJOR" "postgresql-server-dev-$PG_MAJOR" "postgresql-client-$PG_MAJOR"
                postgresql-common make g++ libssl-dev libpq-dev pkg-config)
# Per-major suites (scripts/test.sh --this-major) also build the unit tests
# and, except under qemu (LOCALITY_EMULATED=1), the Debian packages.
MAJOR_TEST_PACKAGES=(cmake libgtest-dev)
[ "${LOCALITY_EMULATED:-0}" = 1 ] || MAJOR_TEST_PACKAGES+=(dpkg-dev debhelper postgresql-server-dev-all lintian)

# The clang that this major's PGXS uses (CLANG in its Makefile.global), e.g.
# /usr/bin/clang-14; empty before postgresql-server-dev-N is installed.
pgxs_clang() {
  local global
  global="$(dirname "$("$PG_CONFIG" --pgxs 2>/dev/null)")/../Makefile.global"
  [ -f "$global" ] && sed -n 's/^CLANG *= *//p' "$global"
}

# The host-only suites (sanitizers, fuzzers, Python cross-check) also need
# the sanitizer runtime of that clang.
host_test_packages() {
  local clang version
  clang=$(pgxs_clang)
  version=${clang##*clang-}
  echo cmake libgtest-dev python3 "libclang-rt-$version-dev"
}

# The extension's version, as locality_uuid.control's default_version.
control_version() { sed -n "s/^default_version *= *'\(.*\)'/\1/p" "$ROOT/locality_uuid.control"; }
# The SQL edition's own version (the Makefile's SQL_EDITION_VERSION): it
# moves only when src/sql does.
sql_edition_version() { sed -n 's/^SQL_EDITION_VERSION *= *//p' "$ROOT/Makefile"; }

# copy_tree DEST: this source tree into DEST: the files git tracks and the
# untracked ones it does not ignore; where there is no git (a chroot, whose
# /src is such a copy already), every file but build outputs.
copy_tree() {
  if command -v git >/dev/null && git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
    (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
       tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$1"
  else
    tar -C "$ROOT" --exclude='*.o' --exclude='*.bc' --exclude='*.so' --exclude=./build --exclude=./results \
      --exclude=./locality-uuid --exclude=./cli-objects -cf - . | tar -xf - -C "$1"
  fi
}

# How a build under qemu (LOCALITY_EMULATED=1) differs, as make options:
# no LLVM bitcode (clang under emulation doubles the build; the bitcode is
# checked natively: this machine, i386, every major), no debug information
# (COPT=-g0: nothing reads it there), and where the chroot was lent this
# machine's cross compiler of its own GCC version (LOCALITY_CROSS,
# scripts/chroot.sh), that one as CC and CXX: the same compiler, run
# natively instead of under qemu (a build there took 11 minutes).
emulated_build_options() {
  [ "${LOCALITY_EMULATED:-0}" = 1 ] || return 0
  echo "with_llvm=no COPT=-g0${LOCALITY_CROSS:+ CC=$LOCALITY_CROSS/gcc CXX=$LOCALITY_CROSS/g++}"
}

# Builds the extension and the CLI with PGXS, warnings as errors, and
# installs both. Whatever an earlier run installed is removed first, and
# the installed module must be the one just built: no suite can run
# against a stale module.
build_and_install_extension() {
  local libdir
  libdir=$("$PG_CONFIG" --pkglibdir)
  make -C "$ROOT" -s PG_CONFIG="$PG_CONFIG" uninstall >/dev/null 2>&1 || true
  make -C "$ROOT" -s PG_CONFIG="$PG_CONFIG" clean >/dev/null
  make -C "$ROOT" -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG" WERROR=-Werror $(emulated_build_options) || return 1
  install_built_extension || return 1
  echo "built and installed locality_uuid $(control_version) for PostgreSQL $PG_MAJOR"
}

# Installs this tree's build again (after a suite that installed another
# build or a package): make install of what build_and_install_extension
# built, nothing compiled again unless a source changed, and the installed
# module must again be byte-identical to the tree's.
install_built_extension() {
  make -C "$ROOT" -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG" WERROR=-Werror $(emulated_build_options) install >/dev/null || return 1
  cmp "$ROOT/locality_uuid.so" "$("$PG_CONFIG" --pkglibdir)/locality_uuid.so"
}

# Runs a command against a throw-away PostgreSQL cluster of this major (in
# a temp dir, removed afterwards); extra pg_virtualenv options come first,
# then --. A hung command is stopped after CLUSTER_TIMEOUT seconds
# (default 1200).
with_cluster() {
  local opts=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do opts+=("$1"); shift; done
  shift
  timeout --kill-after=30 "${CLUSTER_TIMEOUT:-1200}" pg_virtualenv -t -v "$PG_MAJOR" "${opts[@]}" "$@"
}
