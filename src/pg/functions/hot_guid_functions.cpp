// Hot Guids: time-ordered ids that carry a caller-chosen shard key,
// bit-compatible with .NET's HotGuid. Making them is VOLATILE PARALLEL SAFE;
// reading them back is IMMUTABLE STRICT PARALLEL SAFE and works on any uuid
// (the layout has no version marker).
#include "pg_boundary.hpp"

#include "civil_time.hpp"
#include "counters/counter_state.hpp"
#include "hot_guid.hpp"
#include "identity/machine.hpp"
#include "wall_clock.hpp"

namespace {

uint32 shard_key_arg(FunctionCallInfo fcinfo) {
    const int64 key = PG_GETARG_INT64(0);
    if (key < 0 || key > static_cast<int64>(UINT32_MAX))
        ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                        errmsg("shard key " INT64_FORMAT " is out of range for a Hot Guid", key),
                        errdetail("A Hot Guid holds an unsigned 32-bit shard key, 0 to 4294967295.")));
    return static_cast<uint32>(key);
}

locality::HotGuidFields hot_arg(FunctionCallInfo fcinfo) {
    return locality::decode_hot_guid(locality_pg::uuid_arg(fcinfo, 0));
}

}  // namespace

// hot_guid(shard_key bigint): the current second.
LOCALITY_SQL_FUNCTION(hot_guid_generate) {
    const uint32 key = shard_key_arg(fcinfo);
    const int64 seconds = locality::floor_div(locality::wall_clock_millis(), 1000);
    return locality_pg::uuid_datum(locality_pg::make_hot_guid(false, seconds, key));
}

// hot_guid(shard_key bigint, ts timestamptz): ts, truncated to the second.
LOCALITY_SQL_FUNCTION(hot_guid_generate_at) {
    const uint32 key = shard_key_arg(fcinfo);
    const TimestampTz ts = PG_GETARG_TIMESTAMPTZ(1);
    if (TIMESTAMP_NOT_FINITE(ts))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("timestamp out of range for a Hot Guid"),
                        errdetail("Infinite timestamps cannot be stored in an id.")));
    // Floor to whole seconds before moving to the Unix epoch (no overflow).
    const int64 seconds = locality::floor_div(ts, USECS_PER_SEC) + locality_pg::kUnixToPgEpochMicros / USECS_PER_SEC;
    return locality_pg::uuid_datum(locality_pg::make_hot_guid(true, seconds, key));
}

// hot_guid_lower(ts timestamptz): the smallest id of the Hot Guids made at
// ts or later (their whole second is ts rounded up), for range scans of a
// Hot Guid key: id >= hot_guid_lower(a) AND id < hot_guid_lower(b) holds
// exactly for the ids whose time lies in [a, b).
LOCALITY_SQL_FUNCTION(hot_guid_lower) {
    const TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
    if (TIMESTAMP_IS_NOBEGIN(ts)) return locality_pg::uuid_datum(locality::hot_guid_lower_bound(0));
    // Whole seconds, rounded up (a Hot Guid of second s was made at s or
    // later), on the Unix epoch; no overflow for any finite timestamp.
    const int64 seconds = TIMESTAMP_NOT_FINITE(ts)
                              ? locality::kHotMaxSeconds + 1
                              : -locality::floor_div(-ts, USECS_PER_SEC) + locality_pg::kUnixToPgEpochMicros / USECS_PER_SEC;
    if (seconds > locality::kHotMaxSeconds)
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("timestamp %s is out of range for a Hot Guid bound", timestamptz_to_str(ts)),
                        errdetail("Every Hot Guid is earlier than 2106-02-07 06:28:16 UTC; no uuid lies above "
                                  "them all."),
                        errhint("Leave out the upper bound to take every later Hot Guid.")));
    return locality_pg::uuid_datum(locality::hot_guid_lower_bound(static_cast<uint32>(Max(seconds, int64{0}))));
}

LOCALITY_SQL_FUNCTION(hot_guid_shard_key) { PG_RETURN_INT64(hot_arg(fcinfo).shard_key); }

LOCALITY_SQL_FUNCTION(hot_guid_timestamp) {
    return locality_pg::timestamptz_from_unix_micros(static_cast<int64>(hot_arg(fcinfo).seconds) * USECS_PER_SEC);
}

LOCALITY_SQL_FUNCTION(hot_guid_counter) { PG_RETURN_INT32(static_cast<int32>(hot_arg(fcinfo).counter)); }

LOCALITY_SQL_FUNCTION(hot_guid_pid) { PG_RETURN_INT32(hot_arg(fcinfo).pid); }

// The three machine bytes as six hex digits, MD5 byte order.
LOCALITY_SQL_FUNCTION(hot_guid_machine) {
    char text[7];
    locality::format_machine(hot_arg(fcinfo).machine, text);
    PG_RETURN_TEXT_P(cstring_to_text(text));
}

// This server's machine name and bytes, as new Hot Guids carry them.
LOCALITY_SQL_FUNCTION(hot_guid_machine_name) {
    PG_RETURN_TEXT_P(cstring_to_text(locality_pg::current_machine_name()));
}

LOCALITY_SQL_FUNCTION(hot_guid_machine_id) {
    char text[7];
    locality::format_machine(locality_pg::current_hot_stamp().machine, text);
    PG_RETURN_TEXT_P(cstring_to_text(text));
}
