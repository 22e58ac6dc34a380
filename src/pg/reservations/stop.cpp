#include "reservations/stop.hpp"

#include <cstring>

extern "C" {
#include "access/xlog.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"  // SignalHandlerForShutdownRequest
#include "storage/ipc.h"
#include "storage/latch.h"
#if PG_VERSION_NUM >= 150000
#include "access/xlog_internal.h"
#include "access/xlogreader.h"
#include "access/xlogutils.h"
#include "catalog/pg_control.h"
#endif
#if PG_VERSION_NUM >= 140000
#include "utils/wait_event.h"  // PG_WAIT_EXTENSION (in pgstat.h before 14)
#else
#include "pgstat.h"
#endif
}

#include "lineage.hpp"
#include "reservations/marks.hpp"
#include "reservations/reservation_wal.hpp"
#include "reservations/shared_counters.hpp"
#include "settings.hpp"

namespace locality_pg {

bool stop_counters(uint64 *node, uint64 *machine) {
    SharedCounters *s = shared_counters();
    if (s == nullptr || RecoveryInProgress()) return false;
    LWLockAcquire(s->lock, LW_EXCLUSIVE);
    if (pg_atomic_read_u32(&s->available) == 0 || pg_atomic_read_u32(&s->moves_pending) != 0 ||
        pg_atomic_read_u32(&s->identity_unreadable) != 0 ||
        (s->lineage.node.active == 0 && s->lineage.machine.active == 0)) {
        LWLockRelease(s->lock);
        return false;
    }
    s->stop_marks = snapshot(s);  // (the closed marks, if closed already)
    s->stop_closed = true;
    pg_atomic_write_u64(&s->variable_until.value, 0);
    pg_atomic_write_u64(&s->explicit_until.value, 0);
    pg_atomic_write_u64(&s->hot_until.value, 0);
    pg_atomic_write_u64(&s->hot_until.refill_at, 0);  // (what the draws' common case reads)
    pg_memory_barrier();  // the closed marks before the counters are read (stop.hpp)
    node[0] = pg_atomic_read_u64(&s->variable.value);
    node[1] = pg_atomic_read_u64(&s->explicit_sequential.value);
    machine[0] = pg_atomic_read_u64(&s->hot_draws.value);
    machine[1] = 0;
    // The stop goes into a copy, logged: the shared lineage never holds it,
    // so nothing written later (the file, a record) carries it by mistake,
    // even if logging fails here.
    locality::Lineage stopped = s->lineage;
    locality::lineage_stop(stopped.node, locality::kNodeCycles, node, s->lifetime);
    locality::lineage_stop(stopped.machine, locality::kMachineCycles, machine, s->lifetime);
    // Flushed before the shutdown checkpoint, which the walsenders send
    // after it: a standby that has the checkpoint has the stop.
    log_lineage_flushed(stopped);
    // A later draw's refill logs the lineage without the stop.
    s->lineage_unlogged = true;
    LWLockRelease(s->lock);
    return true;
}

bool stop_still_closed() {
    SharedCounters *s = shared_counters();
    if (s == nullptr) return false;
    LWLockAcquire(s->lock, LW_SHARED);
    const bool closed = s->stop_closed;
    LWLockRelease(s->lock);
    return closed;
}

bool stop_confirmed(uint64 stop_record) {
#if PG_VERSION_NUM >= 150000
    if (stop_record == 0 || RecoveryInProgress()) return false;
    ReadLocalXLogPageNoWaitPrivate *end = static_cast<ReadLocalXLogPageNoWaitPrivate *>(
        palloc0(sizeof(ReadLocalXLogPageNoWaitPrivate)));
    XLogReaderRoutine routine{};
    routine.page_read = read_local_xlog_page_no_wait;
    routine.segment_open = wal_segment_open;
    routine.segment_close = wal_segment_close;
    XLogReaderState *volatile reader = XLogReaderAllocate(wal_segment_size, nullptr, &routine, end);
    if (reader == nullptr) return false;
    volatile bool confirmed = false;
    const MemoryContext context = CurrentMemoryContext;
    // An ERROR resets the interrupt holdoffs; the caller holds an LWLock
    // (which holds interrupts) and releases it after this returns.
    const uint32 interrupts_held = InterruptHoldoffCount;
    const uint32 cancels_held = QueryCancelHoldoffCount;
    PG_TRY();
    {
        XLogBeginRead(reader, static_cast<XLogRecPtr>(stop_record));
        // The stop's record, then whatever its server wrote until its
        // shutdown checkpoint (other records of the shutdown, an online
        // checkpoint finishing): bounded, as a few records are expected.
        for (int n = 0; n < 10000; ++n) {
            char *error = nullptr;
            if (XLogReadRecord(reader, &error) == nullptr) break;  // the end of what reached this server
            const RmgrId rmid = XLogRecGetRmid(reader);
            const uint8 info = XLogRecGetInfo(reader) & ~XLR_INFO_MASK;
            if (rmid == static_cast<RmgrId>(setting_wal_rmgr_id)) {
                if (n == 0) continue;  // the stop itself
                break;                 // the counters changed after it: not a stop any more
            }
            if (n == 0) break;  // not the stop's record
            if (rmid == RM_XLOG_ID && info == XLOG_CHECKPOINT_SHUTDOWN) {
                CheckPoint checkpoint;
                std::memcpy(&checkpoint, XLogRecGetData(reader), sizeof checkpoint);
                // The stopped server's own (its timeline), not the end of
                // this one's recovery.
                confirmed = checkpoint.ThisTimeLineID == checkpoint.PrevTimeLineID &&
                            checkpoint.ThisTimeLineID != GetWALInsertionTimeLine();
                break;
            }
            if (rmid == RM_XLOG_ID && info == XLOG_END_OF_RECOVERY) break;  // this server's timeline begins
        }
    }
    PG_CATCH();
    {
        // WAL that cannot be read (removed, damaged): not confirmed, the
        // move takes the gap.
        MemoryContextSwitchTo(context);
        ErrorData *error = CopyErrorData();
        FlushErrorState();
        InterruptHoldoffCount = interrupts_held;
        QueryCancelHoldoffCount = cancels_held;
        ereport(LOG, (errmsg("locality_uuid: a clean stop could not be confirmed from WAL: %s", error->message),
                      errdetail("The move goes as after a crash: 1/16 to 1/8 of each cycle above the marks.")));
        FreeErrorData(error);
        confirmed = false;
    }
    PG_END_TRY();
    XLogReaderFree(reader);
    pfree(end);
    return confirmed;
#else
    (void) stop_record;
    return false;
#endif
}

void register_stop_worker() {
#if PG_VERSION_NUM >= 150000
    if (IsBinaryUpgrade) return;  // pg_upgrade's servers make no id
    BackgroundWorker worker;
    memset(&worker, 0, sizeof worker);
    // A connection to no database, so that pg_stat_activity shows it. It
    // starts once recovery has ended (a primary, a promoted standby): only
    // a server that makes ids has a stop to record.
    worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
    worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
    worker.bgw_restart_time = 5;  // seconds: a worker that died (not one that stopped) is started again
    strlcpy(worker.bgw_library_name, "locality_uuid", sizeof worker.bgw_library_name);
    strlcpy(worker.bgw_function_name, "locality_uuid_stop_main", sizeof worker.bgw_function_name);
    strlcpy(worker.bgw_name, "locality_uuid stop", sizeof worker.bgw_name);
    strlcpy(worker.bgw_type, "locality_uuid stop", sizeof worker.bgw_type);
    RegisterBackgroundWorker(&worker);
#endif
}

}  // namespace locality_pg

// The worker: waits for SIGTERM, which the postmaster sends to every
// backend and background worker at a smart or fast shutdown and then waits
// for them to exit before its shutdown checkpoint; records the stop; exits
// with 0 (not started again: also after pg_terminate_backend, until the
// next start, when clean stops then leave the gap of a crash).
void locality_uuid_stop_main(Datum) {
    pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
    BackgroundWorkerUnblockSignals();
    BackgroundWorkerInitializeConnection(nullptr, nullptr, 0);
    while (!ShutdownRequestPending) {
        (void) WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH, -1L, PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
    }
    // A draw after the stop (a client the shutdown has not ended yet) opens
    // the marks again with a refill: stopped again after it, until the
    // counters have been quiet for 100 ms (at most 5 s: the postmaster
    // waits for this worker before its shutdown checkpoint).
    uint64 node[2], machine[2];
    bool stopped = locality_pg::stop_counters(node, machine);
    for (int waited = 0, quiet = 0; stopped && quiet < 10 && waited < 500; ++waited) {
        (void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 10L, PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
        if (locality_pg::stop_still_closed()) {
            ++quiet;
            continue;
        }
        quiet = 0;
        stopped = locality_pg::stop_counters(node, machine);
    }
    // (Still closed: no draw since the last stop, which is the one logged.)
    if (stopped && locality_pg::stop_still_closed())
        ereport(LOG, (errmsg("locality_uuid: counters stopped cleanly at variable " UINT64_FORMAT
                             ", given-time " UINT64_FORMAT ", Hot Guid " UINT64_FORMAT,
                             node[0], node[1], machine[0]),
                      errdetail("Logged in WAL: a standby promoted after this stop continues this server's "
                                "node value and machine bytes there when they lead again, unless ids are drawn "
                                "after it.")));
    proc_exit(0);
}
