# The compiler cache of a test run (ccache): every compiler run of
# scripts/test.sh (the module and its bitcode, the CLI, the unit tests, the
# Debian package, the sanitizer and fuzzer builds, the test shims), on this
# machine and in each chroot, goes through it, so a run whose sources did
# not change compiles next to nothing again. Source it after common.sh.
#
# Why a hit is honest: ccache's key is the source and every header it
# includes, every option, and the compiler itself (its path, size and
# mtime; a chroot's compilers keep their mtimes from the cached tarball); a
# hit is the object that compiler would make, and its warnings are printed
# again. A compile that fails (any warning, under -Werror) is never cached,
# so it fails again. Tests never run against a cached build: the module is
# built, installed and compared as before (build_and_install_extension).
#
# The tree's own path is left out of the key (CCACHE_BASEDIR rewrites it to
# relative paths, CCACHE_NOHASHDIR leaves the working directory out of the
# debug information's key), so a fresh clone elsewhere hits too. A cold
# run moves $COMPILER_CACHE aside with the chroots (doc/development.md).
COMPILER_CACHE=${COMPILER_CACHE:-/var/cache/locality-uuid/ccache}
COMPILER_CACHE_SIZE=${COMPILER_CACHE_SIZE:-4G}

# On this machine: ccache installed, its directory ready, Debian's
# masquerading directory (gcc, g++, cc, c++, clang-N, ... as ccache) first
# in PATH (LOCALITY_COMPILER_PATH, which common.sh keeps first), and the launcher the Makefile puts before PGXS's clang (which
# PGXS names by its full path, so no PATH reaches it). Exports what the
# suites, the lane and the chroots (run_in_chroot) use.
use_compiler_cache() {
  ensure_packages ccache || return 1
  mkdir -p "$COMPILER_CACHE" || return 1
  # Builds run as root here; a suite's shims may be compiled as another user.
  chmod 1777 "$COMPILER_CACHE"
  export CCACHE_DIR=$COMPILER_CACHE CCACHE_BASEDIR=$ROOT CCACHE_NOHASHDIR=1 CCACHE_UMASK=000
  ccache --max-size "$COMPILER_CACHE_SIZE" >/dev/null || return 1
  ccache --zero-stats >/dev/null
  export LOCALITY_COMPILER_PATH=/usr/lib/ccache LOCALITY_COMPILER_LAUNCHER=ccache
  PATH=$LOCALITY_COMPILER_PATH:$PATH
}

# One line: what the cache did for this run (or this chroot).
compiler_cache_summary() {
  ccache --print-stats 2>/dev/null | awk -F'\t' '
    $1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { hits += $2 }
    $1 == "cache_miss" { misses = $2 }
    END { printf "compiler cache: %d hits, %d misses\n", hits, misses }'
}

# compiler_cache_in_chroot DIR [CROSS_WRAPPERS]: run inside run_in_chroot's
# mount namespace before the chroot starts. This machine's ccache is lent to
# the chroot, run natively by this machine's loader from its /usr (mounted
# read-only at /host/usr), whatever the chroot's own glibc or architecture:
# /usr/local/lib/locality-ccache/ccache runs it, and gcc, g++, cc and c++
# there run the chroot's own compilers through it (first in the PATH
# common.sh sets: LOCALITY_COMPILER_PATH); a chroot lent a cross compiler gets it in its wrappers
# (CROSS_WRAPPERS). The cache directory is shared, mounted at
# /var/cache/locality-ccache. LD_PRELOAD is cleared for ccache alone: a
# library the chroot preloads (fakeroot) is built for the chroot's glibc.
compiler_cache_in_chroot() {
  local dir=$1 cross_wrappers=${2:-} tool wrapdir=/usr/local/lib/locality-ccache
  [ -n "${CCACHE_DIR:-}" ] || return 0
  mkdir -p "$dir/host/usr" "$dir/var/cache/locality-ccache" "$dir$wrapdir/bin"
  mount --bind /usr "$dir/host/usr"
  mount -o remount,bind,ro "$dir/host/usr"
  mount --bind "$CCACHE_DIR" "$dir/var/cache/locality-ccache"
  printf '#!/bin/sh\nLD_PRELOAD= exec /host/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 --library-path /host/usr/lib/x86_64-linux-gnu /host/usr/bin/ccache "$@"\n' \
    >"$dir$wrapdir/ccache"
  chmod 755 "$dir$wrapdir/ccache"
  for tool in gcc g++ cc c++; do
    printf '#!/bin/sh\nexec %s/ccache /usr/bin/%s "$@"\n' "$wrapdir" "$tool" >"$dir$wrapdir/bin/$tool"
    chmod 755 "$dir$wrapdir/bin/$tool"
  done
  if [ -n "$cross_wrappers" ]; then
    for tool in "$dir$cross_wrappers"/*; do
      sed -i "s|^exec |exec $wrapdir/ccache |" "$tool"
    done
  fi
}

# The environment a chroot's command gets with it (env NAME=VALUE ...).
compiler_cache_chroot_env() {
  [ -n "${CCACHE_DIR:-}" ] || return 0
  echo "CCACHE_DIR=/var/cache/locality-ccache CCACHE_BASEDIR=/src CCACHE_NOHASHDIR=1 CCACHE_UMASK=000" \
       "LOCALITY_COMPILER_PATH=/usr/local/lib/locality-ccache/bin LOCALITY_COMPILER_LAUNCHER=/usr/local/lib/locality-ccache/ccache"
}
