// Administration of the server-wide counters: releasing sequential runs
// that a forward clock glitch left in the future (release_runs.hpp). The
// SQL script grants it to nobody: superusers, or roles a superuser grants
// EXECUTE to.
#include "pg_boundary.hpp"

#include <algorithm>
#include <cerrno>

extern "C" {
#include "access/htup_details.h"
#include "access/xlog.h"
#include "funcapi.h"
}

#include "counter_state.hpp"
#include "generation_errors.hpp"
#include "release_runs.hpp"
#include "wall_clock.hpp"
#include "window_base.hpp"

namespace {

// The released windows, kept across the calls of the set-returning function.
struct Released {
    int count;
    uint32 windows[locality::kRunSlots];
};

// Releases the runs (the first call) and returns them, ERROR when it cannot.
Released *release_now() {
    locality_pg::SharedCounters *shared = locality_pg::shared_counters();
    if (shared == nullptr)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("cannot release sequential runs without server-wide counters"),
                        errdetail("Without locality_uuid in shared_preload_libraries, or with "
                                  "locality_uuid.shared_counter off, each session keeps runs of its "
                                  "own, which end with it."),
                        errhint("A new session starts with no runs held.")));
    if (RecoveryInProgress())
        ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                        errmsg("cannot release sequential runs during recovery"),
                        errhint("Release them on the primary; standbys replay the release from WAL.")));
    if (pg_atomic_read_u32(&shared->available) == 0) locality_pg::report_state_unreadable(shared->unreadable_errno);
    auto *r = static_cast<Released *>(palloc0(sizeof(Released)));
    const int64 now_ms = locality::wall_clock_millis();
    r->count = locality_pg::release_future_runs(shared, locality::window_of(static_cast<uint64>(Max(now_ms, 0))),
                                                r->windows);
    if (r->count < 0)
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("could not write \"%s\": %m", locality_pg::kStateFile),
                        errdetail("The runs are released only once the file no longer holds them."),
                        errhint("Free space in the data directory's file system, or make the file "
                                "writable, and call the function again.")));
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
        TupleDesc desc;
        if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
            ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("return type must be a row type")));
        fctx->tuple_desc = BlessTupleDesc(desc);
        Released *r = release_now();
        fctx->user_fctx = r;
        fctx->max_calls = static_cast<uint64>(r->count);
        MemoryContextSwitchTo(old);
    }
    fctx = SRF_PERCALL_SETUP();
    if (fctx->call_cntr >= fctx->max_calls) SRF_RETURN_DONE(fctx);
    const auto *r = static_cast<const Released *>(fctx->user_fctx);
    const int64 start_ms = static_cast<int64>(locality::window_start_millis(r->windows[fctx->call_cntr]));
    Datum values[2] = {locality_pg::timestamptz_from_unix_micros(start_ms * 1000),
                       locality_pg::timestamptz_from_unix_micros((start_ms + locality::kWindowMillis) * 1000)};
    bool nulls[2] = {false, false};
    SRF_RETURN_NEXT(fctx, HeapTupleGetDatum(heap_form_tuple(fctx->tuple_desc, values, nulls)));
}
