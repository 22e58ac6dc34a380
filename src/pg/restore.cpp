#include "restore.hpp"

#include <unistd.h>

#include <cerrno>
#include <initializer_list>

extern "C" {
#include "access/xlog.h"  // GetSystemIdentifier
#include "catalog/pg_control.h"
#include "common/controldata_utils.h"
#include "miscadmin.h"  // DataDir
#if PG_VERSION_NUM >= 140000
#include "utils/wait_event.h"  // PG_WAIT_EXTENSION (in pgstat.h before 14)
#else
#include "pgstat.h"
#endif
}

#include "hot_guid_generator.hpp"
#include "marks.hpp"
#include "release_runs.hpp"
#include "reservation.hpp"
#include "wall_clock.hpp"

namespace locality_pg {
namespace {

// Raises a counter to at least `floor` (only replay moves a counter this
// way; generation only adds).
void raise_counter(pg_atomic_uint64 *cell, uint64 floor) {
    uint64 seen = pg_atomic_read_u64(cell);
    while (seen < floor && !pg_atomic_compare_exchange_u64(cell, &seen, floor)) {
    }
}

// Hot Guids for the clock of the seconds up to the newest one ids can carry
// (the current second, or the last reserved one if the clock stands behind
// it) are not known here: that second counts as full, its window ending at
// the draw mark, so ids wait for the next second (and a clock behind it
// gets error 54000 until it catches up).
void close_hot_seconds(SharedCounters *s) {
    const uint64 hot_mark = pg_atomic_read_u64(&s->hot_until.value);
    const uint64 reserved = pg_atomic_read_u64(&s->hot_seconds_until.value);  // seconds below it
    const uint64 now = static_cast<uint64>(locality::wall_clock_millis() / 1000);
    const uint64 newest = reserved > now + 1 ? reserved - 1 : now;
    const uint64 full_from = hot_mark - locality::kHotIdsPerSecond;
    const uint64 closed = ((newest + 1) << 32) | static_cast<uint32>(full_from);
    // Nothing is generated meanwhile (the start of a shared-memory lifetime,
    // or the end of recovery): the full opening draw, then the second.
    pg_atomic_write_u64(&s->hot_opened.value, full_from);
    uint64 seen = pg_atomic_read_u64(&s->hot_second.value);
    while ((seen >> 32) <= newest + 1 && seen != closed &&
           !pg_atomic_compare_exchange_u64(&s->hot_second.value, &seen, closed)) {
    }
}

// Opens `second` (reserved: below `reserved_until`, on disk) with a window
// that starts at the draw mark, for Hot Guids while the clock is behind it.
void open_hot_second(SharedCounters *s, uint64 second, uint64 reserved_until) {
    const uint64 first = pg_atomic_read_u64(&s->hot_until.value);
    pg_atomic_write_u64(&s->hot_seconds_until.value, reserved_until);
    pg_atomic_write_u64(&s->hot_opened.value, first);
    pg_atomic_write_u64(&s->hot_second.value, ((second + 1) << 32) | static_cast<uint32>(first));
}

// Raises every counter and mark of s to `saved`'s (a late restore may find
// them raised by replay already) and takes its variable-mode start.
// `restored`: saved comes from a file, written by a server that may have
// made Hot Guids in this very second.
void apply_state(SharedCounters *s, const ReservedState &saved, bool restored) {
    pg_atomic_write_u32(&s->variable_start, saved.variable_start);
    raise_counter(&s->variable.value, saved.variable);
    raise_counter(&s->explicit_sequential.value, saved.explicit_sequential);
    raise_counter(&s->hot_draws.value, saved.hot_guid);
    for (uint32 i = 0; i < locality::kRunSlots; ++i) raise_counter(&s->runs[i].value, saved.runs[i]);
    ReservedState marks = snapshot(s);
    raise_marks(&marks, saved);
    publish(s, marks);
    if (restored) close_hot_seconds(s);
}

// The file's marks into *saved, or fresh counters if there is none.
// False (the reason kept in s) if it exists but cannot be read; *restored
// says whether there was a file.
bool read_or_fresh(SharedCounters *s, const FreshCounters &fresh, ReservedState *saved, bool *restored) {
    *saved = ReservedState{};
    const StateRead read = read_state_file(saved);
    if (read == StateRead::corrupt || read == StateRead::io_error) {
        s->unreadable_errno = read == StateRead::io_error ? errno : 0;
        return false;
    }
    *restored = read == StateRead::ok;
    if (!*restored) {
        *saved = ReservedState{};
        saved->variable_start = fresh.variable_start;
        saved->explicit_sequential = fresh.explicit_sequential;
        saved->hot_guid = fresh.hot_guid;
    }
    return true;
}

// Will this start replay another server's WAL? A standby or a point-in-time
// recovery (a signal file), a start from a base backup (backup_label, or
// pg_control still waiting for the backup's end after a crash during that
// recovery), or an archive recovery pg_control remembers. Only the
// postmaster asks, before the startup process renames backup_label.
bool replays_another_server() {
    if (access("standby.signal", F_OK) == 0 || access("recovery.signal", F_OK) == 0 ||
        access("backup_label", F_OK) == 0)
        return true;
    bool crc_ok = false;
    ControlFileData *control = get_controlfile(DataDir, &crc_ok);
    const bool another = !crc_ok || control->state == DB_IN_ARCHIVE_RECOVERY ||
                         control->state == DB_SHUTDOWNED_IN_RECOVERY ||
                         control->backupStartPoint != InvalidXLogRecPtr || control->backupEndRequired;
    pfree(control);
    return another;
}

// Reads the file into s and makes s available; false (s stays unavailable,
// the reason kept in s) if it exists but cannot be read, or if it can but
// is in doubt: read `late` (after the start could not read it), or written
// by another cluster. A file in doubt still raises the counters (raising
// never repeats an id) but hands out nothing until a superuser accepts it
// (accept_state_file).
bool load_state(SharedCounters *s, const FreshCounters &fresh, bool late) {
    ReservedState saved;
    bool restored = false;
    if (!read_or_fresh(s, fresh, &saved, &restored)) return false;
    s->doubt = late || state_marked_in_doubt() ? StateDoubt::late
               : restored && saved.system_identifier != 0 && saved.system_identifier != GetSystemIdentifier()
                   ? StateDoubt::foreign
                   : StateDoubt::none;
    apply_state(s, saved, restored);
    // What the file holds: nothing when there is none.
    s->on_disk = restored ? saved : ReservedState{};
    s->on_disk_known = true;
    if (s->doubt != StateDoubt::none) {
        report_doubt(s, LOG);
        return false;
    }
    return make_available(s, saved, restored, /* at_start */ !late);
}

}  // namespace

// The marks of s made available, and written back: at start (the file's
// marks, or fresh counters), or when a superuser accepted a file in doubt.
// The caller holds the lock, or is the postmaster at start.
bool make_available(SharedCounters *s, const ReservedState &saved, bool restored, bool at_start) {
    ReservedState written = snapshot(s);
    written.system_identifier = saved.system_identifier;
    written.timeline = saved.timeline;
    if (!at_start) stamp_cluster(&written);  // accepted: this cluster's file from now on
    s->hot_seconds_in_file = saved.hot_seconds;
    // A clock behind the seconds reserved for Hot Guids (it stepped back
    // before the restart): rather than refuse them until it catches up,
    // open the first second no id can carry yet, once it is reserved. Only
    // where this file is the newest word on them: not on a server that
    // starts as a standby, for point-in-time recovery or from a backup,
    // whose origin may open that second meanwhile (it closes seconds
    // instead).
    const uint64 now = static_cast<uint64>(locality::wall_clock_millis() / 1000);
    const uint64 unused_second = written.hot_seconds;  // the file's and any replayed mark
    const bool open_unused = restored && !s->replays_another && now + 1 < unused_second;
    if (open_unused) written.hot_seconds = unused_second + kHotSecondsAhead;
    const bool written_ok = write_marks(s, written);
    if (written_ok && open_unused) {
        open_hot_second(s, unused_second, written.hot_seconds);
        s->hot_seconds_floor = written.hot_seconds;
    }
    if (!written_ok) {
        ereport(LOG, (errcode_for_file_access(), errmsg("locality_uuid: could not write \"%s\": %m", kStateFile),
                      errdetail("Ids beyond the reserved marks fail until it can be written.")));
    }
    s->doubt = StateDoubt::none;
    pg_write_barrier();  // the counters before the flag (restore_late's readers)
    pg_atomic_write_u32(&s->available, 1);
    if (restored)
        ereport(LOG, (errmsg("locality_uuid: server-wide counters continue past the reserved marks in \"%s\"",
                             kStateFile)));
    else
        // The file cannot vanish by itself: a new cluster, a pg_upgrade
        // without it, or a tool or person that removed it. Said loudly.
        ereport(WARNING,
                (errmsg("locality_uuid: server-wide counters start fresh: no \"%s\" in the data directory",
                        kStateFile),
                 errdetail("Expected once on a new cluster. Otherwise ids for given times and Hot Guids for "
                           "given times start from new random counters and may repeat earlier ones."),
                 errhint("If this cluster made server-wide ids before, stop it, put back the newest copy "
                         "of the file, and start it again.")));
    return true;
}

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

// After a release lowered the seconds bound: a newest second at or past
// the bound and ahead of the clock (the glitch's) moves back, closed as
// full from the draw mark (draws below it are raised past it first), to
// the last second below the bound or the clock's, whichever is later. A
// newest second the clock has reached may hold ids and stays as it is;
// so does one below the bound (a second a start opened). The caller holds
// the lock, or nothing generates (replay).
void pull_back_hot_second(SharedCounters *s) {
    const uint64 bound = pg_atomic_read_u64(&s->hot_seconds_until.value);
    const uint64 newest = (pg_atomic_read_u64(&s->hot_second.value) >> 32) - 1;
    const uint64 now = static_cast<uint64>(locality::wall_clock_millis() / 1000);
    if (newest < bound || newest <= now) return;
    const uint64 second = Max(bound - 1, now);
    const uint64 hot_mark = pg_atomic_read_u64(&s->hot_until.value);
    raise_counter(&s->hot_draws.value, hot_mark);
    const uint64 full_from = hot_mark - locality::kHotIdsPerSecond;
    pg_atomic_write_u64(&s->hot_opened.value, full_from);
    pg_write_barrier();  // the opening draw before the second that uses it
    pg_atomic_write_u64(&s->hot_second.value, ((second + 1) << 32) | static_cast<uint32>(full_from));
}

void restore_counters(SharedCounters *s, LWLock *lock, const FreshCounters &fresh) {
    s->lock = lock;
    ConditionVariableInit(&s->raised);
    pg_atomic_init_u32(&s->variable_start, 0);
    pg_atomic_init_u32(&s->available, 0);
    pg_atomic_init_u32(&s->runs_released, 0);
    s->unreadable_errno = 0;
    s->doubt = StateDoubt::none;
    s->on_disk = ReservedState{};
    s->on_disk_known = false;
    s->replays_another = replays_another_server();
    s->hot_seconds_in_file = 0;
    s->hot_seconds_replayed = 0;
    s->hot_seconds_floor = 0;
    pg_atomic_init_u64(&s->write_retry_at, 0);
    s->write_errno = 0;
    for (Line *l : {&s->variable, &s->explicit_sequential, &s->hot_draws, &s->hot_second, &s->hot_opened,
                    &s->variable_until, &s->explicit_until, &s->hot_until, &s->hot_seconds_until})
        pg_atomic_init_u64(&l->value, 0);
    for (uint32 i = 0; i < locality::kRunSlots; ++i) {
        pg_atomic_init_u64(&s->runs[i].value, 0);
        pg_atomic_init_u64(&s->run_until[i].value, 0);
    }
    if (load_state(s, fresh, /* late */ false) || s->doubt != StateDoubt::none) return;
    const int read_errno = s->unreadable_errno;  // 0: the file is corrupt
    // Whatever is put there later waits for a superuser, across restarts too.
    if (!mark_state_in_doubt())
        ereport(LOG, (errcode_for_file_access(),
                      errmsg("locality_uuid: could not write \"%s\": %m", kDoubtFile),
                      errdetail("A file put back is then in doubt only until the next restart.")));
    errno = read_errno;
    ereport(LOG, (errcode(ERRCODE_DATA_CORRUPTED),
                  read_errno != 0
                      ? errmsg("locality_uuid: could not read \"%s\": %m", kStateFile)
                      : errmsg("locality_uuid: \"%s\" in the data directory is corrupt", kStateFile),
                  errdetail("Server-wide ids fail until the file can be read; everything else works."),
                  errhint("Put back the newest copy of the file; ids wait for a superuser to accept it "
                          "(locality_uuid_accept_state_file()).")));
}

bool restore_late(SharedCounters *s, const FreshCounters &fresh) {
    if (pg_atomic_read_u32(&s->available) != 0) return true;
    // A file in doubt waits for a superuser; it is not read again per call.
    if (s->doubt != StateDoubt::none) return false;
    // One reader at a time, and never a queue that cannot be cancelled: a
    // backend that finds another reading reports the file as it stands.
    if (!LWLockConditionalAcquire(s->lock, LW_EXCLUSIVE)) return false;
    const bool ok = pg_atomic_read_u32(&s->available) != 0 ||
                    (s->doubt == StateDoubt::none && load_state(s, fresh, /* late */ true));
    LWLockRelease(s->lock);
    ConditionVariableBroadcast(&s->raised);
    return ok;
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

// Whether a holds a mark above b's (or another variable-mode start).
bool rises_above(const ReservedState &a, const ReservedState &b) {
    if (a.variable_start != b.variable_start || a.variable > b.variable ||
        a.explicit_sequential > b.explicit_sequential || a.hot_guid > b.hot_guid || a.hot_seconds > b.hot_seconds)
        return true;
    for (uint32 i = 0; i < locality::kRunSlots; ++i)
        if (a.runs[i] > b.runs[i]) return true;
    return false;
}

}  // namespace

void replay_reservation(SharedCounters *s, const ReservedState &logged, ReplayKind kind) {
    const bool release = kind == ReplayKind::release_runs;
    const bool release_hot = kind == ReplayKind::release_hot_seconds;
    ReservedState next{};
    ReservedState held{};  // what the file holds
    bool held_known = false;
    bool adopted_unreadable = false;
    // Without shared memory there is nothing that remembers the start:
    // every record that raises a mark must reach the file.
    bool replays_another = true;
    if (s != nullptr) {
        // Nothing is generated during recovery (counter_state.cpp refuses),
        // so raising the counters to the marks starts the promoted server
        // past every logged reservation.
        LWLockAcquire(s->lock, LW_EXCLUSIVE);
        if (release) lower_runs(s, logged);
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
        // A file that could not be read (not one in doubt: a file of
        // another cluster, or put back, waits for a superuser still).
        adopted_unreadable = pg_atomic_read_u32(&s->available) == 0 && s->doubt == StateDoubt::none;
        held = s->on_disk;
        held_known = s->on_disk_known;
        replays_another = s->replays_another;
    } else {
        // Without server-wide counters on this server: the file alone.
        const StateRead read = read_state_file(&next);
        if (read != StateRead::ok) next = ReservedState{};
        held = next;
        held_known = read == StateRead::ok;
        adopted_unreadable = read == StateRead::corrupt || read == StateRead::io_error;
        raise_marks(&next, logged);
        if (release_hot) next.hot_seconds = logged.hot_seconds;
        next.variable_start = logged.variable_start;
    }
    if (release)
        for (uint32 i = 0; i < locality::kRunSlots; ++i) next.runs[i] = logged.runs[i];
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
    const bool needs_write = adopted_unreadable ||
                             (replays_another ? !held_known || !same_marks(next, held)
                                              : held_known && rises_above(next, held));
    const bool written = !needs_write || (s != nullptr ? write_marks(s, next) : write_state_file(next));
    const int saved_errno = errno;
    if (needs_write && written && adopted_unreadable && s != nullptr) {
        pg_write_barrier();  // the counters before the flag
        pg_atomic_write_u32(&s->available, 1);
    }
    if (needs_write && written && adopted_unreadable) clear_doubt_mark();
    if (s != nullptr) LWLockRelease(s->lock);
    if (needs_write && written && adopted_unreadable)
        ereport(LOG, (errmsg("locality_uuid: \"%s\" rewritten from a replayed reservation", kStateFile),
                      errdetail("The file could not be read; the replayed marks cover everything it "
                                "held of this WAL history.")));
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
    const uint64 now = static_cast<uint64>(locality::wall_clock_millis() / 1000);
    ReservedState written = snapshot(s);
    const uint64 unused_second = written.hot_seconds;
    if (now + 1 >= unused_second) return;
    written.system_identifier = s->on_disk.system_identifier;
    written.timeline = s->on_disk.timeline;
    written.hot_seconds = unused_second + kHotSecondsAhead;
    if (write_marks(s, written)) open_hot_second(s, unused_second, written.hot_seconds);
}

}  // namespace locality_pg
