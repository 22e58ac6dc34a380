// Administration of the server-wide counters: releasing sequential runs
// that a forward clock glitch left in the future (release_runs.hpp), and
// accepting a state file in doubt (restore.hpp). The SQL script grants them
// to nobody: superusers, or roles a superuser grants EXECUTE to.
#include "pg_boundary.hpp"

#include <algorithm>
#include <cerrno>

extern "C" {
#include "access/htup_details.h"
#include "access/xlog.h"
#include "funcapi.h"
}

#include "active_cells.hpp"
#include "counter_state.hpp"
#include "generation_errors.hpp"
#include "release_runs.hpp"
#include "restore.hpp"
#include "wall_clock.hpp"
#include "window_base.hpp"

namespace {

// The released windows, kept across the calls of the set-returning function.
struct Released {
    int count;
    uint32 windows[locality::kRunSlots];
};

// The row type a set-returning function was declared with.
TupleDesc row_type(FunctionCallInfo fcinfo) {
    TupleDesc desc;
    if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("return type must be a row type")));
    return BlessTupleDesc(desc);
}

// A (start, end) row of timestamptz, from Unix microseconds.
Datum time_range_row(FuncCallContext *fctx, int64 start_us, int64 end_us) {
    Datum values[2] = {locality_pg::timestamptz_from_unix_micros(start_us),
                       locality_pg::timestamptz_from_unix_micros(end_us)};
    bool nulls[2] = {false, false};
    return HeapTupleGetDatum(heap_form_tuple(fctx->tuple_desc, values, nulls));
}

// ERROR for a release that could not be written (release_runs.hpp).
void report_release_failure(int result) {
    if (result == locality_pg::kReleaseNotWritten)
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("could not write \"%s\": %m", locality_pg::kStateFile),
                        errdetail("A release takes effect only once the file holds it; nothing was "
                                  "released."),
                        errhint("Free space in the data directory's file system, or make the file "
                                "writable, and call the function again.")));
    if (result == locality_pg::kReleaseNotDurable)
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("could not make \"%s\" durable: %m", locality_pg::kStateFile),
                        errdetail("The file was renamed into place but its synchronisation failed: the "
                                  "release may be partly applied, on this server only."),
                        errhint("Call the function again once the file system works; until then "
                                "shared memory and WAL hold what was reserved before.")));
}

// The server-wide counters of a primary, for an administrative action
// (`verb`: "release sequential runs"), ERROR where there are none.
locality_pg::SharedCounters *primary_counters(const char *verb) {
    locality_pg::SharedCounters *shared = locality_pg::shared_counters();
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

// Releases the runs (the first call) and returns them, ERROR when it cannot.
Released *release_now() {
    locality_pg::SharedCounters *shared = primary_counters("release sequential runs");
    if (pg_atomic_read_u32(&shared->available) == 0) locality_pg::report_unavailable(shared);
    auto *r = static_cast<Released *>(palloc0(sizeof(Released)));
    const int64 now_ms = locality::wall_clock_millis();
    r->count = locality_pg::release_future_runs(shared, locality::window_of(static_cast<uint64>(Max(now_ms, 0))),
                                                r->windows);
    report_release_failure(r->count);
    std::sort(r->windows, r->windows + Max(r->count, 0));
    // In the server log too: the windows whose ids to re-key, even if the
    // result set is lost.
    for (int i = 0; i < r->count; ++i) {
        const int64 start_ms = static_cast<int64>(locality::window_start_millis(r->windows[i]));
        ereport(LOG, (errmsg("locality_uuid: released the sequential run of the window from %s to %s",
                             locality_pg::unix_millis_text(start_ms), locality_pg::unix_millis_text(start_ms + locality::kWindowMillis)),
                      errdetail("Ids made in that window carry future times; once real time reaches it, "
                                "its run starts again.")));
    }
    return r;
}

}  // namespace

// locality_uuid_release_future_windows(): one row (window_start,
// window_end) per released run.
LOCALITY_SQL_FUNCTION(locality_uuid_release_future_windows) {
    FuncCallContext *fctx;
    if (SRF_IS_FIRSTCALL()) {
        fctx = SRF_FIRSTCALL_INIT();
        const MemoryContext old = MemoryContextSwitchTo(fctx->multi_call_memory_ctx);
        fctx->tuple_desc = row_type(fcinfo);
        Released *r = release_now();
        fctx->user_fctx = r;
        fctx->max_calls = static_cast<uint64>(r->count);
        MemoryContextSwitchTo(old);
    }
    fctx = SRF_PERCALL_SETUP();
    if (fctx->call_cntr >= fctx->max_calls) SRF_RETURN_DONE(fctx);
    const auto *r = static_cast<const Released *>(fctx->user_fctx);
    const int64 start_ms = static_cast<int64>(locality::window_start_millis(r->windows[fctx->call_cntr]));
    SRF_RETURN_NEXT(fctx, time_range_row(fctx, start_ms * 1000, (start_ms + locality::kWindowMillis) * 1000));
}

// locality_uuid_accept_state_file(): what it did, in words.
LOCALITY_SQL_FUNCTION(locality_uuid_accept_state_file) {
    locality_pg::SharedCounters *shared = primary_counters("accept \"locality_uuid.state\"");
    const locality_pg::FreshCounters fresh{locality_pg::strong_random_u32(), locality_pg::strong_random_u32(),
                                           locality_pg::strong_random_u32()};
    const char *done = "";
    switch (locality_pg::accept_state_file(shared, fresh)) {
        case locality_pg::AcceptResult::unreadable: locality_pg::report_unavailable(shared);
        case locality_pg::AcceptResult::already_trusted: done = "in use already: nothing to accept"; break;
        case locality_pg::AcceptResult::accepted_file: done = "accepted: counters continue past its marks"; break;
        case locality_pg::AcceptResult::accepted_fresh: done = "no file: counters start fresh"; break;
    }
    PG_RETURN_TEXT_P(cstring_to_text(done));
}

// hot_guid_release_future_seconds(): one row (released_from, released_to)
// when clock Hot Guid seconds were reserved ahead of the clock, else none.
LOCALITY_SQL_FUNCTION(hot_guid_release_future_seconds) {
    FuncCallContext *fctx;
    if (SRF_IS_FIRSTCALL()) {
        fctx = SRF_FIRSTCALL_INIT();
        const MemoryContext old = MemoryContextSwitchTo(fctx->multi_call_memory_ctx);
        fctx->tuple_desc = row_type(fcinfo);
        locality_pg::SharedCounters *shared = primary_counters("release Hot Guid seconds");
        if (pg_atomic_read_u32(&shared->available) == 0) locality_pg::report_unavailable(shared);
        const int64 now_ms = locality::wall_clock_millis();
        auto *range = static_cast<uint64 *>(palloc0(2 * sizeof(uint64)));
        const int released = locality_pg::release_future_hot_seconds(
            shared, static_cast<uint64>(Max(now_ms, 0) / 1000), &range[0], &range[1]);
        report_release_failure(released);
        if (released == 1)
            ereport(LOG, (errmsg("locality_uuid: released the clock Hot Guid seconds from %s to %s",
                                 locality_pg::unix_millis_text(static_cast<int64>(range[0]) * 1000),
                                 locality_pg::unix_millis_text(static_cast<int64>(range[1]) * 1000)),
                          errdetail("Hot Guids made for those seconds carry future times; once real time "
                                    "reaches them, their counters start again.")));
        fctx->user_fctx = range;
        fctx->max_calls = released == 1 ? 1 : 0;
        MemoryContextSwitchTo(old);
    }
    fctx = SRF_PERCALL_SETUP();
    if (fctx->call_cntr >= fctx->max_calls) SRF_RETURN_DONE(fctx);
    const auto *range = static_cast<const uint64 *>(fctx->user_fctx);
    SRF_RETURN_NEXT(fctx, time_range_row(fctx, static_cast<int64>(range[0]) * 1000000,
                                         static_cast<int64>(range[1]) * 1000000));
}

// locality_uuid_window_usage(): the server-wide sequential run of the
// clock's current window, for monitoring: (window_start, window_end,
// ids_drawn, ids_left). Drawn counts what backends took from shared memory
// (each takes 256 at a time, so some may be cached, not yet made).
LOCALITY_SQL_FUNCTION(locality_uuid_window_usage) {
    const TupleDesc desc = row_type(fcinfo);
    locality_pg::SharedCounters *shared = primary_counters("report the window's sequential ids");
    if (pg_atomic_read_u32(&shared->available) == 0) locality_pg::report_unavailable(shared);
    const int64 now_ms = locality::wall_clock_millis();
    const uint32 window = locality::window_of(static_cast<uint64>(Max(now_ms, 0)));
    const uint64 run = pg_atomic_read_u64(&shared->runs[window % locality::kRunSlots].value);
    const uint64 drawn = (run >> 32) == static_cast<uint64>(window) + 1
                             ? Min(run & 0xFFFFFFFF, static_cast<uint64>(locality::kRunIds))
                             : 0;
    const int64 start_us = static_cast<int64>(locality::window_start_millis(window)) * 1000;
    Datum values[4] = {locality_pg::timestamptz_from_unix_micros(start_us),
                       locality_pg::timestamptz_from_unix_micros(start_us + locality::kWindowMillis * 1000),
                       Int64GetDatum(static_cast<int64>(drawn)),
                       Int64GetDatum(static_cast<int64>(locality::kRunIds - drawn))};
    bool nulls[4] = {false, false, false, false};
    PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

// Handing the counters over between the editions, or two versions, on one
// database (README: moving between the editions): where this server's
// counters go on, and moving them on to where another's stop.

// locality_uuid_counters(): (variable_next, given_time_next, hot_next,
// run_window, run_next), as the next id of each kind would carry them.
// Every draw handed out, or cached in a backend's block, lies below the
// shared counters read here.
LOCALITY_SQL_FUNCTION(locality_uuid_counters) {
    const TupleDesc desc = row_type(fcinfo);
    locality_pg::SharedCounters *shared = primary_counters("report the counters");
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
    locality_pg::SharedCounters *shared = primary_counters("hand the counters over");
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
