// Administration of the server-wide counters: releasing sequential runs
// that a forward clock glitch left in the future (release_runs.hpp), and
// accepting a state file in doubt (restore.hpp). The SQL script grants them
// to nobody: superusers, or roles a superuser grants EXECUTE to.
#include "functions/admin.hpp"

#include <algorithm>
#include <cerrno>

extern "C" {
#include "access/htup_details.h"
#include "access/xlog.h"
#include "funcapi.h"
}

#include "counters/generation_errors.hpp"
#include "reservations/release_runs.hpp"
#include "reservations/restore.hpp"
#include "wall_clock.hpp"
#include "window_base.hpp"

namespace {

// The released windows, kept across the calls of the set-returning function.
struct Released {
    int count;
    uint32 windows[locality::kRunSlots];
};

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
                                  "release may be partly applied on this server (its file and shared "
                                  "memory), and is not in WAL: standbys keep the glitch's runs."),
                        errhint("Call the function again once the file system works: it completes the "
                                "release and logs it.")));
}

// Releases the runs (the first call) and returns them, ERROR when it cannot.
Released *release_now() {
    locality_pg::SharedCounters *shared = locality_pg::primary_counters("release sequential runs");
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
        fctx->tuple_desc = locality_pg::row_type(fcinfo);
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
    locality_pg::SharedCounters *shared = locality_pg::primary_counters("accept \"locality_uuid.state\"");
    const locality_pg::FreshCounters fresh = locality_pg::fresh_counters();
    const char *done = "";
    switch (locality_pg::accept_state_file(shared, fresh)) {
        case locality_pg::AcceptResult::unreadable: locality_pg::report_unreadable(shared, /* accepting */ true);
        case locality_pg::AcceptResult::already_trusted: done = "in use already: nothing to accept"; break;
        case locality_pg::AcceptResult::accepted_file:
            done = "accepted: counters continue past its marks, moved past fresh random points";
            break;
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
        fctx->tuple_desc = locality_pg::row_type(fcinfo);
        locality_pg::SharedCounters *shared = locality_pg::primary_counters("release Hot Guid seconds");
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
// (each takes 256 at a time, so some may be cached, not yet made) from the
// run start on; drawn plus left is 2^31 less the places the start skipped.
LOCALITY_SQL_FUNCTION(locality_uuid_window_usage) {
    const TupleDesc desc = locality_pg::row_type(fcinfo);
    locality_pg::SharedCounters *shared = locality_pg::primary_counters("report the window's sequential ids");
    if (pg_atomic_read_u32(&shared->available) == 0) locality_pg::report_unavailable(shared);
    const int64 now_ms = locality::wall_clock_millis();
    const uint32 window = locality::window_of(static_cast<uint64>(Max(now_ms, 0)));
    const uint64 run = pg_atomic_read_u64(&shared->runs[window % locality::kRunSlots].value);
    const uint64 used = (run >> 32) == static_cast<uint64>(window) + 1
                            ? Min(run & 0xFFFFFFFF, static_cast<uint64>(locality::kRunIds))
                            : 0;
    // A run starts at the run start (binding.hpp): the places before it are
    // skipped, not drawn (a run begun before a move started lower).
    const uint64 start = pg_atomic_read_u32(&shared->run_start);
    const uint64 drawn = used > start ? used - start : 0;
    const int64 start_us = static_cast<int64>(locality::window_start_millis(window)) * 1000;
    Datum values[4] = {locality_pg::timestamptz_from_unix_micros(start_us),
                       locality_pg::timestamptz_from_unix_micros(start_us + locality::kWindowMillis * 1000),
                       Int64GetDatum(static_cast<int64>(drawn)),
                       Int64GetDatum(static_cast<int64>(locality::kRunIds - Max(used, start)))};
    bool nulls[4] = {false, false, false, false};
    PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}
