#!/usr/bin/env bash
# What keeps the install and update scripts safe when a non-superuser
# installs the (trusted) extension and the script runs as superuser in a
# schema that role controls: PostgreSQL searches pg_catalog first and
# pg_temp last while it runs an extension script, and the scripts run
# nothing that could resolve to that role's objects. This checks the
# second half, which is ours: every statement is CREATE FUNCTION ...
# LANGUAGE C, CREATE PROCEDURE ... LANGUAGE plpgsql AS $tag$...$tag$
# (stored and syntax-checked, never run by the script; SECURITY INVOKER
# and without SET, so it runs with its caller's rights and may COMMIT),
# COMMENT ON FUNCTION or PROCEDURE, ALTER FUNCTION ... <volatility> or
# REVOKE ALL ON FUNCTION ... FROM PUBLIC, GRANT EXECUTE ON FUNCTION ... TO
# pg_monitor (a predefined role: no role may take a pg_ name) (nothing is
# called, no SQL body runs), and every type in a signature is written pg_catalog.<type>.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"

python3 - "$ROOT"/extension/locality_uuid--*.sql <<'EOF'
import re, sys

TYPE = r"pg_catalog\.[a-z0-9_]+"
ARG = rf"(?:OUT )?(?:[a-z_][a-z0-9_]* )?{TYPE}(?: DEFAULT (?:true|false|NULL|-?[0-9]+))?"
SIGNATURE = rf"[a-z_][a-z0-9_]*\((?:{TYPE}(?:, {TYPE})*)?\)"
CREATE = re.compile(
    rf"CREATE FUNCTION [a-z_][a-z0-9_]*\( ?(?:{ARG}(?:, {ARG})*)?\) RETURNS (?:SETOF )?{TYPE} "
    r"AS 'MODULE_PATHNAME', '[a-z_0-9]+' LANGUAGE C (?:IMMUTABLE|STABLE|VOLATILE)"
    r"(?: STRICT)? PARALLEL (?:SAFE|RESTRICTED|UNSAFE)$")
PROC_ARG = rf"(?:INOUT )?[a-z_][a-z0-9_]* {TYPE}(?: DEFAULT (?:[0-9]+|NULL))?"
PROCEDURE = re.compile(
    rf"CREATE PROCEDURE [a-z_][a-z0-9_]*\( ?(?:{PROC_ARG}(?:, {PROC_ARG})*)?\) LANGUAGE plpgsql AS "
    r"(\$[a-z_]*\$)(?:(?!SECURITY DEFINER).)*\1$")
COMMENT = re.compile(rf"COMMENT ON (?:FUNCTION|PROCEDURE) {SIGNATURE} IS '(?:[^']|'')*'$")
# Volatility corrected in an update script; EXECUTE taken from PUBLIC.
ALTER = re.compile(rf"ALTER FUNCTION {SIGNATURE} (?:IMMUTABLE|STABLE|VOLATILE)$")
REVOKE = re.compile(rf"REVOKE ALL ON FUNCTION {SIGNATURE} FROM PUBLIC$")
GRANT = re.compile(rf"GRANT EXECUTE ON FUNCTION {SIGNATURE} TO pg_monitor$")

bad = 0
for path in sys.argv[1:]:
    text = open(path).read()
    # The psql guard line, then comments; statements end with ';'.
    text = re.sub(r"^\\echo .*$", "", text, flags=re.M)
    text = re.sub(r"--[^\n]*", "", text)
    # Split on ';' outside single-quoted strings (comments may hold ';')
    # and outside dollar-quoted bodies, which are kept whole.
    statements, current, quoted, i = [], "", False, 0
    while i < len(text):
        tag = None if quoted else re.match(r"\$[a-z_]*\$", text[i:])
        if tag:
            end = text.index(tag.group(0), i + len(tag.group(0))) + len(tag.group(0))
            current += text[i:end]
            i = end
            continue
        ch = text[i]
        i += 1
        if ch == "'":
            quoted = not quoted
        if ch == ";" and not quoted:
            statements.append(current)
            current = ""
        else:
            current += ch
    statements = [" ".join(s.split()) for s in statements + [current] if s.strip()]
    kinds = {"create": 0, "procedure": 0, "comment": 0, "alter": 0, "revoke": 0, "grant": 0}
    for s in statements:
        if CREATE.match(s):
            kinds["create"] += 1
        elif PROCEDURE.match(s):
            kinds["procedure"] += 1
        elif COMMENT.match(s):
            kinds["comment"] += 1
        elif ALTER.match(s):
            kinds["alter"] += 1
        elif REVOKE.match(s):
            kinds["revoke"] += 1
        elif GRANT.match(s):
            kinds["grant"] += 1
        else:
            print(f"{path}: not a plain C function or comment: {s[:160]}")
            bad += 1
    if kinds["create"] + kinds["procedure"] != kinds["comment"]:
        print(f"{path}: {kinds['create']} functions and {kinds['procedure']} procedures but {kinds['comment']} comments")
        bad += 1
    print(f"{path.rsplit('/', 1)[-1]}: {kinds['create']} C functions, {kinds['procedure']} PL/pgSQL procedures, {kinds['comment']} comments, "
          f"{kinds['alter']} volatility changes, {kinds['revoke']} revokes, {kinds['grant']} grants to pg_monitor")
sys.exit(1 if bad else 0)
EOF
echo "every install and update script only creates, alters, revokes, grants to pg_monitor and comments C functions and PL/pgSQL procedures with pg_catalog types"
