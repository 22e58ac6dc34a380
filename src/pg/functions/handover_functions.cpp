// Handing the counters over between the editions, or two versions, on one
// database (README: moving between the editions): where this server's
// counters go on, and moving them on to where another's stop.
#include "functions/admin.hpp"

extern "C" {
#include "access/htup_details.h"
}

#include "counters/generation_errors.hpp"
#include "generator.hpp"
#include "hot_guid.hpp"
#include "wall_clock.hpp"
#include "window_base.hpp"

// locality_uuid_counters(): (variable_next, given_time_next, hot_next,
// run_window, run_next), as the next id of each kind would carry them.
// Every draw handed out, or cached in a backend's block, lies below the
// shared counters read here.
LOCALITY_SQL_FUNCTION(locality_uuid_counters) {
    const TupleDesc desc = locality_pg::row_type(fcinfo);
    locality_pg::SharedCounters *shared = locality_pg::primary_counters("report the counters");
    if (pg_atomic_read_u32(&shared->available) == 0) locality_pg::report_unavailable(shared);
    const uint32 window = locality::window_of(static_cast<uint64>(Max(locality::wall_clock_millis(), 0)));
    const uint64 run = pg_atomic_read_u64(&shared->runs[window % locality::kRunSlots].value);
    const uint64 run_next = (run >> 32) == static_cast<uint64>(window) + 1
                                ? Min(run & 0xFFFFFFFF, static_cast<uint64>(locality::kRunIds))
                                : 0;
    Datum values[5] = {
        Int64GetDatum(locality::variable_counter(pg_atomic_read_u32(&shared->variable_start),
                                                 pg_atomic_read_u64(&shared->variable.value))),
        Int64GetDatum(static_cast<int64>(pg_atomic_read_u64(&shared->explicit_sequential.value) & locality::kIndexMask)),
        Int64GetDatum(static_cast<int64>(pg_atomic_read_u64(&shared->hot_draws.value) & locality::kHotCounterMask)),
        Int64GetDatum(static_cast<int64>(window)), Int64GetDatum(static_cast<int64>(run_next))};
    bool nulls[5] = {false, false, false, false, false};
    PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

namespace {

// Moves a shared counter forward to `to`, never back (other backends draw
// meanwhile). Draws past its reserved mark then refill it first, as any
// draw does (reservation.hpp).
void move_forward(pg_atomic_uint64 *cell, uint64 to) {
    uint64 seen = pg_atomic_read_u64(cell);
    while (seen < to && !pg_atomic_compare_exchange_u64(cell, &seen, to)) {
    }
}

int64 arg_in(FunctionCallInfo fcinfo, int n, const char *name, int64 low, int64 high) {
    const int64 v = PG_GETARG_INT64(n);
    if (v < low || v > high)
        ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                        errmsg("%s " INT64_FORMAT " is out of range", name, v),
                        errdetail("It must be " INT64_FORMAT " to " INT64_FORMAT ".", low, high)));
    return v;
}

}  // namespace

// locality_uuid_continue_after(variable_next, given_time_next, hot_next,
// run_window, run_next): each counter moves forward to the first draw
// whose id carries the given next value, so that this server's next ids
// continue where the other's stop; the window's run to at least run_next.
LOCALITY_SQL_FUNCTION(locality_uuid_continue_after) {
    locality_pg::SharedCounters *shared = locality_pg::primary_counters("hand the counters over");
    if (pg_atomic_read_u32(&shared->available) == 0) locality_pg::report_unavailable(shared);
    const uint32 now_window = locality::window_of(static_cast<uint64>(Max(locality::wall_clock_millis(), 0)));
    const auto variable_next = static_cast<uint32>(arg_in(fcinfo, 0, "variable_next", 0, 0xFFFFFFFF));
    const auto given_next = static_cast<uint64>(arg_in(fcinfo, 1, "given_time_next", 0, locality::kIndexMask));
    const auto hot_next = static_cast<uint64>(arg_in(fcinfo, 2, "hot_next", 0, locality::kHotCounterMask));
    const auto run_window = static_cast<uint32>(arg_in(fcinfo, 3, "run_window", 0, now_window));
    const auto run_next = static_cast<uint64>(arg_in(fcinfo, 4, "run_next", 0, locality::kRunIds));
    const uint32 start = pg_atomic_read_u32(&shared->variable_start);
    uint64 from = pg_atomic_read_u64(&shared->variable.value);
    move_forward(&shared->variable.value, locality::next_draw_with(from, locality::variable_draw_of(start, variable_next), 32));
    from = pg_atomic_read_u64(&shared->explicit_sequential.value);
    move_forward(&shared->explicit_sequential.value, locality::next_draw_with(from, given_next, 31));
    from = pg_atomic_read_u64(&shared->hot_draws.value);
    move_forward(&shared->hot_draws.value, locality::next_draw_with(from, hot_next, 24));
    if (run_next > 0) {
        // The slot of run_window: its run moves to run_next, or is taken
        // over from an older window at run_next.
        pg_atomic_uint64 *cell = &shared->runs[run_window % locality::kRunSlots].value;
        const uint64 mine = (static_cast<uint64>(run_window) + 1) << 32;
        uint64 seen = pg_atomic_read_u64(cell);
        while (seen < (mine | run_next) && !pg_atomic_compare_exchange_u64(cell, &seen, mine | run_next)) {
        }
    }
    ereport(LOG, (errmsg("locality_uuid: counters moved on to continue another's: variable %u, given time " UINT64_FORMAT
                         ", Hot Guid " UINT64_FORMAT ", run of window %u from " UINT64_FORMAT,
                         variable_next, given_next, hot_next, run_window, run_next)));
    PG_RETURN_VOID();
}
