#!/usr/bin/env bash
# Sequential mode keeps working when OpenSSL 3 is configured to use FIPS
# algorithms by default (default_properties = fips=yes, as a FIPS-enabled
# system sets it): the window base's MD5 is fetched with the property query
# "-fips", since here MD5 defines the id format and is not used for
# security. Without a FIPS provider loaded, that configuration makes every
# plain MD5 fetch fail, which is shown first so the check cannot pass
# vacuously.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/openssl.cnf" <<'CNF'
openssl_conf = openssl_init
[openssl_init]
alg_section = evp_properties
[evp_properties]
default_properties = fips=yes
CNF

if OPENSSL_CONF="$work/openssl.cnf" openssl dgst -md5 </dev/null >/dev/null 2>&1; then
  echo "FAIL: MD5 still works by default under fips=yes; the check would prove nothing"; exit 1
fi
echo "under default_properties = fips=yes, 'openssl dgst -md5' fails"

make -C "$ROOT" -s locality-uuid >/dev/null
. "$ROOT/test/integration/lib/servers.sh"
build_shim clock_shim "$work"
# Eight runs, each at a held instant in another 10-minute window, each
# drawing its own run start (below 2^24): every id's counter is its
# window's base + run start + n. A wrong base would pass one run with odds
# 2^24 / 2^32 = 1/256, all eight with odds 2^-64.
ids=""
for k in 0 1 2 3 4 5 6 7; do
  python3 -c "import struct,sys; open(sys.argv[1], 'wb').write(struct.pack('<qq', 0, int(sys.argv[2])))" \
    "$work/clock" $((1767225600000 + k * 7777777))
  ids+=" $(LD_PRELOAD="$work/clock_shim.so" CLOCK_SHIM_FILE="$work/clock" OPENSSL_CONF="$work/openssl.cnf" \
            "$ROOT/locality-uuid" -n 3 --sequential --node-id 1 | tr '\n' ' ')"
done
# Recompute each base with Python's MD5 (not OpenSSL's) from the id's own
# timestamp.
python3 - $ids <<'PY'
import datetime, hashlib, sys
ids = sys.argv[1:]
assert len(ids) == 24, ids
windows = set()
for run in range(8):
    offsets = []
    for text in ids[3 * run:3 * run + 3]:
        raw = bytes.fromhex(text.replace("-", ""))
        counter = int.from_bytes(raw[0:4], "big")
        millis = int.from_bytes(raw[10:16], "big")
        t = datetime.datetime.fromtimestamp(millis / 1000, datetime.timezone.utc)
        key = t.strftime("%Y%m%d%H%M")[:11]
        windows.add(key)
        base = int.from_bytes(hashlib.md5(key.encode()).digest()[:4], "little")
        offsets.append((counter - base) % 2**32)
    start = offsets[0] - 1
    assert 0 <= start < 2**24 and offsets == [start + 1, start + 2, start + 3], (run, offsets)
    print(f"run {run}: window {key}, counters = base + run start {start} + 1..3")
assert len(windows) == 8, windows
PY
echo "sequential ids under fips=yes carry their window's MD5 base (8 windows)"
