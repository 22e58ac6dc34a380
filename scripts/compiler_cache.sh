# The compiler cache of a test run (ccache): the compiler runs of
# scripts/test.sh (the module and its bitcode, the CLI, the unit tests, the
# Debian package, the sanitizer and fuzzer builds, the test shims) go
# through it, on this machine, in its second lane and in each chroot, so a
# run whose sources did not change compiles next to nothing again. Source
# it after common.sh.
#
# Why a hit is honest: ccache's key is the source and every header it
# includes, every option, and the compiler itself (its name, size and
# mtime; a chroot's compilers keep their mtimes from the cached tarball); a
# hit is the object that compiler would make, and its warnings are printed
# again. A compile that fails (any warning, under -Werror) is never cached,
# so it fails again. The objects may come from the cache; the module is
# still linked, installed and compared byte for byte with the build before
# any suite runs (build_and_install_extension).
#
# The tree's own path is left out of the key (CCACHE_BASEDIR, set to the
# tree by common.sh, or to a suite's copy by that suite; CCACHE_NOHASHDIR
# leaves the working directory out of the debug information's key), so a
# fresh clone elsewhere hits too. A cold run moves /var/cache/locality-uuid
# aside, this cache with the chroots (doc/development.md).
COMPILER_CACHE=${COMPILER_CACHE:-/var/cache/locality-uuid/ccache}
COMPILER_CACHE_SIZE=${COMPILER_CACHE_SIZE:-4G}
# This machine's loader and libraries, as a chroot sees them when they are
# lent (compiler_cache_in_chroot).
export HOST_LOADER=/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
export HOST_LIBS=/usr/lib/x86_64-linux-gnu

# On this machine: ccache installed and its directory ready; Debian's
# masquerading directory (gcc, g++, cc, c++, clang-N, ... as ccache) first
# in PATH (LOCALITY_COMPILER_PATH, which common.sh keeps first), and the
# launcher the Makefile puts before PGXS's clang (named by its full path,
# so no PATH reaches it). The chroots are lent this ccache only where this
# machine's loader can run it for them (an x86-64 machine with merged
# /usr): LOCALITY_LEND_CCACHE=1. Without ccache (it cannot be installed
# here) the run goes on uncached, and says so: the cache changes speed only.
use_compiler_cache() {
  if ! ensure_packages ccache || ! install -d -m 755 "$COMPILER_CACHE" ||
     ! CCACHE_DIR=$COMPILER_CACHE ccache --max-size "$COMPILER_CACHE_SIZE" >/dev/null; then
    log "no compiler cache: every compile runs"
    return 0
  fi
  export CCACHE_DIR=$COMPILER_CACHE CCACHE_NOHASHDIR=1 CCACHE_BASEDIR=$ROOT
  ccache --zero-stats >/dev/null
  export LOCALITY_COMPILER_PATH=/usr/lib/ccache LOCALITY_COMPILER_LAUNCHER=ccache
  PATH=$LOCALITY_COMPILER_PATH:$PATH
  if [ "$(dpkg --print-architecture)" = amd64 ] &&
     "$HOST_LOADER" --library-path "$HOST_LIBS" /usr/bin/ccache --version >/dev/null 2>&1; then
    export LOCALITY_LEND_CCACHE=1
  fi
}

# One line: what the cache did for the whole run, the chroots' compiles
# included (they share it).
compiler_cache_summary() {
  [ -n "${LOCALITY_COMPILER_LAUNCHER:-}" ] || return 0
  ccache --print-stats 2>/dev/null | awk -F'\t' '
    $1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { hits += $2 }
    $1 == "cache_miss" { misses = $2 }
    END { printf "compiler cache: %d hits, %d misses\n", hits, misses }'
}

# compiler_cache_in_chroot DIR [CROSS_WRAPPERS]: run inside run_in_chroot's
# mount namespace before the chroot starts. This machine's ccache is lent to
# the chroot, run natively by this machine's loader from its /usr (mounted
# read-only at /host/usr: lend_host_usr, scripts/chroot.sh), whatever the
# chroot's own glibc or architecture: /usr/local/lib/locality-ccache/ccache
# runs it, and gcc, g++, cc, c++ and their triplet names in its bin/ run
# the chroot's own compilers through it (first in the PATH common.sh sets:
# LOCALITY_COMPILER_PATH); a chroot lent a cross compiler gets ccache in
# those wrappers (CROSS_WRAPPERS). The cache directory is shared, at
# /var/cache/locality-ccache. LD_PRELOAD is emptied for ccache and the
# compilers it runs: a library the chroot preloads is built for the
# chroot's glibc, not this machine's.
compiler_cache_in_chroot() {
  local dir=$1 cross_wrappers=${2:-} tool wrapdir=/usr/local/lib/locality-ccache
  [ "${LOCALITY_LEND_CCACHE:-0}" = 1 ] || return 0
  mkdir -p "$dir/var/cache/locality-ccache" "$dir$wrapdir/bin"
  lend_host_usr "$dir"
  mount --bind "$CCACHE_DIR" "$dir/var/cache/locality-ccache"
  printf '#!/bin/sh\nLD_PRELOAD= exec /host%s --library-path /host%s /host/usr/bin/ccache "$@"\n' \
    "$HOST_LOADER" "$HOST_LIBS" >"$dir$wrapdir/ccache"
  chmod 755 "$dir$wrapdir/ccache"
  # PGXS names its compilers by their triplet (x86_64-linux-gnu-gcc,
  # -g++): those are wrapped too, except in a chroot lent a cross
  # compiler, where the triplet names are the lent compiler's, whose
  # wrappers (below) already run ccache.
  for tool in gcc g++ cc c++ $([ -n "$cross_wrappers" ] || { cd "$dir/usr/bin" &&
                              ls -- *-linux-gnu*-gcc *-linux-gnu*-g++ 2>/dev/null; }); do
    printf '#!/bin/sh\nexec %s/ccache /usr/bin/%s "$@"\n' "$wrapdir" "$tool" >"$dir$wrapdir/bin/$tool"
    chmod 755 "$dir$wrapdir/bin/$tool"
  done
  if [ -n "$cross_wrappers" ]; then
    for tool in "$dir$cross_wrappers"/*; do
      sed -i "s|^exec |exec $wrapdir/ccache |" "$tool"
    done
  fi
}

# The environment a chroot's command gets with it (NAME=VALUE words for
# env): the same condition as compiler_cache_in_chroot's mounts.
compiler_cache_chroot_env() {
  [ "${LOCALITY_LEND_CCACHE:-0}" = 1 ] || return 0
  echo "CCACHE_DIR=/var/cache/locality-ccache CCACHE_NOHASHDIR=1" \
       "LOCALITY_COMPILER_PATH=/usr/local/lib/locality-ccache/bin" \
       "LOCALITY_COMPILER_LAUNCHER=/usr/local/lib/locality-ccache/ccache"
}
