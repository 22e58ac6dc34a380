#!/usr/bin/env bash
# Every line the server can log (LOG or WARNING, at a start or after) has a
# row in doc/operations.md's runbook: the fixed text each ereport(LOG |
# WARNING | level) of src/pg begins with, and each reason a move of the
# counters gives, must appear there. A new log line without a row fails
# here (review of 1.3's docs: seven lines had none).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"

python3 - "$ROOT/src/pg" "$ROOT/doc/operations.md" <<'PY'
import os, re, sys

src, doc_path = sys.argv[1], sys.argv[2]
doc = open(doc_path, encoding="utf-8").read()
# The runbook's two tables: from "## Errors and what to do" on.
doc = doc[doc.index("## Errors and what to do"):]

def literal_at(text, i):
    """The C string literal(s) starting at text[i] (adjacent ones joined,
    macros such as UINT64_FORMAT cut the text there), and where they end."""
    out, cut = "", False
    while True:
        while i < len(text) and text[i] in " \t\n": i += 1
        if i < len(text) and text[i] == '"':
            j, s = i + 1, ""
            while text[j] != '"':
                if text[j] == "\\": s += text[j + 1]; j += 2
                else: s += text[j]; j += 1
            if not cut: out += s
            i = j + 1
        elif re.match(r"[A-Z][A-Z0-9_]*\b", text[i:]) and out:
            cut = True                      # a format macro: the fixed text ends
            i += re.match(r"[A-Z][A-Z0-9_]*", text[i:]).end()
        else:
            return out, i

def call_extent(text, i):
    """text[i] is '(': the index after its matching ')' (strings skipped)."""
    depth, j = 0, i
    while j < len(text):
        c = text[j]
        if c == '"':
            j += 1
            while text[j] != '"': j += 2 if text[j] == "\\" else 1
        elif c == "(": depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0: return j + 1
        j += 1
    return j

def fixed(message):
    """The text a runbook row must quote: the longest stretch between
    conversions (a message may begin with one: "%s" accepted by ...)."""
    if message.startswith("locality_uuid: "): message = message[len("locality_uuid: "):]
    parts = [p.strip(" :(") for p in re.split(r"%[0-9.]*[a-zA-Z]+", message)]
    return max(parts, key=len)

wanted = {}   # fixed text -> where
for root, _, files in os.walk(src):
    for name in files:
        if not name.endswith(".cpp"): continue
        path = os.path.join(root, name)
        text = open(path, encoding="utf-8").read()
        where = lambda i: f"{os.path.relpath(path, src)}:{text.count(chr(10), 0, i) + 1}"
        # Every ereport but errors (its level may be a variable or an
        # expression: attempt == 1 ? WARNING : LOG).
        for m in re.finditer(r"\bereport\(\s*([^,]+),", text):
            if re.search(r"\b(ERROR|FATAL|PANIC|DEBUG[0-9]?)\b", m.group(1)): continue
            end = call_extent(text, m.start() + len("ereport"))
            for e in re.finditer(r"\berrmsg\(", text[m.start():end]):
                message, _ = literal_at(text, m.start() + e.end())
                if fixed(message): wanted[fixed(message)] = where(m.start())
        # The reasons a move gives ("...moved past fresh random points: WHY"),
        # and the messages log_binding writes.
        for m in re.finditer(r"\b(?:snprintf|strlcpy)\(\s*[\w>.\-]*why\b[^\";]*?,\s*(?=\")", text):
            message, _ = literal_at(text, m.end())
            if fixed(message): wanted[fixed(message)] = where(m.start())
        for m in re.finditer(r"\b(?:move_now|finish_move|log_binding)\([^;\"]*?,\s*(?=\")", text):
            message, _ = literal_at(text, m.end())
            if fixed(message): wanted[fixed(message)] = where(m.start())

missing = sorted((w, t) for t, w in wanted.items() if t not in doc)
for w, t in missing:
    print(f"FAIL: {w}: no runbook row in doc/operations.md quotes: {t}")
print(f"{len(wanted)} log lines and move reasons of src/pg, {len(wanted) - len(missing)} with a runbook row")
sys.exit(1 if missing or len(wanted) < 30 else 0)
PY
