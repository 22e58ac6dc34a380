# mmdebstrap hooks that make an emulated architecture's chroot (arm64,
# s390x, i386 under qemu) without running anything under qemu but one
# ldconfig: the recipe (chroot_recipe in scripts/chroot.sh) is mmdebstrap's
# extract variant, which downloads the packages and unpacks them natively
# and configures nothing. Configuring them under qemu (maintainer scripts,
# triggers, locales, a main cluster's initdb) took about 10 of a chroot's
# 11 minutes on an idle machine, and up to 57 beside a run's suites.
#
# What the configuring would have done that the emulated suites use
# (build-install, unit-tests, regress-preloaded, cli and, on arm64,
# identity_late: a build by the lent cross compiler, pg_virtualenv,
# pg_regress, python3, servers run by runuser) is done here instead, from
# the host, in the chroot's files: dpkg's status (ensure_packages asks
# dpkg-query), users and groups, alternatives, PAM's common files, the
# snakeoil key, the postgresql-common files and directories, merged /usr,
# ld.so.cache. The
# Debian-packaging suite, the only one that installs packages, never runs
# under qemu. Anything another emulated suite needs later goes here too.
#
#   sh chroot_emulated_hook.sh setup ROOT PACKAGE...   (--setup-hook)
#   sh chroot_emulated_hook.sh extract ROOT            (--extract-hook)
#
# The chroot's tarball is keyed by this file too (chroot_tarball), so an edit
# makes the chroot again.
set -eu
stage=$1 r=$2
shift 2

if [ "$stage" = setup ]; then
  # Before anything is downloaded. Merged /usr, as bookworm's usrmerge
  # leaves it (tar follows these links when it unpacks), without /lib64 (a
  # chroot that has it is lent no cross compiler: run_in_chroot).
  for d in bin sbin lib; do
    mkdir -p "$r/usr/$d"
    [ -e "$r/$d" ] || [ -L "$r/$d" ] || ln -s "usr/$d" "$r/$d"
    [ "$(readlink "$r/$d")" = "usr/$d" ] || { echo "/$d is not a link to usr/$d" >&2; exit 1; }
  done
  # PACKAGE... (clang-N and llvm-N-dev, which postgresql-server-dev-N
  # depends on) count as installed, so neither they nor what only they
  # pull in (about 100 MB, and the LLVM closure) is downloaded: under qemu
  # the module is built without bitcode (emulated_build_options:
  # with_llvm=no), so nothing runs clang.
  for p in "$@"; do
    printf 'Package: %s\nStatus: install ok installed\nVersion: 99:0\nArchitecture: all\nMaintainer: locality_uuid\nDescription: stand-in (under qemu the module is built with with_llvm=no)\n\n' "$p"
  done >>"$r/var/lib/dpkg/status"
  exit 0
fi

[ "$stage" = extract ] || { echo "usage: $0 setup|extract ROOT [PACKAGE...]" >&2; exit 2; }

# dpkg's status: every unpacked package, installed (MMDEBSTRAP_ESSENTIAL
# names their debs, under the chroot).
for deb in ${MMDEBSTRAP_ESSENTIAL:?}; do
  printf 'Package: %s\nStatus: install ok installed\n' "$(dpkg-deb -f "$r$deb" Package)"
  dpkg-deb -f "$r$deb" | grep -v '^Package:'
  echo
done >>"$r/var/lib/dpkg/status"

# Users and groups (base-passwd's masters), and postgresql-common's:
# postgres, in ssl-cert to read the snakeoil key.
cp "$r/usr/share/base-passwd/passwd.master" "$r/etc/passwd"
cp "$r/usr/share/base-passwd/group.master" "$r/etc/group"
echo 'postgres:x:100:102:PostgreSQL administrator,,,:/var/lib/postgresql:/bin/bash' >>"$r/etc/passwd"
printf 'ssl-cert:x:101:postgres\npostgres:x:102:\n' >>"$r/etc/group"

# What libc-bin, netbase, tzdata and base-files set up: name lookup,
# localhost (pg_virtualenv connects to it), UTC, /var/run and /var/lock as
# links into /run (never written through from here: /run is this machine's
# until the chroot runs), /usr/local.
cp "$r/usr/share/libc-bin/nsswitch.conf" "$r/etc/"
printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$r/etc/hosts"
ln -sf /usr/share/zoneinfo/Etc/UTC "$r/etc/localtime"
echo Etc/UTC >"$r/etc/timezone"
[ -L "$r/var/run" ] || { rmdir "$r/var/run" 2>/dev/null || true; ln -s /run "$r/var/run"; }
[ -L "$r/var/lock" ] || { rmdir "$r/var/lock" 2>/dev/null || true; ln -s /run/lock "$r/var/lock"; }
install -d -m 1777 "$r/run/lock"
for d in bin sbin lib include src etc games share/man; do mkdir -p "$r/usr/local/$d"; done

# The alternatives the suites use: awk (pg_virtualenv's password), cc, c++
# and cpp (the test shims, cmake).
alt() {
  mkdir -p "$r/etc/alternatives"
  ln -sf "$3" "$r/etc/alternatives/$1"
  ln -sf "/etc/alternatives/$1" "$r$2"
}
alt awk /usr/bin/awk /usr/bin/mawk
alt cc /usr/bin/cc /usr/bin/gcc
alt c++ /usr/bin/c++ /usr/bin/g++
alt cpp /usr/lib/cpp /usr/bin/cpp

# libpam-runtime's postinst (pam-auth-update) with the one profile it
# enables here, unix (mkhomedir is "Default: no"): without them runuser
# (as_postgres in the suites' servers.sh) stops at once ("runuser: Critical
# error - immediate abort", checked in this chroot).
pam() {
  printf '%s\t[%s]\tpam_unix.so%s\n%s\trequisite\t\t\tpam_deny.so\n%s\trequired\t\t\tpam_permit.so\n' \
    "$2" "$3" "$4" "$2" "$2" >"$r/etc/pam.d/common-$1"
}
pam auth auth 'success=1 default=ignore' ' nullok'
pam account account 'success=1 new_authtok_reqd=done default=ignore' ' '
pam password password 'success=1 default=ignore' ' obscure yescrypt'
for f in session session-noninteractive; do
  printf 'session\t[default=1]\t\t\tpam_permit.so\nsession\trequisite\t\t\tpam_deny.so\nsession\trequired\t\t\tpam_permit.so\nsession\trequired\tpam_unix.so \n' \
    >"$r/etc/pam.d/common-$f"
done

# ssl-cert's snakeoil key and certificate, as its postinst makes them:
# clusters keep ssl = on, as in every other chroot.
install -d -m 710 -g 101 "$r/etc/ssl/private"
openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj /CN=localhost \
  -keyout "$r/etc/ssl/private/ssl-cert-snakeoil.key" -out "$r/etc/ssl/certs/ssl-cert-snakeoil.pem" 2>/dev/null
chgrp 101 "$r/etc/ssl/private/ssl-cert-snakeoil.key"
chmod 640 "$r/etc/ssl/private/ssl-cert-snakeoil.key"

# postgresql-common: its configuration (ucf's copy), the postgres user's
# directories, and /usr/bin/pg_config as its diversion of libpq-dev's
# leaves it (the last deb unpacked owns the path otherwise).
mkdir -p "$r/etc/postgresql-common"
cp "$r/usr/share/postgresql-common/createcluster.conf" "$r/etc/postgresql-common/"
install -d -o 100 -g 102 "$r/var/lib/postgresql" "$r/etc/postgresql"
install -d -m 2775 -o 100 -g 102 "$r/run/postgresql"
install -d -m 1775 -g 102 "$r/var/log/postgresql"
archives=$r/var/cache/apt/archives
dpkg-deb --fsys-tarfile "$archives"/libpq-dev_*.deb | tar -xO ./usr/bin/pg_config >"$r/usr/bin/pg_config.libpq-dev"
chmod 755 "$r/usr/bin/pg_config.libpq-dev"
dpkg-deb --fsys-tarfile "$archives"/postgresql-common_*.deb | tar -x -C "$r" ./usr/bin/pg_config
printf '/usr/bin/pg_config\n/usr/bin/pg_config.libpq-dev\npostgresql-common\n' >>"$r/var/lib/dpkg/diversions"

# What the apt recipe leaves out as well (nothing here reads it).
rm -rf "$r"/usr/share/doc/* "$r"/usr/share/man/* "$r"/usr/share/info/* "$r"/usr/share/locale/*

# The one program run under qemu: the loader's cache.
chroot "$r" /sbin/ldconfig
