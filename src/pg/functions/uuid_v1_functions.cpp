// RFC 4122 version-1 UUIDs for given times, and reading them back.
// IMMUTABLE STRICT PARALLEL SAFE.  Bad input is an error, never truncated.
#include "pg_boundary.hpp"

#include "uuid_v1.hpp"

namespace {

void mac_bytes(const macaddr *m, std::uint8_t out[6]) {
    out[0] = m->a;
    out[1] = m->b;
    out[2] = m->c;
    out[3] = m->d;
    out[4] = m->e;
    out[5] = m->f;
}

[[noreturn]] void report_v1_failure(locality::V1Status status, int64 value) {
    switch (status) {
        case locality::V1Status::clock_seq_out_of_range:
            ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                            errmsg("clock_seq " INT64_FORMAT " is out of range for a version 1 UUID", value),
                            errdetail("A version 1 UUID holds a 14-bit clock sequence, 0 to 16383.")));
            break;
        case locality::V1Status::ordinal_out_of_range:
            ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                            errmsg("ordinal " INT64_FORMAT " is out of range for a version 1 UUID", value),
                            errdetail("One microsecond and node hold ordinals 0 to 163839 "
                                      "(16384 clock sequences times 10 ticks).")));
            break;
        case locality::V1Status::before_gregorian:
            ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                            errmsg("timestamp out of range for a version 1 UUID"),
                            errdetail("Version 1 UUIDs start at 1582-10-15 00:00:00 UTC.")));
            break;
        default:
            ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                            errmsg("timestamp out of range for a version 1 UUID"),
                            errdetail("The 60-bit time field ends at 5236-03-31 21:21:00.684697 UTC.")));
    }
    pg_unreachable();
}

int64 v1_unix_micros_arg(FunctionCallInfo fcinfo) {
    const TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
    int64 unix_micros;
    if (TIMESTAMP_NOT_FINITE(ts))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("timestamp out of range for a version 1 UUID"),
                        errdetail("Infinite timestamps have no version 1 time.")));
    if (!locality_pg::unix_micros_of(ts, &unix_micros)) report_v1_failure(locality::V1Status::after_limit, 0);
    return unix_micros;
}

bool v1_arg(FunctionCallInfo fcinfo, locality::Uuid16 *u) {
    *u = locality_pg::uuid_arg(fcinfo, 0);
    return locality::is_rfc_v1(*u);
}

// Both forming functions take (ts, a number, mac) and differ only in what
// the number means (core form_v1 / form_v1_nth).
using FormV1 = locality::V1Status (*)(std::int64_t, std::int64_t, const std::uint8_t *, locality::Uuid16 *);

Datum form_from_args(FunctionCallInfo fcinfo, FormV1 form, int64 number) {
    const int64 unix_micros = v1_unix_micros_arg(fcinfo);
    std::uint8_t node[6];
    mac_bytes(PG_GETARG_MACADDR_P(2), node);
    locality::Uuid16 u;
    const locality::V1Status s = form(unix_micros, number, node, &u);
    if (s != locality::V1Status::ok) report_v1_failure(s, number);
    return locality_pg::uuid_datum(u);
}

}  // namespace

// form_uuid_v1(ts timestamptz, clock_seq integer, mac macaddr)
LOCALITY_SQL_FUNCTION(form_uuid_v1) { return form_from_args(fcinfo, locality::form_v1, PG_GETARG_INT32(1)); }

// form_uuid_v1_nth(ts timestamptz, ordinal bigint, mac macaddr)
LOCALITY_SQL_FUNCTION(form_uuid_v1_nth) {
    return form_from_args(fcinfo, locality::form_v1_nth, PG_GETARG_INT64(1));
}

LOCALITY_SQL_FUNCTION(uuid_v1_timestamp) {
    locality::Uuid16 u;
    if (!v1_arg(fcinfo, &u)) PG_RETURN_NULL();
    return locality_pg::timestamptz_from_unix_micros(
        locality::unix_micros_from_v1_ticks(locality::v1_ticks(u)));
}

LOCALITY_SQL_FUNCTION(uuid_v1_clock_seq) {
    locality::Uuid16 u;
    if (!v1_arg(fcinfo, &u)) PG_RETURN_NULL();
    PG_RETURN_INT32(locality::v1_clock_seq(u));
}

LOCALITY_SQL_FUNCTION(uuid_v1_node) {
    locality::Uuid16 u;
    if (!v1_arg(fcinfo, &u)) PG_RETURN_NULL();
    return locality_pg::macaddr_datum(u.bytes + 10);
}
