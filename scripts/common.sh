# Shared by the two README commands (scripts/try.sh, scripts/test.sh) and the
# test scripts: where things are, installing what is missing, building.
# Source it; it does not run anything by itself.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export ROOT

# Everything the build, the tests and the benchmarks use, from Debian.
BUILD_PACKAGES=(postgresql-15 postgresql-server-dev-15 postgresql-client-15 postgresql-common
                make g++ clang-14 llvm-14 libssl-dev pkg-config)
TEST_PACKAGES=(cmake libgtest-dev python3 libclang-rt-14-dev)

log() { printf '\n==> %s\n' "$*" >&2; }

# Installs the named Debian packages that are not installed yet.
ensure_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "missing packages: ${missing[*]} (run as root to install them)" >&2
    return 1
  fi
  log "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Builds the extension and the CLI with PGXS and installs both.
build_and_install_extension() {
  log "building and installing the extension"
  make -C "$ROOT" -s -j"$(nproc)" >/dev/null
  make -C "$ROOT" -s install >/dev/null
}

# Runs a command against a throw-away PostgreSQL cluster (in a temp dir,
# removed afterwards); extra pg_virtualenv options come first, then --.
# A hung command is stopped after CLUSTER_TIMEOUT seconds (default 1200).
with_cluster() {
  local opts=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do opts+=("$1"); shift; done
  shift
  timeout --kill-after=30 "${CLUSTER_TIMEOUT:-1200}" pg_virtualenv -t "${opts[@]}" "$@"
}
