#include "release_runs.hpp"

#include <cerrno>

extern "C" {
#if PG_VERSION_NUM >= 140000
#include "utils/wait_event.h"  // PG_WAIT_EXTENSION (in pgstat.h before 14)
#endif
}

#include "marks.hpp"
#include "reservation.hpp"
#include "reservation_wal.hpp"

namespace locality_pg {

void lower_runs(SharedCounters *s, const ReservedState &to) {
    for (uint32 i = 0; i < locality::kRunSlots; ++i) {
        if (to.runs[i] < pg_atomic_read_u64(&s->runs[i].value)) pg_atomic_write_u64(&s->runs[i].value, to.runs[i]);
        if (to.runs[i] < pg_atomic_read_u64(&s->run_until[i].value))
            pg_atomic_write_u64(&s->run_until[i].value, to.runs[i]);
    }
    // Backends drop the blocks they cached of the released runs.
    pg_write_barrier();
    pg_atomic_fetch_add_u32(&s->runs_released, 1);
}

int release_future_runs(SharedCounters *s, uint32 now_window, uint32 *windows) {
    // As a refill's waiters do: cancellable, and visible as an Extension
    // wait while a refill's fsync holds the lock.
    ConditionVariablePrepareToSleep(&s->raised);
    while (!LWLockConditionalAcquire(s->lock, LW_EXCLUSIVE))
        ConditionVariableTimedSleep(&s->raised, 100, PG_WAIT_EXTENSION);
    ConditionVariableCancelSleep();

    ReservedState next = snapshot(s);
    const uint64 first_future = static_cast<uint64>(now_window) + locality::kRunSlots;
    int released = 0;
    for (uint32 i = 0; i < locality::kRunSlots; ++i) {
        // window + 1 of the slot's newest run, drawn or reserved
        const uint64 held = Max(next.runs[i], pg_atomic_read_u64(&s->runs[i].value)) >> 32;
        if (held == 0 || held - 1 < first_future) continue;
        windows[released++] = static_cast<uint32>(held - 1);
        next.runs[i] = 0;
    }
    if (released > 0) {
        stamp_cluster(&next);
        if (!write_state_file(next)) {
            const int saved = errno;
            LWLockRelease(s->lock);
            ConditionVariableBroadcast(&s->raised);
            errno = saved;
            return -1;
        }
        log_release(next);
        lower_runs(s, next);
    }
    LWLockRelease(s->lock);
    ConditionVariableBroadcast(&s->raised);
    return released;
}

}  // namespace locality_pg
