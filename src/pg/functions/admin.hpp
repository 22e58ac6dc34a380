// What the administrative SQL functions share (admin_functions.cpp,
// handover_functions.cpp): the row type of a function declared with OUT
// arguments, and the server-wide counters of a primary.
#pragma once

#include "pg_boundary.hpp"

extern "C" {
#include "access/xlog.h"
#include "funcapi.h"
}

#include "reservations/shared_counters.hpp"

namespace locality_pg {

// The row type a set-returning function was declared with.
inline TupleDesc row_type(FunctionCallInfo fcinfo) {
    TupleDesc desc;
    if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("return type must be a row type")));
    return BlessTupleDesc(desc);
}

// The server-wide counters of a primary, for an administrative action
// (`verb`: "release sequential runs"), ERROR where there are none.
inline SharedCounters *primary_counters(const char *verb) {
    SharedCounters *shared = shared_counters();
    if (shared == nullptr)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("cannot %s without server-wide counters", verb),
                        errdetail("Without locality_uuid in shared_preload_libraries, or with "
                                  "locality_uuid.shared_counter off, each session keeps counters of its "
                                  "own, which end with it."),
                        errhint("A new session starts with counters of its own.")));
    if (RecoveryInProgress())
        ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                        errmsg("cannot %s during recovery", verb),
                        errhint("Do it on the primary; standbys replay its reservations from WAL.")));
    return shared;
}

}  // namespace locality_pg
