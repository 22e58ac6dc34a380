#!/usr/bin/env bash
# The locality-uuid command-line tool: reference decode, error handling,
# uniqueness of 1M ids from one process (100,000 under qemu), and agreement with the SQL functions.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
CLI=${CLI:-locality-uuid}
command -v "$CLI" >/dev/null || { echo "$CLI not installed (make install)"; exit 1; }
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect STATUS EXPECTED_OUTPUT_PATTERN COMMAND...: exit status and combined output.
expect() {
  local status=$1 pattern=$2; shift 2
  local out rc=0
  out=$("$@" 2>&1) || rc=$?
  if [ "$rc" != "$status" ] || ! grep -qE -- "$pattern" <<<"$out"; then
    fail "$* -> status $rc, output: $out (wanted status $status and /$pattern/)"
  fi
}

# --version names the extension version it was built with; the manual page
# documents every command --help lists, and make install put it where man
# finds it.
version=$(control_version)
# Ids per uniqueness check: 1M natively; under qemu 100,000 (the same code
# paths, and word size and byte order show at once; sorting 3M lines under
# emulation was a minute of each emulated chroot's run).
IDS=1000000
[ "${LOCALITY_EMULATED:-0}" != 1 ] || IDS=100000
[ "$("$CLI" --version)" = "locality-uuid $version" ] || fail "--version: $("$CLI" --version)"
# (node and fleet by their subcommands: "node claim", "fleet registry", ...)
commands=$("$CLI" --help | sed -n -e 's/^  locality-uuid \(node [a-z]*\|fleet [a-z]*\).*/\1/p' \
  -e '/^  locality-uuid \(node\|fleet\) /!s/^  locality-uuid \([a-z][a-z0-9-]*\).*/\1/p' | sort -u)
[ "$(wc -l <<<"$commands")" = 9 ] || fail "--help lists commands: $(tr '\n' ',' <<<"$commands")"
while read -r command; do
  grep -Eq "^\.B locality-uuid $command( |\$)" "$ROOT/doc/locality-uuid.1" || fail "manual page's synopsis lacks $command"
done <<<"$commands"
grep -q '^\.B \\-\\-version$' "$ROOT/doc/locality-uuid.1" || fail "manual page lacks --version"
manpage="$(dirname "$(dirname "$(command -v "$CLI")")")/share/man/man1/locality-uuid.1"
cmp -s "$manpage" "$ROOT/doc/locality-uuid.1" || fail "manual page not installed at $manpage"

# The reference example, exactly as the original library prints it.
want='20be0ffc-314a-bd53-7a50-013a65ca76d2
counter     : 3,488,672,514
process id  : 12,618
MAC address : __:__:_d:53:7a:50
timestamp   : 1,350,327,498,450 (2012-10-15T18:58:18.450Z)'
got=$("$CLI" decode 20be0ffc-314a-bd53-7a50-013a65ca76d2)
[ "$got" = "$want" ] || fail "reference decode: $got"
got=$("$CLI" decode --sequential F5166777-7A7F-BD53-7A50-013E4E2AFC26 | sed -n 2p)
[ "$got" = "counter     : 4,111,886,199" ] || fail "sequential decode: $got"

# Hot Guids: the worked examples (machine "web01", 2022-02-06T00:00:00Z),
# decoded and made, and their errors.
want='61ff0f80-522f-ab76-cd01-e241efbeadde
shard key   : 3735928559
timestamp   : 1644105600 (2022-02-06T00:00:00Z)
counter     : 123457
process id  : 43981
machine     : 2f5276'
got=$("$CLI" hot-decode 61ff0f80-522f-ab76-cd01-e241efbeadde)
[ "$got" = "$want" ] || fail "Hot Guid decode: $got"
got=$("$CLI" hot --shard-key 208 --time 2022-02-06T00:00:00.9Z --machine-name web01 -n 3)
[ "$(cut -c1-13 <<<"$got" | sort -u)" = "61ff0f80-522f" ] || fail "Hot Guid time and machine: $got"
[ "$(cut -c29-36 <<<"$got" | sort -u)" = "d0000000" ] || fail "Hot Guid shard key: $got"
[ "$(sort -u <<<"$got" | wc -l)" = 3 ] || fail "Hot Guids repeat: $got"
expect 1 "invalid shard key '4294967296'" "$CLI" hot --shard-key 4294967296
expect 1 "invalid shard key '-1'" "$CLI" hot --shard-key -1
expect 2 'hot needs --shard-key' "$CLI" hot -n 2
expect 1 "outside a Hot Guid's seconds" "$CLI" hot --shard-key 1 --time 2106-02-07T06:28:16Z
expect 1 "outside a Hot Guid's seconds" "$CLI" hot --shard-key 1 --time 1969-12-31T23:59:59Z
expect 1 "is not a UUID" "$CLI" hot-decode nonsense
n=$("$CLI" hot --shard-key 7 -n $IDS | sort -u | wc -l)
[ "$n" = $IDS ] || fail "$IDS Hot Guids from one process: $n distinct"
echo "Hot Guids: worked examples, errors, $n of $IDS ids unique"

# Foreign versions and malformed input: message and non-zero exit.
expect 1 'version 1, not a Locality UUID' "$CLI" decode 6b54058a-a413-11e6-b501-a0999b048337
expect 1 'version 4, not a Locality UUID' "$CLI" decode 8d6d1986-5ab8-41eb-8e9f-3ae007836a71
expect 1 "'20be0ffc-314a' is not a UUID" "$CLI" decode 20be0ffc-314a
expect 1 "is not a UUID" "$CLI" decode 20be0ffc-314a-bd53-7a50-013a65ca76dg
expect 1 "is not a UUID" "$CLI" decode 20be0ffc0314a-bd53-7a50-013a65ca76d2
expect 2 'decode needs at least one id' "$CLI" decode </dev/null
expect 2 'decode read no id from standard input' "$CLI" decode - </dev/null

# Braces, standard input ('-'), and JSON lines: one line per input, a bad
# one as an error object with the input escaped.
ref=20be0ffc-314a-bd53-7a50-013a65ca76d2
[ "$("$CLI" decode "{$ref}")" = "$("$CLI" decode $ref)" ] || fail "decode of a braced id"
got=$(printf '%s\n\n  {%s}  \n' $ref $ref | "$CLI" decode - | grep -c '^counter     : 3,488,672,514$')
[ "$got" = 2 ] || fail "decode - from standard input: $got records"
got=$(printf '%s\n' $ref | "$CLI" decode --json -)
want='{"id":"20be0ffc-314a-bd53-7a50-013a65ca76d2","counter":3488672514,"pid":12618,"node":223574608,"mac_fragment":"__:__:_d:53:7a:50","millis":1350327498450,"time":"2012-10-15T18:58:18.450Z"}'
[ "$got" = "$want" ] || fail "decode --json from a pipe: $got"
python3 -c 'import json, sys; [json.loads(l) for l in sys.stdin]' <<<"$got" || fail "decode --json is not JSON"
got=$(printf 'x"y\\z\n%s\n' $ref | "$CLI" decode --json - 2>/dev/null || true)
[ "$(head -n 1 <<<"$got")" = '{"input":"x\"y\\z","error":"'"'"'x\"y\\z'"'"' is not a UUID"}' ] &&
  [ "$(sed -n 2p <<<"$got")" = "$want" ] || fail "decode --json with a bad line: $got"
python3 -c 'import json, sys; [json.loads(l) for l in sys.stdin]' <<<"$got" || fail "decode --json error line is not JSON"
got=$("$CLI" hot-decode --json 61ff0f80-522f-ab76-cd01-e241efbeadde)
want='{"id":"61ff0f80-522f-ab76-cd01-e241efbeadde","shard_key":3735928559,"seconds":1644105600,"time":"2022-02-06T00:00:00Z","counter":123457,"pid":43981,"machine":"2f5276"}'
[ "$got" = "$want" ] || fail "hot-decode --json: $got"
got=$("$CLI" v1-time --json 3b203414-a5b0-11e6-829a-448899365732)
[ "$got" = '{"id":"3b203414-a5b0-11e6-829a-448899365732","time":"2016-11-08T12:38:20.617218Z"}' ] || fail "v1-time --json: $got"
expect 2 "unknown argument '--jsn'" "$CLI" decode --jsn $ref
expect 2 "unknown argument '-j'" "$CLI" decode -j $ref
expect 1 'invalid time' "$CLI" v1 --time 2020-02-30T00:00:00Z --clock-seq 1 --mac 44:88:99:36:57:32
expect 1 'invalid time' "$CLI" v1 --time 2020-01-01T25:00:00Z --clock-seq 1 --mac 44:88:99:36:57:32
expect 1 'invalid time' "$CLI" v1 --time 2020-01-01T00:00:00.1234567891Z --clock-seq 1 --mac 44:88:99:36:57:32
expect 1 'invalid time' "$CLI" v1 --time yesterday --clock-seq 1 --mac 44:88:99:36:57:32
expect 1 'before 1582-10-15' "$CLI" v1 --time 1582-10-14T23:59:59.999999Z --clock-seq 1 --mac 44:88:99:36:57:32
expect 1 'after 5236-03-31' "$CLI" v1 --time 5236-03-31T21:21:00.684698Z --clock-seq 1 --mac 44:88:99:36:57:32
expect 1 'invalid clock sequence' "$CLI" v1 --time 2020-01-01 --clock-seq 16384 --mac 44:88:99:36:57:32
expect 1 'invalid clock sequence' "$CLI" v1 --time 2020-01-01 --clock-seq -1 --mac 44:88:99:36:57:32
expect 1 'invalid clock sequence' "$CLI" v1 --time 2020-01-01 --clock-seq 12abc --mac 44:88:99:36:57:32
expect 1 'invalid MAC address' "$CLI" v1 --time 2020-01-01 --clock-seq 1 --mac 44:88:99:36:57
expect 1 'invalid MAC address' "$CLI" v1 --time 2020-01-01 --clock-seq 1 --mac 44:88-99:36:57:32
expect 2 'needs --time, --clock-seq and --mac' "$CLI" v1 --time 2020-01-01
expect 2 'unknown argument' "$CLI" v1 --time 2020-01-01 --clock-seq 1 --mac 44:88:99:36:57:32 --extra
expect 1 'not an RFC 4122 version 1 UUID' "$CLI" v1-time 20be0ffc-314a-bd53-7a50-013a65ca76d2
expect 1 'invalid count' "$CLI" -n -5
expect 1 'invalid count' "$CLI" -n 10x
expect 1 'invalid node id' "$CLI" --node-id 268435456
expect 2 'unknown argument' "$CLI" --bogus
expect 0 'Usage:' "$CLI" --help

# New ids: version b, the given node, this process's clock.
before=$(date +%s%3N)
id=$("$CLI" --node-id 223574608)
after=$(date +%s%3N)
decoded=$("$CLI" decode "$id")
grep -q '__:__:_d:53:7a:50' <<<"$decoded" || fail "node id not in $decoded"
ms=$(sed -n 's/^timestamp   : \([0-9,]*\) .*/\1/p' <<<"$decoded" | tr -d ,)
[ "$ms" -ge "$before" ] && [ "$ms" -le "$after" ] || fail "timestamp $ms not in [$before, $after]"

# Sequential ids from one process count up by one.
mapfile -t seq < <("$CLI" -n 5 --sequential)
for i in 1 2 3 4; do
  a=$((16#${seq[$((i - 1))]:0:8})); b=$((16#${seq[$i]:0:8}))
  [ $(((b - a + 4294967296) % 4294967296)) = 1 ] || fail "sequential ids ${seq[*]}"
done

# $IDS ids from one process are unique (in each mode).
for mode in "" --sequential; do
  n=$("$CLI" -n $IDS $mode | sort -u | wc -l)
  [ "$n" = $IDS ] || fail "$IDS ids ($mode) gave $n unique"
  echo "$IDS ids ${mode:-(variable)}: $n unique"
done

# Agreement with the SQL functions on the same inputs.
agree() {
  set -euo pipefail
  psql -X -q -At -c "CREATE EXTENSION locality_uuid"
  local bad=0 t cs mac sql cli
  while IFS='|' read -r t cs mac; do
    sql=$(psql -X -At -c "SELECT form_uuid_v1('$t', $cs, '$mac')")
    cli=$("$CLI" v1 --time "$t" --clock-seq "$cs" --mac "$mac")
    [ "$sql" = "$cli" ] || { echo "v1 $t $cs $mac: sql $sql cli $cli"; bad=1; }
    sql=$(psql -X -At -c "SELECT to_char(uuid_v1_timestamp('$cli') AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')")
    cli=$("$CLI" v1-time "$cli")
    [ "$sql" = "$cli" ] || { echo "v1-time: sql $sql cli $cli"; bad=1; }
  done <<'CASES'
2016-11-08T12:38:20.617218Z|666|44:88:99:36:57:32
1582-10-15T00:00:00Z|0|00:00:00:00:00:00
1970-01-01T00:00:00+01:00|16383|ff:ff:ff:ff:ff:ff
2038-01-19T03:14:08.000001Z|1|01-02-03-04-05-06
2024-02-29 23:59:59.999999-08:00|8191|0a:0b:0c:0d:0e:0f
5236-03-31T21:21:00.684697Z|42|448899365732
CASES
  # .NET's round-trip format (7 fractional digits) and up to 9: v1 keeps the
  # seventh digit as its 100 ns tick (form_uuid_v1_nth's ordinal tick * 16384
  # + clock_seq on the microsecond), dropping the rest.
  local micro tick
  while IFS='|' read -r t micro tick cs mac; do
    sql=$(psql -X -At -c "SELECT form_uuid_v1_nth('$micro', $tick * 16384 + $cs, '$mac')")
    cli=$("$CLI" v1 --time "$t" --clock-seq "$cs" --mac "$mac")
    [ "$sql" = "$cli" ] || { echo "v1 $t $cs $mac: sql $sql cli $cli"; bad=1; }
  done <<'CASES'
2016-11-08T12:38:20.6172183Z|2016-11-08T12:38:20.617218Z|3|666|44:88:99:36:57:32
2024-01-01T00:00:00.1234567Z|2024-01-01T00:00:00.123456Z|7|1|44:88:99:36:57:32
2024-01-01T00:00:00.999999999Z|2024-01-01T00:00:00.999999Z|9|2|44:88:99:36:57:32
1970-01-01T00:00:00.0000001+01:00|1970-01-01T00:00:00+01:00|1|3|44:88:99:36:57:32
CASES
  # Other ids read the text as PostgreSQL does (rounded to microseconds),
  # then truncate to their own resolution: the same second as SQL.
  for t in 2022-02-06T00:00:00.9999995Z 2022-02-06T00:00:00.9999994Z 2022-02-06T00:00:00.999999999Z \
           2022-02-06T00:00:00.1234565Z; do
    sql=$(psql -X -At -c "SELECT to_hex(extract(epoch FROM hot_guid_timestamp(hot_guid(1, '$t')))::bigint)")
    cli=$("$CLI" hot --shard-key 1 --time "$t" --machine-name web01 -n 1 | cut -c1-8)
    [ "$sql" = "$cli" ] || { echo "hot --time $t: sql $sql cli $cli"; bad=1; }
  done
  # decode agrees with the extractors for ids made by the server
  local id
  id=$(psql -X -At -c "SELECT locality_uuid()")
  sql=$(psql -X -At -F ' ' -c "SELECT to_char(locality_uuid_counter('$id'), 'FM9,999,999,999'), to_char(locality_uuid_pid('$id'), 'FM99,999'), (extract(epoch FROM locality_uuid_timestamp('$id')) * 1000)::bigint")
  cli=$("$CLI" decode "$id" | awk -F' : ' '/counter|process id/ {printf "%s ", $2} /timestamp/ {split($2, a, " "); gsub(",", "", a[1]); print a[1]}')
  [ "$sql" = "$cli" ] || { echo "decode: sql '$sql' cli '$cli'"; bad=1; }
  [ $bad = 0 ] && echo "CLI and SQL agree on v1 (to the 100 ns tick), v1-time, hot --time and decode"
  return $bad
}
export -f agree
export CLI
with_cluster -- bash -c agree || fail "CLI and SQL disagree"

# --help after any command: that command's section, exit 0 (review
# first-day-1.3, finding 12); an unknown command's --help is a usage error.
for args in "node claim --registry x --help" "node --help" "fleet registry --help" "fleet audit --help" "fleet scan --help" "fleet --help" \
            "decode --help" "v1 --help" "v1-time --help" "hot --help" "hot-decode --help" "-n 3 --help"; do
  # shellcheck disable=SC2086
  out=$("$CLI" $args 2>&1) || { echo "FAIL: $args exits $?"; failures=$((failures + 1)); continue; }
  first=${args%% *}
  case $first in -n) want="locality-uuid \[-n N\]" ;; node | fleet) want="locality-uuid $first " ;; *) want="locality-uuid $first " ;; esac
  # (Another command's section, hot-decode's, must not be in it.)
  if ! grep -q "^Usage:" <<<"$out" || ! grep -q "^  $want" <<<"$out" ||
     { grep -q "locality-uuid hot-decode" <<<"$out" && [ "$first" != hot-decode ]; }; then
    echo "FAIL: $args: $(head -n 3 <<<"$out")"; failures=$((failures + 1))
  fi
done
out=$("$CLI" fleet audit --help)
grep -q -- "--registry-owner ROLE" <<<"$out" && ! grep -q "node claim" <<<"$out" ||
  { echo "FAIL: fleet audit --help: $out"; failures=$((failures + 1)); }
rc=0; "$CLI" nosuch --help >/dev/null 2>&1 || rc=$?
[ $rc = 2 ] || { echo "FAIL: an unknown command's --help exits $rc"; failures=$((failures + 1)); }
echo "--help after each command prints its own section (12 commands), exit 0; an unknown command's, exit 2"

[ $failures = 0 ] || { echo "$failures CLI check(s) failed"; exit 1; }
echo "CLI checks passed"
