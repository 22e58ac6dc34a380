#include "reservations/stop.hpp"

#include <csignal>

extern "C" {
#include "access/xlog.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/wait_event.h"
}

#include "lineage.hpp"
#include "reservations/marks.hpp"
#include "reservations/reservation_wal.hpp"
#include "reservations/shared_counters.hpp"

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
    if (!s->stop_closed) {
        s->stop_marks = snapshot(s);
        s->stop_closed = true;
    }
    pg_atomic_write_u64(&s->variable_until.value, 0);
    pg_atomic_write_u64(&s->explicit_until.value, 0);
    pg_atomic_write_u64(&s->hot_until.value, 0);
    pg_memory_barrier();  // the closed marks before the counters are read (stop.hpp)
    node[0] = pg_atomic_read_u64(&s->variable.value);
    node[1] = pg_atomic_read_u64(&s->explicit_sequential.value);
    machine[0] = pg_atomic_read_u64(&s->hot_draws.value);
    machine[1] = 0;
    locality::lineage_stop(s->lineage.node, locality::kNodeCycles, node);
    locality::lineage_stop(s->lineage.machine, locality::kMachineCycles, machine);
    // Flushed before the shutdown checkpoint, which the walsenders send
    // after it: a standby that has the checkpoint has the stop.
    log_lineage_flushed(s->lineage);
    // Here the stop holds only for the record: a later draw's refill logs
    // the lineage without it.
    locality::lineage_unstop(s->lineage.node);
    locality::lineage_unstop(s->lineage.machine);
    s->lineage_unlogged = true;
    LWLockRelease(s->lock);
    return true;
}

namespace {

volatile sig_atomic_t stop_requested = 0;

void request_stop(int) {
    const int saved_errno = errno;
    stop_requested = 1;
    SetLatch(MyLatch);
    errno = saved_errno;
}

}  // namespace

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
    pqsignal(SIGTERM, locality_pg::request_stop);
    BackgroundWorkerUnblockSignals();
    BackgroundWorkerInitializeConnection(nullptr, nullptr, 0);
    while (locality_pg::stop_requested == 0) {
        (void) WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH, -1L, PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
    }
    uint64 node[2], machine[2];
    if (locality_pg::stop_counters(node, machine))
        ereport(LOG, (errmsg("locality_uuid: counters stopped cleanly at variable " UINT64_FORMAT
                             ", given-time " UINT64_FORMAT ", Hot Guid " UINT64_FORMAT,
                             node[0], node[1], machine[0]),
                      errdetail("Logged in WAL: a standby promoted after this stop continues this server's "
                                "node value and machine bytes there when they lead again.")));
    proc_exit(0);
}
