#!/bin/sh
# What the SQL edition's sources make, for the scripts that check, dump and
# drop it:
#   signatures.sh SOURCE...            its routines, one per line, as
#                                      name(argument types): their COMMENT ON
#                                      lines (every routine has one, the tests
#                                      count what an uninstall leaves), and
#                                      the routines an upgrade drops
#                                      (retired.sql's "-- retired routine:"
#                                      lines)
#   signatures.sh --names SOURCE...    the names alone
#   signatures.sh --sequences          its 72 sequences (counters.sql: three
#                                      counters, four set values, the
#                                      session cache, the 64 run slots)
#   signatures.sh --relations          the sequences and the lock's view
set -eu
sequences() {
  printf '%s\n' locality_uuid_variable_seq locality_uuid_at_seq locality_uuid_hot_seq \
    locality_uuid_home_system locality_uuid_home_database locality_uuid_home_timeline locality_uuid_run_start \
    locality_uuid_session
  for slot in $(seq -w 0 63); do echo "locality_uuid_run_$slot"; done
}
case $1 in
--sequences) sequences; exit 0 ;;
--relations) sequences; echo locality_uuid_lock; exit 0 ;;
esac
names=no
if [ "$1" = --names ]; then names=yes; shift; fi
sigs=$(sed -n -E -e 's/^ *COMMENT ON (FUNCTION|PROCEDURE) (@extschema@\.)?([a-z_0-9]+\([^)]*\)) IS$/\3/p' \
                 -e 's/^-- retired routine: ([a-z_0-9]+\([^)]*\))$/\1/p' "$@" | sort -u)
[ -n "$sigs" ] || { echo "signatures.sh: no routines in $*" >&2; exit 1; }
if [ $names = yes ]; then printf '%s\n' "$sigs" | sed 's/(.*//' | sort -u; else printf '%s\n' "$sigs"; fi
