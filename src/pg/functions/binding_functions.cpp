// locality_uuid_binding(): where this server's ids come from, for a DBA and
// for a fleet audit: the node value and the Hot Guid machine bytes with
// where each comes from, and the place the server-wide counters are bound
// to (binding.hpp), with the time they were bound there and the run start.
#include "functions/admin.hpp"

extern "C" {
#include "access/htup_details.h"
#include "utils/builtins.h"
}

#include "binding.hpp"
#include "counters/active_cells.hpp"
#include "reservations/dealign.hpp"

namespace {

Datum text_or_null(const char *s, bool *isnull) {
    *isnull = s[0] == '\0';
    return *isnull ? Datum(0) : CStringGetTextDatum(s);
}

}  // namespace

// (node, node_source, machine, machine_source, host, host_source,
// data_directory, system_identifier, bound_since, run_start): the values
// as this backend sees them now; bound_since that of the server-wide
// counters' binding (NULL without them, or on a standby before its first
// binding); run_start where this backend's sequential runs start (the
// server's, or without server-wide counters its own).
LOCALITY_SQL_FUNCTION(locality_uuid_binding) {
    const TupleDesc desc = locality_pg::row_type(fcinfo);
    locality_pg::Binding now;
    locality_pg::current_binding(&now);
    locality_pg::SharedCounters *shared = locality_pg::shared_counters();
    bool bound = false;
    int64 since = 0;
    uint32 run_start = 0;
    if (shared != nullptr) {
        bound = locality_pg::bound_since(shared, &since);
        run_start = pg_atomic_read_u32(&shared->run_start);
    }
    char sysid[32];
    snprintf(sysid, sizeof sysid, UINT64_FORMAT, static_cast<uint64>(now.system_identifier));
    Datum values[10];
    bool nulls[10] = {};
    values[0] = Int32GetDatum(now.node);
    values[1] = text_or_null(now.node_source, &nulls[1]);
    values[2] = text_or_null(now.machine, &nulls[2]);
    values[3] = text_or_null(now.machine_source, &nulls[3]);
    values[4] = text_or_null(now.host, &nulls[4]);
    values[5] = text_or_null(now.host_source, &nulls[5]);
    values[6] = text_or_null(now.data_directory, &nulls[6]);
    values[7] = DirectFunctionCall3(numeric_in, CStringGetDatum(sysid), ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
    nulls[8] = !bound || since <= 0;
    values[8] = nulls[8] ? Datum(0) : locality_pg::timestamptz_from_unix_micros(since * 1000000);
    // Without server-wide counters, this backend's own runs' start.
    if (shared == nullptr) run_start = locality_pg::backend_cells().run_start;
    values[9] = Int32GetDatum(static_cast<int32>(run_start));
    PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}
