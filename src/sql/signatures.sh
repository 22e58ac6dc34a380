#!/bin/sh
# Prints the routines the SQL edition's sources create, one per line, as
# name(argument types) (their COMMENT ON lines: every routine has one, the
# tests count what an uninstall leaves), or with --names the names alone.
# Usage: signatures.sh [--names] SOURCE...
set -eu
names=no
if [ "$1" = --names ]; then names=yes; shift; fi
sigs=$(sed -n -E 's/^ *COMMENT ON (FUNCTION|PROCEDURE) (@extschema@\.)?([a-z_0-9]+\([^)]*\)) IS$/\3/p' "$@" | sort -u)
[ -n "$sigs" ] || { echo "signatures.sh: no routines in $*" >&2; exit 1; }
if [ $names = yes ]; then printf '%s\n' "$sigs" | sed 's/(.*//' | sort -u; else printf '%s\n' "$sigs"; fi
