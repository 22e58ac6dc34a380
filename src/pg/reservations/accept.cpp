// A file in doubt (put back after a failed start): why it is not used, and
// a superuser's accepting it
// (locality_uuid_accept_state_file()).
#include "reservations/restore.hpp"

extern "C" {
#include "access/xlog.h"  // GetSystemIdentifier
}

#include "reservations/dealign.hpp"
#include "reservations/restore_steps.hpp"

namespace locality_pg {

void report_doubt(SharedCounters *, int elevel) {
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
    acquire_counters_lock(s);
    AcceptResult result = AcceptResult::already_trusted;
    if (pg_atomic_read_u32(&s->available) == 0) {
        // Read again: the superuser may have put another copy meanwhile.
        ReservedState saved;
        bool restored = false;
        if (!read_or_fresh(s, fresh, &saved, &restored)) {
            result = AcceptResult::unreadable;
        } else {
            apply_state(s, saved, restored);
            // A copy put back may be older than this history: its lineage
            // would place returning identities by marks they went past.
            // Forgotten: moves are random again until it is rebuilt.
            s->lineage = locality::Lineage{};
            // Moved on as a copy's, before the counters are published: an
            // older copy accepted by mistake then lines up with nothing it
            // made since.
            const bool moved = move_accepted(s, fresh);
            const bool written = make_available(s, saved, restored, /* stamp */ true);
            bind_accepted(s, moved, written);
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
    release_counters_lock(s);
    return result;
}

}  // namespace locality_pg
