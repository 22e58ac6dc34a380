// Replay of the reservation records (startup process): the counters and
// marks raised past each record, the file written where it must hold them,
// and the end of recovery's clock Hot Guid second.
#include "reservations/restore.hpp"

#include <cerrno>
#include <cstring>

extern "C" {
#include "access/xlog.h"  // GetSystemIdentifier
}

#include "reservations/marks.hpp"
#include "reservations/release_runs.hpp"
#include "reservations/restore_steps.hpp"
#include "reservations/stop.hpp"

namespace locality_pg {

namespace {

// The marks two states hold (not the informational cluster stamp).
bool same_marks(const ReservedState &a, const ReservedState &b) {
    if (a.variable_start != b.variable_start || a.variable != b.variable ||
        a.explicit_sequential != b.explicit_sequential || a.hot_guid != b.hot_guid ||
        a.hot_seconds != b.hot_seconds)
        return false;
    for (uint32 i = 0; i < locality::kRunSlots; ++i)
        if (a.runs[i] != b.runs[i]) return false;
    return true;
}


}  // namespace

void replay_reservation(SharedCounters *s, const ReservedState &logged, ReplayKind kind) {
    const bool release = kind == ReplayKind::release_runs;
    const bool release_hot = kind == ReplayKind::release_hot_seconds;
    ReservedState next{};
    ReservedState held{};  // what the file holds
    bool held_known = false;
    bool adopted_unreadable = false;
    locality::Lineage file_lineage{};  // without shared memory: the file's, kept when it is written
    bool unstopped = false;  // a clean stop this record makes void
    // Without shared memory there is nothing that remembers the start:
    // every record that raises a mark must reach the file.
    bool replays_another = true;
    if (s != nullptr) {
        // Nothing is generated during recovery (counters/counter_state.cpp refuses),
        // so raising the counters to the marks starts the promoted server
        // past every logged reservation.
        LWLockAcquire(s->lock, LW_EXCLUSIVE);
        unstopped = forget_stop(&s->lineage);
        if (release) lower_runs(s, release_floored(s, logged));
        pg_atomic_write_u32(&s->variable_start, logged.variable_start);
        raise_counter(&s->variable.value, logged.variable);
        raise_counter(&s->explicit_sequential.value, logged.explicit_sequential);
        raise_counter(&s->hot_draws.value, logged.hot_guid);
        for (uint32 i = 0; i < locality::kRunSlots; ++i) raise_counter(&s->runs[i].value, logged.runs[i]);
        next = snapshot(s);
        raise_marks(&next, logged);
        // A release of Hot Guid seconds lowers their bound to the primary's,
        // never below a second this start opened (which only the file
        // holds), and closes the current second as the primary did, so a
        // standby promoted later does not keep the glitch's second.
        if (release_hot) next.hot_seconds = Max(static_cast<uint64>(logged.hot_seconds), s->hot_seconds_floor);
        publish(s, next);
        if (release_hot) pull_back_hot_second(s);
        // The seconds replay went to, for the end of recovery: a release of
        // seconds supersedes the records before it (in this server's own
        // WAL, a glitch's reservation the file no longer holds), and on a
        // server replaying another's it lowers the file's bound too, so
        // the seconds that server opens after the release count as its.
        if (release_hot) {
            s->hot_seconds_replayed = logged.hot_seconds;
            if (s->replays_another) s->hot_seconds_in_file = Min(s->hot_seconds_in_file, static_cast<uint64>(logged.hot_seconds));
        } else {
            s->hot_seconds_replayed = Max(s->hot_seconds_replayed, static_cast<uint64>(logged.hot_seconds));
        }
        // A file that could not be read, or one in doubt (put back after a
        // start that could not read it) when this record is this cluster's:
        // a server in doubt logs no reservation, so a record of this
        // cluster was logged while its marks were trusted, and holds every
        // mark ids were handed out under as of that record (review G3: a
        // standby made from a base backup of a primary in doubt would
        // otherwise refuse ids after its promotion until a superuser
        // stepped in).
        const bool clears_doubt =
            s->doubt == StateDoubt::late && logged.system_identifier == GetSystemIdentifier();
        adopted_unreadable = pg_atomic_read_u32(&s->available) == 0 && (s->doubt == StateDoubt::none || clears_doubt);
        held = s->on_disk;
        held_known = s->on_disk_known;
        replays_another = s->replays_another;
    } else {
        // Without server-wide counters on this server: the file alone.
        const StateRead read = read_state_file(&next, &file_lineage);
        if (read != StateRead::ok) next = ReservedState{};
        unstopped = forget_stop(&file_lineage);
        held = next;
        held_known = read == StateRead::ok;
        adopted_unreadable = read == StateRead::corrupt || read == StateRead::io_error;
        raise_marks(&next, logged);
        if (release_hot) next.hot_seconds = logged.hot_seconds;
        next.variable_start = logged.variable_start;
    }
    if (release) {
        const ReservedState floored = s != nullptr ? release_floored(s, logged) : logged;
        for (uint32 i = 0; i < locality::kRunSlots; ++i) next.runs[i] = floored.runs[i];
    }
    next.system_identifier = logged.system_identifier;
    next.timeline = logged.timeline;
    // Only a record the file does not hold yet is written. Crash recovery of
    // this server's own WAL writes nothing (each record was logged after
    // the file held it), so a file that cannot be written then does not
    // keep the server down; it writes only a mark above the file (a file
    // lost or replaced while the server was down) and never lowers one (a
    // release the file holds already: writing the marks between a glitch's
    // refill and its release could leave the file lower than before if a
    // later write failed). A standby writes each record of its primary's
    // that changes a mark, as a restartpoint may pass it.
    // A file that could not be read is replaced, and server-wide counters
    // that were unavailable for it become available: every record holds
    // every mark of the server that wrote it as of that record, and marks
    // only grow (a release lowers what no id made since can carry), so the
    // replayed marks cover everything the unreadable file held of this WAL
    // history. (Refills the file held beyond the last record were never
    // flushed to WAL, so none of their ids was handed out: reservation.hpp.)
    // Crash recovery writes a release's lower marks too once it has
    // written a mark of its own (review G5): before the crash the file held
    // the release, and leaving the glitch's marks there would undo it at
    // the next restart.
    const bool rewrote = s != nullptr && s->replay_wrote_file;
    // A clean stop (stop.hpp) followed by a record of the counters: the
    // server drew again (a restart, a stray end of its stop worker), so the
    // stop no longer says where its identity left them. Kept void in the
    // file before a restartpoint passes this record.
    const bool needs_write =
        adopted_unreadable || (unstopped && replays_another) ||
        (replays_another ? !held_known || !same_marks(next, held)
                         : held_known && (rises_above(next, held) ||
                                          ((release || release_hot) && rewrote && !same_marks(next, held))));
    const bool written = !needs_write || (s != nullptr ? write_marks(s, next) : write_state_file(next, nullptr, &file_lineage));
    const int saved_errno = errno;
    if (needs_write && written && s != nullptr && !replays_another) s->replay_wrote_file = true;
    if (needs_write && written && adopted_unreadable && s != nullptr) {
        s->doubt = StateDoubt::none;
        pg_write_barrier();  // the counters before the flag
        pg_atomic_write_u32(&s->available, 1);
    }
    if (needs_write && written && adopted_unreadable) clear_doubt_mark();
    if (s != nullptr) LWLockRelease(s->lock);
    if (needs_write && written && adopted_unreadable)
        ereport(LOG, (errmsg("locality_uuid: \"%s\" rewritten from a replayed reservation", kStateFile),
                      errdetail("The file could not be read, or was in doubt; the replayed marks cover "
                                "every id this cluster handed out as of the record.")));
    if (written) return;
    errno = saved_errno;
    // Crash recovery of this server's own WAL: the file already held every
    // mark ids were handed out under (it was written before each record),
    // but for a glitch's refill that a release record then lowers. The
    // counters stand at the replayed marks, so the first id of each makes a
    // refill that writes the file (or fails) before it is handed out.
    if (!replays_another) {
        ereport(LOG, (errcode_for_file_access(),
                      errmsg("locality_uuid: could not write \"%s\" while replaying this server's WAL: %m",
                             kStateFile),
                      errdetail("Recovery goes on: the file holds every mark this server handed out ids "
                                "under, and ids beyond it fail until it can be written.")));
        return;
    }
    // Replaying another server's WAL (a standby, point-in-time recovery, a
    // backup): as for a data file that replay cannot write, the startup
    // process fails, and with it the server; started again once the file
    // can be written, replay goes on from the last restartpoint.
    ereport(ERROR, (errcode_for_file_access(),
                    errmsg("could not write \"%s\" while replaying a locality_uuid reservation: %m",
                           kStateFile),
                    errdetail("The file must hold every replayed reservation of another server before "
                              "a restartpoint passes its record."),
                    errhint("Free space in the data directory's file system, or make the file "
                            "writable, and start the server again.")));
}

void replay_lineage(SharedCounters *s, const locality::Lineage &given, uint64 record_start) {
    // A clean stop's record: where it begins, to confirm it from there at a
    // promotion (stop.hpp).
    locality::Lineage logged = given;
    logged.stop_record = logged.node.stopped != 0 || logged.machine.stopped != 0 ? record_start : 0;
    if (s == nullptr) {
        // Without server-wide counters on this server: the file alone.
        ReservedState marks;
        locality::Lineage held;
        if (read_state_file(&marks, &held) == StateRead::ok && std::memcmp(&held, &logged, sizeof held) != 0 &&
            !write_state_file(marks, nullptr, &logged))
            ereport(ERROR, (errcode_for_file_access(),
                            errmsg("could not write \"%s\" while replaying a locality_uuid lineage: %m", kStateFile)));
        return;
    }
    LWLockAcquire(s->lock, LW_EXCLUSIVE);
    // Crash recovery of this server's own WAL: the file held each lineage
    // before its record was logged, and this start may have gone on from it
    // (a new identity): the record is older news.
    if (!s->replays_another) {
        LWLockRelease(s->lock);
        return;
    }
    const bool changed = std::memcmp(&s->lineage, &logged, sizeof logged) != 0;
    s->lineage = logged;
    s->lineage_unlogged = false;
    // Crash recovery of this server's own WAL: the file held the lineage
    // before the record was logged. Another server's: the file must hold
    // it before a restartpoint passes the record, as for its marks.
    const bool write = changed && s->replays_another && s->on_disk_known;
    const bool written = !write || write_marks(s, s->on_disk);
    const int saved_errno = errno;
    LWLockRelease(s->lock);
    if (written) return;
    errno = saved_errno;
    ereport(ERROR, (errcode_for_file_access(),
                    errmsg("could not write \"%s\" while replaying a locality_uuid lineage: %m", kStateFile),
                    errdetail("The file must hold every replayed record of another server before a restartpoint "
                              "passes it."),
                    errhint("Free space in the data directory's file system, or make the file writable, and "
                            "start the server again.")));
}

void close_current_hot_second(SharedCounters *s) {
    if (s == nullptr) return;
    // Crash recovery replays only what the file already held; a standby, a
    // point-in-time recovery or a start from a backup replays seconds its
    // origin opened beyond the file's.
    if (s->hot_seconds_replayed > s->hot_seconds_in_file) close_hot_seconds(s);
    if (!s->replays_another) return;  // the start opened what it could
    // A clock behind the seconds the origin reserved (a standby's clock
    // behind its primary's): as a restart does, open the first second no id
    // can carry yet, rather than refuse clock Hot Guids until the clock
    // catches up. Reserved in the file first; the first refill logs it.
    // Nothing generates yet: recovery has not ended.
    ReservedState written = snapshot(s);
    const uint64 unused_second = unused_hot_second(s, &written);
    if (unused_second == 0) return;
    written.system_identifier = s->on_disk.system_identifier;
    written.timeline = s->on_disk.timeline;
    if (write_marks(s, written)) open_hot_second(s, unused_second, written.hot_seconds);
}

}  // namespace locality_pg
