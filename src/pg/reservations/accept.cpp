// A file in doubt (put back after a failed start, or written by another
// cluster): why it is not used, and a superuser's accepting it
// (locality_uuid_accept_state_file()).
#include "reservations/restore.hpp"

extern "C" {
#include "access/xlog.h"  // GetSystemIdentifier
#if PG_VERSION_NUM >= 140000
#include "utils/wait_event.h"  // PG_WAIT_EXTENSION (in pgstat.h before 14)
#else
#include "pgstat.h"
#endif
}

#include "reservations/restore_steps.hpp"

namespace locality_pg {

void report_doubt(SharedCounters *s, int elevel) {
    const uint64 this_cluster = GetSystemIdentifier();
    if (s->doubt == StateDoubt::foreign)
        ereport(elevel,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("\"%s\" was written by another cluster", kStateFile),
                 errdetail("Its system identifier is " UINT64_FORMAT ", this cluster's is " UINT64_FORMAT
                           ": a copy made beside its origin (pg_createsubscriber, a staging copy) "
                           "would hand out the origin's ids again.",
                           static_cast<uint64>(s->on_disk.system_identifier), this_cluster),
                 errhint("After pg_upgrade, or if the origin makes no more ids, accept it with SELECT "
                         "locality_uuid_accept_state_file(). A copy beside its origin must first get its "
                         "own locality_uuid.node_id and locality_uuid.machine_name.")));
    else
        ereport(elevel,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("\"%s\" changed after the start could not read it", kStateFile),
                 errdetail("Nothing proves that what is there now (a copy put back, or no file) holds the "
                           "newest marks; older marks would hand out their ids again."),
                 errhint("If it is the newest copy, accept it with SELECT locality_uuid_accept_state_file(). "
                         "If it may be older, or was deleted, first give this server a new "
                         "locality_uuid.node_id and locality_uuid.machine_name (reload), then accept it.")));
}

AcceptResult accept_state_file(SharedCounters *s, const FreshCounters &fresh) {
    // As a refill's waiters do: cancellable while a refill's fsync holds it.
    ConditionVariablePrepareToSleep(&s->raised);
    while (!LWLockConditionalAcquire(s->lock, LW_EXCLUSIVE))
        ConditionVariableTimedSleep(&s->raised, 100, PG_WAIT_EXTENSION);
    ConditionVariableCancelSleep();
    AcceptResult result = AcceptResult::already_trusted;
    if (pg_atomic_read_u32(&s->available) == 0) {
        // Read again: the superuser may have put another copy meanwhile.
        ReservedState saved;
        bool restored = false;
        if (!read_or_fresh(s, fresh, &saved, &restored)) {
            result = AcceptResult::unreadable;
        } else {
            apply_state(s, saved, restored);
            make_available(s, saved, restored, /* at_start */ false);
            clear_doubt_mark();
            ereport(LOG, (errmsg("locality_uuid: \"%s\" accepted by a superuser", kStateFile),
                          errdetail("Server-wide counters continue past variable " UINT64_FORMAT
                                    ", explicit " UINT64_FORMAT ", hot " UINT64_FORMAT ".",
                                    static_cast<uint64>(saved.variable),
                                    static_cast<uint64>(saved.explicit_sequential),
                                    static_cast<uint64>(saved.hot_guid))));
            result = restored ? AcceptResult::accepted_file : AcceptResult::accepted_fresh;
        }
    }
    LWLockRelease(s->lock);
    ConditionVariableBroadcast(&s->raised);
    return result;
}

}  // namespace locality_pg
