"""README examples as tests (readme_examples.sh, sql_edition.sh).

  readme_blocks.py extract LANG WORK FILE...  the ```LANG blocks of the FILEs,
      in order (with those of the files their <!-- examples: PATH --> lines name), as WORK/examples.sql (a marker before each statement) and the
      rows each statement's "-- result: ..." comments promise as
      WORK/expected.json
  readme_blocks.py compare WORK               WORK/output.txt (psql -A -t -F ' | '
      of examples.sql) against those rows; exit 1 if any differ

Blocks may be indented (inside a list item): the indent is taken off. A
"-- result:" comment is one row (columns joined by " | "); comment lines
right after a statement add rows to it.
"""
import json
import os
import re
import sys


def blocks_of(name, lang):
    """The ```lang blocks of file `name`, in order; a line
    <!-- examples: PATH --> (PATH relative to the file) stands for the blocks
    of that file, run at that place, as if its text were still there."""
    found = []
    pattern = r"^( *)```" + re.escape(lang) + r"\n(.*?)^\1```|^<!-- examples: (\S+) -->$"
    for indent, body, included in re.findall(pattern, open(name).read(), flags=re.M | re.S):
        if included:
            found += blocks_of(os.path.join(os.path.dirname(name), included), lang)
        else:
            found.append("".join(line[len(indent):] for line in body.splitlines(keepends=True)))
    return found


def extract(lang, work, *files):
    blocks = [block for name in files for block in blocks_of(name, lang)]
    statements = []  # [sql text, [expected rows]]
    for block in blocks:
        current, dollar = "", False
        for line in block.splitlines():
            code = line if dollar else line.split("--", 1)[0]
            comment = None if dollar or "--" not in line else line.split("--", 1)[1].strip()
            if not current.strip() and comment is not None and not code.strip() and statements \
                    and comment.startswith("result:") and statements[-1][1] is not None:
                statements[-1][1].append(comment[len("result:"):].strip())
                continue
            current += line + "\n"
            dollar ^= line.count("$$") % 2 == 1
            if not dollar and code.rstrip().endswith(";"):
                rows = []
                if comment is not None and comment.startswith("result:"):
                    rows.append(comment[len("result:"):].strip())
                statements.append([current, rows])
                current = ""
        assert not current.strip(), f"unterminated statement: {current}"
    with open(f"{work}/examples.sql", "w") as f:
        for i, (sql, _) in enumerate(statements):
            f.write(f"\\echo '@@ {i}'\n{sql}")
    json.dump([rows for _, rows in statements], open(f"{work}/expected.json", "w"))
    print(f"{len(blocks)} {lang} blocks, {len(statements)} statements, "
          f"{sum(1 for _, r in statements if r)} with result comments")
    return 0 if blocks else 1


def compare(work):
    expected = json.load(open(f"{work}/expected.json"))
    got, current = {}, None
    for line in open(f"{work}/output.txt").read().splitlines():
        if line.startswith("@@ "):
            current = int(line[3:])
            got[current] = []
        elif current is not None and line != "":
            got[current].append(line.strip())  # as the comments hold them (plans are indented)
    bad = 0
    for i, rows in enumerate(expected):
        if rows and got.get(i) != rows:
            print(f"statement {i}: README says {rows}, it printed {got.get(i)}")
            bad += 1
    checked = sum(1 for r in expected if r)
    print(f"{checked - bad} of {checked} result comments match what runs")
    return 1 if bad or not checked else 0


if __name__ == "__main__":
    sys.exit(extract(*sys.argv[2:]) if sys.argv[1] == "extract" else compare(sys.argv[2]))
