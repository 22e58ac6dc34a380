// SQL functions that make Locality UUIDs.  All VOLATILE and PARALLEL SAFE:
// parallel workers have their own pid and, without shared memory, their own
// seeded counters.
#include "pg_boundary.hpp"

#include "civil_time.hpp"
#include "counters/counter_state.hpp"
#include "settings.hpp"
#include "wall_clock.hpp"

namespace {

locality::Mode mode_of(bool sequential) {
    return sequential ? locality::Mode::sequential : locality::Mode::variable;
}

Datum clock_id(locality::Mode mode) {
    return locality_pg::uuid_datum(
        locality_pg::make_locality_id(false, mode, locality::wall_clock_millis()));
}

Datum id_at(TimestampTz ts, locality::Mode mode) {
    if (TIMESTAMP_NOT_FINITE(ts))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("timestamp out of range for a Locality UUID"),
                        errdetail("Infinite timestamps cannot be stored in an id.")));
    // Floor to whole milliseconds (the field's resolution) before moving to
    // the Unix epoch, which cannot overflow; the 48-bit range check follows.
    const int64 millis = locality::floor_div(ts, 1000) + locality_pg::kUnixToPgEpochMicros / 1000;
    return locality_pg::uuid_datum(locality_pg::make_locality_id(true, mode, millis));
}

}  // namespace

// locality_uuid(): mode from locality_uuid.sequential.
LOCALITY_SQL_FUNCTION(locality_uuid_generate) {
    return clock_id(mode_of(locality_pg::setting_sequential));
}

// locality_uuid(sequential boolean): mode chosen by the call.
LOCALITY_SQL_FUNCTION(locality_uuid_generate_mode) { return clock_id(mode_of(PG_GETARG_BOOL(0))); }

// locality_uuid(ts timestamptz): an id carrying ts instead of now.
LOCALITY_SQL_FUNCTION(locality_uuid_generate_at) {
    return id_at(PG_GETARG_TIMESTAMPTZ(0), mode_of(locality_pg::setting_sequential));
}

// locality_uuid(ts timestamptz, sequential boolean)
LOCALITY_SQL_FUNCTION(locality_uuid_generate_at_mode) {
    return id_at(PG_GETARG_TIMESTAMPTZ(0), mode_of(PG_GETARG_BOOL(1)));
}
