#!/bin/sh
# Prints the routines the SQL edition's sources create, one per line, as
# name(argument types) (their COMMENT ON lines: every routine has one, the
# tests count what an uninstall leaves), or with --names the names alone;
# with --sequences, the names of its 67 sequences (generators.sql: three
# counters and the 64 run slots), for the scripts that look for them.
# Usage: signatures.sh [--names] SOURCE... | signatures.sh --sequences
set -eu
if [ "$1" = --sequences ]; then
  printf '%s\n' locality_uuid_variable_seq locality_uuid_at_seq locality_uuid_hot_seq
  for slot in $(seq -w 0 63); do echo "locality_uuid_run_$slot"; done
  exit 0
fi
names=no
if [ "$1" = --names ]; then names=yes; shift; fi
sigs=$(sed -n -E 's/^ *COMMENT ON (FUNCTION|PROCEDURE) (@extschema@\.)?([a-z_0-9]+\([^)]*\)) IS$/\3/p' "$@" | sort -u)
[ -n "$sigs" ] || { echo "signatures.sh: no routines in $*" >&2; exit 1; }
if [ $names = yes ]; then printf '%s\n' "$sigs" | sed 's/(.*//' | sort -u; else printf '%s\n' "$sigs"; fi
