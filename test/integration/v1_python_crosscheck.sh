#!/usr/bin/env bash
# form_uuid_v1 / uuid_v1_timestamp against Python's uuid module, an
# independent implementation: 20000 random (time, clock_seq, MAC) across the
# whole version-1 range plus the boundaries must give identical bytes, and
# reading back must give Python's time truncated to the microsecond.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work/vectors.csv" <<'PY'
import csv, datetime, random, sys, uuid
random.seed(1582)
epoch = datetime.datetime(1582, 10, 15, tzinfo=datetime.timezone.utc)
max_us = ((1 << 60) - 1) // 10            # last microsecond whose tick fits 60 bits
limit = datetime.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=datetime.timezone.utc)
max_us = min(max_us, (limit - epoch) // datetime.timedelta(microseconds=1))
cases = [0, 1, max_us, max_us - 1,
         (datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) - epoch) // datetime.timedelta(microseconds=1)]
cases += [random.randrange(0, max_us + 1) for _ in range(20000)]
with open(sys.argv[1], 'w', newline='') as f:
    w = csv.writer(f)
    for us in cases:
        ts = epoch + datetime.timedelta(microseconds=us)
        ticks = us * 10
        cs = random.randrange(0, 16384)
        node = random.getrandbits(48)
        u = uuid.UUID(fields=(ticks & 0xffffffff, (ticks >> 32) & 0xffff,
                              ((ticks >> 48) & 0x0fff) | 0x1000,
                              ((cs >> 8) & 0x3f) | 0x80, cs & 0xff, node))
        assert u.version == 1 and u.time == ticks and u.clock_seq == cs and u.node == node
        mac = ':'.join('%02x' % b for b in node.to_bytes(6, 'big'))
        w.writerow([ts.strftime('%Y-%m-%d %H:%M:%S.%f+00'), cs, mac, str(u)])
print(f"{len(cases)} vectors from Python's uuid module")
PY
max_us_ts=$(python3 -c "import datetime;print((datetime.datetime(1582,10,15)+datetime.timedelta(microseconds=((1<<60)-1)//10)).strftime('%Y-%m-%d %H:%M:%S.%f'))")
echo "last representable time: $max_us_ts UTC"

with_cluster -- psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE EXTENSION locality_uuid;
CREATE TABLE vectors (ts timestamptz, clock_seq int, mac macaddr, python uuid);
\copy vectors FROM '$work/vectors.csv' WITH (FORMAT csv)
SELECT count(*) AS vectors,
       count(*) FILTER (WHERE form_uuid_v1(ts, clock_seq, mac) <> python) AS bytes_differ,
       count(*) FILTER (WHERE uuid_v1_timestamp(python) <> ts) AS time_differs,
       count(*) FILTER (WHERE uuid_v1_clock_seq(python) <> clock_seq) AS clock_seq_differs,
       count(*) FILTER (WHERE uuid_v1_node(python) <> mac) AS node_differs
FROM vectors \gset
\echo vectors=:vectors bytes_differ=:bytes_differ time_differs=:time_differs clock_seq_differs=:clock_seq_differs node_differs=:node_differs
SELECT (:vectors >= 20000 AND :bytes_differ = 0 AND :time_differs = 0
        AND :clock_seq_differs = 0 AND :node_differs = 0) AS all_agree \gset
\if :all_agree
\echo 'form_uuid_v1 and uuid_v1_* agree with Python on every vector'
\else
SELECT ts, clock_seq, mac, python, form_uuid_v1(ts, clock_seq, mac) AS ours FROM vectors
WHERE form_uuid_v1(ts, clock_seq, mac) <> python LIMIT 5;
\echo 'MISMATCH'
\quit 3
\endif
SQL
