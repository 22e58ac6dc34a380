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
ids=$(OPENSSL_CONF="$work/openssl.cnf" "$ROOT/locality-uuid" -n 3 --sequential)
# Each id's counter is its window's base + n: recompute the base with
# Python's MD5 (not OpenSSL's) from the id's own timestamp.
python3 - "$ROOT/locality-uuid" $ids <<'PY'
import datetime, hashlib, subprocess, sys
cli, ids = sys.argv[1], sys.argv[2:]
for i, text in enumerate(ids):
    raw = bytes.fromhex(text.replace("-", ""))
    counter = int.from_bytes(raw[0:4], "big")
    millis = int.from_bytes(raw[10:16], "big")
    t = datetime.datetime.fromtimestamp(millis / 1000, datetime.timezone.utc)
    key = t.strftime("%Y%m%d%H%M")[:11]
    base = int.from_bytes(hashlib.md5(key.encode()).digest()[:4], "little")
    offset = (counter - base) % 2**32
    assert 1 <= offset <= 3, (text, offset)
    print(f"{text}: window {key}, counter = base + {offset}")
PY
echo "sequential ids under fips=yes carry their window's MD5 base"
