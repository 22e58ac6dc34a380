# Throw-away chroots for what this machine cannot test by itself, each made
# with mmdebstrap from this machine's mirror. A chroot target is either
#   - another PostgreSQL major (13, 17, 18, 19), of this machine's
#     architecture, in the Debian suite that ships it; or
#   - another architecture (i386, arm64, s390x), with this machine's suite
#     and major: i386 runs natively on an x86-64 kernel, the others under
#     user-mode qemu registered in binfmt_misc (ensure_foreign_arch).
# Also here: the second lane of this machine's own suites (run_in_lane), an
# overlay of this machine's root set up the same way.
# Source it (after common.sh); scripts/test.sh and scripts/in_major.sh use it.
#
# A chroot's packages are cached as a tarball under $CHROOT_CACHE, keyed by
# its recipe, so a second run skips the download; every run unpacks a fresh
# copy, builds the extension from this tree inside it and deletes it after,
# so nothing installed by an earlier run can be tested.

CHROOT_CACHE=${CHROOT_CACHE:-/var/cache/locality-uuid/chroots}
. "$ROOT/scripts/compiler_cache.sh"

# Major -> Debian suite that ships it. 14 and 16 are in no Debian suite.
declare -A SUITE_OF_MAJOR=([13]=bullseye [17]=trixie [18]=sid [19]=experimental)
CHROOT_MAJORS=(13 17 18 19)
# Architectures besides this machine's: 32-bit (4-byte Datum before 19),
# weak memory order, big-endian. Debian builds PostgreSQL for armhf,
# ppc64el and riscv64 too; these three cover their distinct traits.
CHROOT_ARCHES=(i386 arm64 s390x)
# Architecture -> the qemu binfmt handler that runs it (none: native).
# i386 runs natively where the kernel runs 32-bit x86 binaries, else under
# qemu too (settle_i386).
declare -A QEMU_OF_ARCH=([arm64]=aarch64 [s390x]=s390x)

# Architecture -> Debian's cross compiler for it (the GCC triplet of its
# g++-TRIPLET package) and the chroot's multiarch directory. Under qemu the
# extension, the CLI and the unit tests are compiled by this machine's
# cross compiler, natively, and only run under qemu (cross_compiler_setup).
declare -A CROSS_OF_ARCH=([arm64]=aarch64-linux-gnu [s390x]=s390x-linux-gnu [i386]=i686-linux-gnu)
declare -A MULTIARCH_OF_ARCH=([arm64]=aarch64-linux-gnu [s390x]=s390x-linux-gnu [i386]=i386-linux-gnu)

is_arch_target() { [ -n "${QEMU_OF_ARCH[$1]+x}" ] || [ "$1" = i386 ]; }
is_emulated() { [ -n "${QEMU_OF_ARCH[$1]:-}" ]; }
known_target() { is_arch_target "$1" || [ -n "${SUITE_OF_MAJOR[$1]:-}" ]; }

# Decides, once per run, how i386 runs: natively if this kernel runs 32-bit
# x86 binaries itself (arch-test -n: no emulator asked, with our qemu
# handler, if an earlier run left it, switched off for the question), else
# under user-mode qemu; LOCALITY_I386=qemu chooses qemu on any kernel (how
# the qemu path is tested on a machine that runs i386 natively), =native
# insists on native. Exports I386_RUNS (native or qemu) and I386_NATIVE
# (yes or no: the kernel's own support) so the streams and chroots a run
# starts agree; a run that runs i386 natively removes a handler left
# behind, which would send every i386 binary to qemu.
I386_QEMU_HANDLER=qemu-i386-locality-uuid
I386_HANDLER_PATH=/proc/sys/fs/binfmt_misc/$I386_QEMU_HANDLER
settle_i386() {
  if [ -z "${I386_RUNS:-}" ]; then
    ensure_packages arch-test || return 1
    local was_on=0
    if [ -e "$I386_HANDLER_PATH" ] && grep -qx enabled "$I386_HANDLER_PATH"; then
      was_on=1
      echo 0 >"$I386_HANDLER_PATH"
    fi
    if arch-test -n i386 >/dev/null 2>&1; then I386_NATIVE=yes; else I386_NATIVE=no; fi
    [ $was_on = 0 ] || echo 1 >"$I386_HANDLER_PATH"
    case ${LOCALITY_I386:-auto} in
    qemu) I386_RUNS=qemu ;;
    native) I386_RUNS=native ;;
    auto) if [ $I386_NATIVE = yes ]; then I386_RUNS=native; else I386_RUNS=qemu; fi ;;
    *) echo "LOCALITY_I386 is auto, native or qemu, not '$LOCALITY_I386'" >&2; return 1 ;;
    esac
    export I386_RUNS I386_NATIVE
    if [ $I386_RUNS = native ] && [ -e "$I386_HANDLER_PATH" ]; then echo -1 >"$I386_HANDLER_PATH"; fi
  fi
  [ "$I386_RUNS" = qemu ] && QEMU_OF_ARCH[i386]=i386
  return 0
}

# Registers qemu for one architecture with binfmt_misc (once; idempotent).
# Debian's handlers carry the F flag: the kernel opens qemu once, so it runs
# inside a chroot that has no qemu of its own. Debian ships no i386 handler
# for amd64 (its kernels run i386 natively): ours is qemu's own magic and
# mask for 32-bit x86 ELF, flag F. A handler in binfmt_misc comes before
# the kernel's own ELF loader, so once registered every i386 binary of this
# machine runs under qemu; a run that registered it on a kernel that runs
# i386 natively (LOCALITY_I386=qemu) removes it at its end
# (unregister_i386_qemu).
register_qemu() {
  local qemu=$1
  [ -e /proc/sys/fs/binfmt_misc/register ] ||
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null ||
    [ -e /proc/sys/fs/binfmt_misc/register ] || return 1
  if [ "$qemu" = i386 ]; then
    [ -e "$I386_HANDLER_PATH" ] && return 0
    printf '%s' ":$I386_QEMU_HANDLER:M::\\x7fELF\\x01\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\\x00\\x03\\x00:\\xff\\xff\\xff\\xff\\xff\\xfe\\xfe\\x00\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe\\xff\\xff\\xff:/usr/bin/qemu-i386-static:F" \
      >/proc/sys/fs/binfmt_misc/register
  else
    [ -e "/proc/sys/fs/binfmt_misc/qemu-$qemu" ] ||
      cat "/usr/lib/binfmt.d/qemu-$qemu.conf" >/proc/sys/fs/binfmt_misc/register
  fi
}
unregister_i386_qemu() {
  [ "${I386_NATIVE:-}" = yes ] && [ -e "$I386_HANDLER_PATH" ] || return 0
  echo -1 >"$I386_HANDLER_PATH"
}

# Installs Debian's cross compiler for ARCH where this machine is x86-64
# (the only loader and library directory run_in_chroot lends a chroot).
ensure_cross_compiler() {
  [ "$(dpkg --print-architecture)" = amd64 ] || return 1
  ensure_packages "g++-${CROSS_OF_ARCH[$1]}"
}
# The triplet of ARCH's cross compiler when this machine can lend it to the
# chroot; nothing (status 1) when it cannot.
usable_cross_compiler() {
  local triplet=${CROSS_OF_ARCH[$1]:-}
  [ -n "$triplet" ] && [ "$(dpkg --print-architecture)" = amd64 ] && [ -x "/usr/bin/$triplet-g++" ] &&
    [ -e /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 ] && echo "$triplet"
}

# This machine's Debian suite (bookworm).
host_suite() { . /etc/os-release && echo "${VERSION_CODENAME:?}"; }

# TARGET -> what a person reads: "PostgreSQL 13 (bullseye)", "s390x (bookworm, PostgreSQL 15)".
describe_target() {
  if is_arch_target "$1"; then
    echo "$1 ($(host_suite), PostgreSQL $PG_MAJOR$(is_emulated "$1" && echo ", emulated by qemu"))"
  else
    echo "PostgreSQL $1 (${SUITE_OF_MAJOR[$1]})"
  fi
}

# The major a target tests.
target_major() { if is_arch_target "$1"; then echo "$PG_MAJOR"; else echo "$1"; fi; }

# Makes this machine able to run ARCH's binaries: arch-test installed, for
# an emulated ARCH user-mode qemu, binfmt_misc mounted and ARCH's handler
# registered (a bare VM without systemd registers none by itself); then
# arch-test must agree. Run it for every architecture before starting
# anything in parallel (registering is not safe to race).
ensure_foreign_arch() {
  local arch=$1 qemu
  is_arch_target "$arch" || return 0
  # mmdebstrap checks every architecture not dpkg's own with arch-test,
  # i386 on amd64 included (a fresh machine has none).
  settle_i386 || return 1
  qemu=${QEMU_OF_ARCH[$arch]:-}
  if [ -n "$qemu" ]; then
    ensure_packages qemu-user-static || return 1
    register_qemu "$qemu" || { echo "could not register qemu-$qemu with binfmt_misc" >&2; return 1; }
    # Only speed depends on it: without it the chroot compiles under qemu.
    ensure_cross_compiler "$arch" || echo "no cross compiler for $arch: its chroot compiles under qemu" >&2
  fi
  arch-test "$arch" >/dev/null || { echo "this machine cannot run $arch binaries${qemu:+, even under qemu-$qemu}" >&2; return 1; }
}

# The Debian mirror this machine's apt uses (deb822 or one-line sources).
host_mirror() {
  local uri
  uri=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v -- '-security' | head -1)
  [ -n "$uri" ] || uri=$(grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}' | grep -v -- '-security' | head -1)
  echo "${uri:-http://deb.debian.org/debian}"
}

# mmdebstrap arguments for one target (an emulated one:
# emulated_chroot_recipe). Packages come from its suite's
# postgresql-server-dev-N, which pulls in that suite's clang and LLVM, and
# what building and checking the Debian packages takes (build-essential,
# dpkg-dev, debhelper, pg_buildext from postgresql-server-dev-all, lintian).
# sid and experimental Release files may carry an expired Valid-Until.
# While the chroot is made, dpkg leaves out manual pages, documentation,
# translations and info pages (nothing here reads them); the exclusion is
# removed at the end, so a package installed in the chroot later (the
# debian-package suite's own) installs whole.
chroot_recipe() {
  local target=$1 mirror path
  mirror=$(host_mirror)
  if is_emulated "$target"; then emulated_chroot_recipe "$target" "$mirror"; return; fi
  local common=(--variant=apt --aptopt='Acquire::Check-Valid-Until "false"'
                --include=make,g++,libssl-dev,libpq-dev,pkg-config,cmake,libgtest-dev,python3,locales,postgresql-common,postgresql-client-common)
  for path in man doc locale info; do common+=("--dpkgopt=path-exclude=/usr/share/$path/*"); done
  common+=(--include=build-essential,dpkg-dev,debhelper,postgresql-server-dev-all,lintian)
  local finish='--customize-hook=rm -f "$1/etc/dpkg/dpkg.cfg.d/99mmdebstrap"'
  if is_arch_target "$target"; then
    printf '%s\n' "${common[@]}" "--arch=$target" \
      "--include=postgresql-$PG_MAJOR,postgresql-server-dev-$PG_MAJOR" "$finish" "$(host_suite)" "$mirror"
  elif [ "${SUITE_OF_MAJOR[$target]}" = experimental ]; then
    printf '%s\n' "${common[@]}" \
      "--setup-hook=echo 'deb $mirror experimental main' > \"\$1/etc/apt/sources.list.d/experimental.list\"" \
      "--customize-hook=chroot \"\$1\" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -t experimental postgresql-$target postgresql-server-dev-$target" \
      "$finish" sid "$mirror"
  else
    printf '%s\n' "${common[@]}" \
      "--include=postgresql-$target,postgresql-server-dev-$target" "$finish" "${SUITE_OF_MAJOR[$target]}" "$mirror"
  fi
}

# An emulated architecture's chroot (arm64, s390x, i386 under qemu): its
# packages unpacked natively and nothing configured under qemu (mmdebstrap's
# extract variant), what configuring would have done done natively by
# scripts/chroot_emulated_hook.sh. The essential set and what the emulated
# suites use; clang and LLVM, which postgresql-server-dev-N depends on, stand
# in as installed and are never downloaded (the module is built there with
# with_llvm=no). On an idle machine about a minute, where configuring under
# qemu took 10 (arm64: 624 s, of which 540 s under qemu).
emulated_chroot_recipe() {
  local target=$1 mirror=$2 stubs hook="$ROOT/scripts/chroot_emulated_hook.sh"
  # (The names from the installed package, not from apt's lists, so the
  # recipe and its key do not change when the lists do.)
  stubs=$(dpkg-query -W -f '${Depends}' "postgresql-server-dev-$PG_MAJOR" | tr ',' '\n' |
            sed -n 's/^ *\(clang-[0-9]*\|llvm-[0-9]*-dev\)\( .*\)\?$/\1/p' | tr '\n' ' ')
  printf '%s\n' --variant=extract --aptopt='Acquire::Check-Valid-Until "false"' \
    "--include=?essential" "--include=usr-is-merged,make,g++,libssl-dev,libpq-dev,pkg-config,cmake,libgtest-dev,python3,openssl,postgresql-common,postgresql-client-common,postgresql-$PG_MAJOR,postgresql-server-dev-$PG_MAJOR" \
    "--setup-hook=sh '$hook' setup \"\$1\" $stubs" "--extract-hook=sh '$hook' extract \"\$1\"" \
    "--arch=$target" "$(host_suite)" "$mirror"
}

chroot_tarball() {
  local key name
  # (An emulated chroot is also keyed by its hooks, never by where this
  # tree is.)
  key=$({ chroot_recipe "$1"; ! is_emulated "$1" || cat "$ROOT/scripts/chroot_emulated_hook.sh"; } |
          sed "s|$ROOT/|ROOT/|g" | sha256sum | cut -c1-12)
  # (An emulated i386 chroot is another recipe: a name of its own, so
  # neither mode's tarball replaces the other's.)
  if is_arch_target "$1"; then name="$1$([ "$1" = i386 ] && is_emulated i386 && echo -qemu)-$(host_suite)-pg$PG_MAJOR"
  else name="pg$1-${SUITE_OF_MAJOR[$1]}"; fi
  echo "$CHROOT_CACHE/$name-$key.tar"
}

# Makes the cached tarball of one target's chroot unless it exists.
prepare_chroot() {
  local target=$1 tarball args=()
  ensure_foreign_arch "$target" || return 1
  tarball=$(chroot_tarball "$target")
  [ -s "$tarball" ] && return 0
  mkdir -p "$CHROOT_CACHE"
  mapfile -t args < <(chroot_recipe "$target")
  local suite_mirror=("${args[@]: -2}")
  unset 'args[-1]' 'args[-1]'
  local part
  part=$(mktemp "$CHROOT_CACHE/.$target.XXXXXX.tar")
  # In a mount namespace of its own: the /dev, /proc and /sys mmdebstrap
  # mounts in its working directory vanish with it, also when it is killed
  # (they stayed behind in /tmp before). The limit ends a hang: a native
  # chroot takes 5 to 8 minutes idle, up to 23 beside a cold run's suites.
  timeout 5400 unshare --mount --propagation private \
    mmdebstrap -q --format=tar "${args[@]}" "${suite_mirror[0]}" "$part" "${suite_mirror[1]}" ||
    { rm -f "$part"; return 1; }
  mv "$part" "$tarball"
  # Tarballs of this target's earlier recipes are of no further use.
  local stem
  stem=$(basename "$tarball"); stem=${stem%-*.tar}
  find "$CHROOT_CACHE" -maxdepth 1 -name "$stem-*.tar" ! -path "$tarball" -delete
}

# lend_host_usr DIR: this machine's /usr, read-only at DIR/host/usr (once,
# whoever lends from it first: the cross compiler, the compiler cache).
# Run inside run_in_chroot's private mount namespace.
lend_host_usr() {
  mountpoint -q "$1/host/usr" && return 0
  mkdir -p "$1/host/usr"
  mount --bind /usr "$1/host/usr"
  mount -o remount,bind,ro "$1/host/usr"
}

# run_in_chroot TARGET [COMMAND...]: runs COMMAND (default: the per-major
# suites, scripts/test.sh --this-major) in /src of a fresh copy of one
# target's chroot, with this source tree (tracked and untracked, not
# ignored files) copied in. Its output goes to stdout; its exit code is
# COMMAND's. COMMAND sees PG_MAJOR, and for an architecture target
# LOCALITY_ARCH and LOCALITY_EMULATED (1 under qemu).
# Whatever COMMAND wrote under bench/results/ is copied back to this tree's
# bench/results/ (ignored by git), so a benchmark's CSV and plots made in
# another major outlive the throw-away chroot.
#
# The chroot gets its own /proc, a /dev of its own (a tmpfs with the few
# device nodes PostgreSQL and the compilers use, never the host's /dev) and
# a /dev/shm, all mounted inside a private mount namespace: they vanish
# with it and never propagate to the host, so deleting the directory
# afterwards cannot reach anything outside it. Its network namespace has
# only a loopback interface (no network: its packages are all in the
# tarball). COMMAND sees LOCALITY_CHROOT=1.
run_in_chroot() {
  local target=$1 dir rc=0 major arch="" emulated=0 cross="" multiarch=""
  shift
  [ $# -gt 0 ] || set -- bash scripts/test.sh --this-major
  major=$(target_major "$target")
  if is_arch_target "$target"; then
    arch=$target
    if is_emulated "$target"; then
      emulated=1
      cross=$(usable_cross_compiler "$target") && multiarch=${MULTIARCH_OF_ARCH[$target]}
    fi
  fi
  dir=$(mktemp -d "/var/tmp/locality-uuid-$target.XXXXXX")
  export -f lend_host_usr compiler_cache_in_chroot compiler_cache_chroot_env
  if ensure_foreign_arch "$target" &&
     tar -xf "$(chroot_tarball "$target")" -C "$dir" &&
     mkdir -p "$dir/src" &&
     (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
        tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$dir/src"; then
    timeout --kill-after=30 "${CHROOT_TIMEOUT:-4800}" \
      unshare --mount --net --propagation private bash -c '
        set -e
        dir=$1 major=$2 arch=$3 emulated=$4 cross=$5 multiarch=$6
        shift 6
        # A network namespace of its own (loopback only), so its servers
        # never meet the ports of the servers outside while both run tests.
        ip link set lo up
        mount -t proc proc "$dir/proc"
        mount -t tmpfs -o mode=755,size=16m tmpfs "$dir/dev"
        for node in "null 1 3" "zero 1 5" "full 1 7" "random 1 8" "urandom 1 9" "tty 5 0"; do
          read -r name dev_major dev_minor <<<"$node"
          mknod -m 666 "$dir/dev/$name" c "$dev_major" "$dev_minor"
        done
        ln -s /proc/self/fd "$dir/dev/fd"
        mkdir "$dir/dev/shm"
        mount -t tmpfs -o mode=1777,size=2g tmpfs "$dir/dev/shm"
        # Under qemu, this machine lends its cross compiler for the
        # architecture (its /usr, read-only at /host/usr), run natively: its x86-64
        # loader and libraries are linked where it looks for them, paths
        # the chroot itself never uses (a chroot that has one of them is
        # lent nothing). Wrappers in /usr/local/lib/locality-cross link
        # against the chroot libraries first (the linker scripts of the
        # cross libc name /usr/TRIPLET, which the chroot has not). They are
        # used (LOCALITY_CROSS) only when the lent GCC is the version of
        # the chroot g++; else the chroot compiles under qemu, as it says.
        cross_dir=""
        if [ -n "$cross" ] && [ ! -e "$dir/lib64" ] && [ ! -L "$dir/lib64" ] &&
           [ ! -e "$dir/usr/lib/x86_64-linux-gnu" ] && [ ! -L "$dir/usr/lib/x86_64-linux-gnu" ]; then
          mkdir -p "$dir/usr/lib64" "$dir/usr/local/lib/locality-cross"
          lend_host_usr "$dir"
          ln -s usr/lib64 "$dir/lib64"
          ln -s /host/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$dir/usr/lib64/ld-linux-x86-64.so.2"
          ln -s /host/usr/lib/x86_64-linux-gnu "$dir/usr/lib/x86_64-linux-gnu"
          for tool in gcc g++; do
            printf "#!/bin/sh\nexec /host/usr/bin/%s-%s -L/usr/lib/%s \"\$@\"\n" "$cross" "$tool" "$multiarch" \
              >"$dir/usr/local/lib/locality-cross/$tool"
            chmod 755 "$dir/usr/local/lib/locality-cross/$tool"
          done
          lent=$("/usr/bin/$cross-g++" -dumpfullversion 2>/dev/null || echo "none")
          own=$(chroot "$dir" g++ -dumpfullversion 2>/dev/null || echo "none")
          if [ "$lent" = "$own" ]; then
            cross_dir=/usr/local/lib/locality-cross
            echo "compiled natively by the cross compiler $cross-g++ $lent (the version of the chroot g++); run under qemu"
          else
            echo "compiled under qemu: the cross compiler $cross-g++ is $lent, the chroot g++ $own"
          fi
        elif [ "$emulated" = 1 ]; then
          echo "compiled under qemu: no cross compiler to lend${cross:+ (the chroot has /lib64 or /usr/lib/x86_64-linux-gnu)}"
        fi
        # The compiler cache of this machine, lent (scripts/compiler_cache.sh)
        compiler_cache_in_chroot "$dir" "$cross_dir"
        exec chroot "$dir" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
          PG_MAJOR="$major" LOCALITY_ARCH="$arch" LOCALITY_EMULATED="$emulated" LOCALITY_CROSS="$cross_dir" LOCALITY_CHROOT=1 \
          $(compiler_cache_chroot_env) bash -c "cd /src && exec \"\$@\"" in-chroot "$@"
      ' chroot-"$target" "$dir" "$major" "$arch" "$emulated" "$cross" "$multiarch" "$@" || rc=$?
  else
    echo "could not set up the $(describe_target "$target") chroot in $dir" >&2
    rc=1
  fi
  if [ -d "$dir/src/bench/results" ]; then
    mkdir -p "$ROOT/bench/results"
    cp -a "$dir/src/bench/results/." "$ROOT/bench/results/"
  fi
  # A command stopped by the timeout can leave servers behind (pg_ctl starts
  # them in a session of their own): every process whose root is this
  # chroot goes, so the namespace and its mounts go with them.
  local proc left=0
  for proc in /proc/[0-9]*; do
    [ "$(readlink "$proc/root" 2>/dev/null)" = "$dir" ] || continue
    kill -9 "${proc#/proc/}" 2>/dev/null && left=$((left + 1))
  done
  [ $left -eq 0 ] || { echo "stopped $left process(es) left in the chroot" >&2; sleep 2; }
  # The namespace is gone with its last process; check anyway before
  # deleting, never through a mount.
  if grep -q " $dir/" /proc/mounts; then
    echo "mounts still present under $dir; not removing it" >&2
  else
    rm -rf "$dir"
  fi
  return $rc
}

# new_lane: makes the directory of a second lane (see run_in_lane) with a
# copy of this tree in it, the build outputs included, and prints it. Made
# at once, before the other lane goes on building and cleaning in the tree.
new_lane() {
  local dir
  dir=$(mktemp -d /var/tmp/locality-uuid-lane.XXXXXX) &&
    mkdir "$dir/upper" "$dir/work" "$dir/root" "$dir/tree" &&
    (cd "$ROOT" && tar --exclude='./build' --exclude='./build-*' --exclude=./results --exclude=./bench/results \
       --exclude='./crash-*' -cf - .) | tar -xf - -C "$dir/tree" &&
    echo "$dir" && return 0
  [ -z "$dir" ] || rm -rf "$dir"
  return 1
}

# run_in_lane DIR LOGS COMMAND...: runs COMMAND beside this machine's own
# suites, on this machine's own software, in a second "lane" (DIR, from
# new_lane): an overlay of this machine's root (its writes go to a
# throw-away upper directory, so the packages, the installed module and the
# files it writes are its own), in a mount namespace of its own with its
# own /run (the servers' sockets) and /dev/shm, and a network namespace
# with only a loopback interface (its servers' ports never meet the other
# lane's). COMMAND runs in DIR's copy of the tree; LOGS, a directory of
# this machine, is shared at the same path so the lane's logs outlive it.
# What COMMAND writes under bench/results/ is copied back to this tree's,
# as from a chroot. Its own PID namespace too: whatever it leaves running
# (a server of a suite stopped by its timeout) ends with it. Returns
# COMMAND's status; 97 when the lane could not be set up (no namespaces or
# no overlay of the root here, say): COMMAND never started.
run_in_lane() {
  local dir=$1 logs=$2 rc=0
  shift 2
  [ -n "$dir" ] && [ -d "$dir/tree" ] || { echo "no lane directory '$dir'" >&2; return 97; }
  timeout --kill-after=30 "${LANE_TIMEOUT:-5400}" \
    unshare --mount --net --ipc --pid --fork --kill-child --propagation private bash -c '
      set -e
      dir=$1 logs=$2
      shift 2
      ip link set lo up
      mount -t overlay overlay -o "lowerdir=/,upperdir=$dir/upper,workdir=$dir/work" "$dir/root"
      mount -t proc proc "$dir/root/proc"
      mount --rbind /sys "$dir/root/sys"
      mount --rbind /dev "$dir/root/dev"
      mount -t tmpfs -o mode=1777,size=2g tmpfs "$dir/root/dev/shm"
      mount -t tmpfs -o mode=755 tmpfs "$dir/root/run"
      chroot "$dir/root" install -d -o postgres -g postgres -m 2775 /run/postgresql
      # (Where /tmp or /var/tmp is a file system of its own, the overlay
      # has only its mount point.)
      mkdir -p "$dir/root$dir/tree" "$dir/root$logs"
      mount --bind "$dir/tree" "$dir/root$dir/tree"
      mount --bind "$logs" "$dir/root$logs"
      # The compiler cache is shared, not the overlay copy of it.
      [ -z "${CCACHE_DIR:-}" ] || mount --bind "$CCACHE_DIR" "$dir/root$CCACHE_DIR"
      : >"$dir/started"
      exec chroot "$dir/root" bash -c "cd \"\$0\" && exec \"\$@\"" "$dir/tree" "$@"
    ' lane "$dir" "$logs" "$@" || rc=$?
  [ -e "$dir/started" ] || rc=97
  if [ -d "$dir/tree/bench/results" ]; then
    mkdir -p "$ROOT/bench/results"
    cp -a "$dir/tree/bench/results/." "$ROOT/bench/results/"
  fi
  # Its files: the overlay and its bind mounts existed only in its
  # namespaces, gone with its last process, and were never seen from here.
  if grep -q " $dir/" /proc/mounts; then
    echo "mounts still present under $dir; not removing it" >&2
  else
    rm -rf "$dir"
  fi
  return $rc
}
