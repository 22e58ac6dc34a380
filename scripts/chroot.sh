# The other PostgreSQL majors Debian ships, each in a throw-away chroot of
# its own Debian suite, made with mmdebstrap from this machine's mirror.
# Source it (after common.sh); scripts/test.sh uses it.
#
# A chroot's packages are cached as a tarball under $CHROOT_CACHE, keyed by
# its recipe, so a second run skips the download; every run unpacks a fresh
# copy, builds the extension from this tree inside it and deletes it after,
# so nothing installed by an earlier run can be tested.

CHROOT_CACHE=${CHROOT_CACHE:-/var/cache/locality-uuid/chroots}

# Major -> Debian suite that ships it. 14 and 16 are in no Debian suite.
declare -A SUITE_OF_MAJOR=([13]=bullseye [17]=trixie [18]=sid [19]=experimental)
CHROOT_MAJORS=(13 17 18 19)

# The Debian mirror this machine's apt uses (deb822 or one-line sources).
host_mirror() {
  local uri
  uri=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v -- '-security' | head -1)
  [ -n "$uri" ] || uri=$(grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}' | grep -v -- '-security' | head -1)
  echo "${uri:-http://deb.debian.org/debian}"
}

# mmdebstrap arguments for one major. Packages come from its suite's
# postgresql-server-dev-N, which pulls in that suite's clang and LLVM, and
# what building and checking the Debian packages takes (build-essential,
# dpkg-dev, debhelper, pg_buildext from postgresql-server-dev-all, lintian).
# sid and experimental Release files may carry an expired Valid-Until.
chroot_recipe() {
  local major=$1 suite=${SUITE_OF_MAJOR[$1]} mirror
  mirror=$(host_mirror)
  local common=(--variant=apt --aptopt='Acquire::Check-Valid-Until "false"'
                --include=make,g++,libssl-dev,pkg-config,cmake,libgtest-dev,python3,locales,postgresql-common,postgresql-client-common
                --include=build-essential,dpkg-dev,debhelper,postgresql-server-dev-all,lintian)
  if [ "$suite" = experimental ]; then
    printf '%s\n' "${common[@]}" \
      "--setup-hook=echo 'deb $mirror experimental main' > \"\$1/etc/apt/sources.list.d/experimental.list\"" \
      "--customize-hook=chroot \"\$1\" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -t experimental postgresql-$major postgresql-server-dev-$major" \
      sid "$mirror"
  else
    printf '%s\n' "${common[@]}" \
      "--include=postgresql-$major,postgresql-server-dev-$major" "$suite" "$mirror"
  fi
}

chroot_tarball() {
  local key
  key=$(chroot_recipe "$1" | sha256sum | cut -c1-12)
  echo "$CHROOT_CACHE/pg$1-${SUITE_OF_MAJOR[$1]}-$key.tar"
}

# Makes the cached tarball of one major's chroot unless it exists.
prepare_chroot() {
  local major=$1 tarball args=()
  tarball=$(chroot_tarball "$major")
  [ -s "$tarball" ] && return 0
  mkdir -p "$CHROOT_CACHE"
  mapfile -t args < <(chroot_recipe "$major")
  local target=("${args[@]: -2}")
  unset 'args[-1]' 'args[-1]'
  local part
  part=$(mktemp "$CHROOT_CACHE/.pg$major.XXXXXX.tar")
  timeout 1200 mmdebstrap -q --format=tar "${args[@]}" "${target[0]}" "$part" "${target[1]}" ||
    { rm -f "$part"; return 1; }
  mv "$part" "$tarball"
  # Tarballs of this major's earlier recipes are of no further use.
  find "$CHROOT_CACHE" -maxdepth 1 -name "pg$major-*.tar" ! -path "$tarball" -delete
}

# run_in_chroot MAJOR [COMMAND...]: runs COMMAND (default: the per-major
# suites, scripts/test.sh --this-major) in /src of a fresh copy of one
# major's chroot, with this source tree (tracked and untracked, not ignored
# files) copied in. Its output goes to stdout; its exit code is COMMAND's.
# Whatever COMMAND wrote under bench/results/ is copied back to this tree's
# bench/results/ (ignored by git), so a benchmark's CSV and plots made in
# another major outlive the throw-away chroot.
#
# The chroot gets its own /proc, a /dev of its own (a tmpfs with the few
# device nodes PostgreSQL and the compilers use, never the host's /dev) and
# a /dev/shm, all mounted inside a private mount namespace: they vanish
# with it and never propagate to the host, so deleting the directory
# afterwards cannot reach anything outside it.
run_in_chroot() {
  local major=$1 dir rc=0
  shift
  [ $# -gt 0 ] || set -- bash scripts/test.sh --this-major
  dir=$(mktemp -d "/var/tmp/locality-uuid-pg$major.XXXXXX")
  if tar -xf "$(chroot_tarball "$major")" -C "$dir" &&
     mkdir -p "$dir/src" &&
     (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
        tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$dir/src"; then
    timeout --kill-after=30 "${CHROOT_TIMEOUT:-2400}" \
      unshare --mount --propagation private bash -c '
        set -e
        dir=$1 major=$2
        shift 2
        mount -t proc proc "$dir/proc"
        mount -t tmpfs -o mode=755,size=16m tmpfs "$dir/dev"
        for node in "null 1 3" "zero 1 5" "full 1 7" "random 1 8" "urandom 1 9" "tty 5 0"; do
          read -r name dev_major dev_minor <<<"$node"
          mknod -m 666 "$dir/dev/$name" c "$dev_major" "$dev_minor"
        done
        ln -s /proc/self/fd "$dir/dev/fd"
        mkdir "$dir/dev/shm"
        mount -t tmpfs -o mode=1777,size=2g tmpfs "$dir/dev/shm"
        exec chroot "$dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
          PG_MAJOR="$major" bash -c "cd /src && exec \"\$@\"" in-chroot "$@"
      ' chroot-pg"$major" "$dir" "$major" "$@" || rc=$?
  else
    echo "could not set up the PostgreSQL $major chroot in $dir" >&2
    rc=1
  fi
  if [ -d "$dir/src/bench/results" ]; then
    mkdir -p "$ROOT/bench/results"
    cp -a "$dir/src/bench/results/." "$ROOT/bench/results/"
  fi
  # The namespace is gone with its last process; check anyway before
  # deleting, never through a mount.
  if grep -q " $dir/" /proc/mounts; then
    echo "mounts still present under $dir; not removing it" >&2
  else
    rm -rf "$dir"
  fi
  return $rc
}
