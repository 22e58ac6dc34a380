// Start-up: the server-wide counters at the start of a shared-memory
// lifetime (restored past locality_uuid.state's marks, or fresh), and read
// again by a backend after a start that could not read the file.
#include "reservations/restore.hpp"

#include <unistd.h>

#include <cerrno>
#include <initializer_list>

extern "C" {
#include "access/xlog.h"  // GetSystemIdentifier
#include "catalog/pg_control.h"
#include "common/controldata_utils.h"
#include "miscadmin.h"  // DataDir
}

#include "reservations/binding_file.hpp"
#include "reservations/dealign.hpp"
#include "reservations/marks.hpp"
#include "reservations/reservation.hpp"
#include "reservations/restore_steps.hpp"
#include "strong_random.hpp"
#include "reservations/host_marks.hpp"
#include "wall_clock.hpp"

namespace locality_pg {
namespace {

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

// A cluster whose counters can only start fresh: no binding file was
// found (no library of 1.3 ran here), and pg_control's last checkpoint is
// on the first timeline within the first 64 MB of WAL, where initdb
// leaves it (a pg_upgrade starts its WAL past the old cluster's; a cluster
// that ran for a while is past it too). Only the postmaster at start asks.
bool new_cluster() {
    if (binding_found_at_start()) return false;
    bool crc_ok = false;
    ControlFileData *control = get_controlfile(DataDir, &crc_ok);
    const bool fresh = crc_ok && control->checkPointCopy.ThisTimeLineID == 1 &&
                       control->checkPointCopy.redo < (static_cast<XLogRecPtr>(64) << 20);
    pfree(control);
    return fresh;
}

// Reads the file into s and makes s available; false (s stays unavailable,
// the reason kept in s) if it exists but cannot be read, or if it can but
// is in doubt: read `late` (after the start could not read it, or while a
// doubt mark from such a start remains). A file in doubt still raises the
// counters (raising never repeats an id) but hands out nothing until a
// superuser accepts it (accept_state_file). At start, counters bound
// elsewhere move past fresh random points first (dealign.hpp).
bool load_state(SharedCounters *s, const FreshCounters &fresh, bool late) {
    ReservedState saved;
    bool restored = false;
    if (!read_or_fresh(s, fresh, &saved, &restored)) return false;
    s->doubt = late || state_marked_in_doubt() ? StateDoubt::late : StateDoubt::none;
    if (s->doubt != StateDoubt::none) s->lineage = locality::Lineage{};  // a file put back: its lineage may be old
    apply_state(s, saved, restored);
    // What the file holds: nothing when there is none.
    s->on_disk = restored ? saved : ReservedState{};
    s->on_disk_known = true;
    if (s->doubt != StateDoubt::none) {
        report_doubt(s, LOG);
        return false;
    }
    // Only a start gets here: a late read is in doubt.
    if (restored && !s->replays_another) {
        s->file_at_start = saved;
        s->file_at_start_known = true;
    }
    check_binding_at_start(s, saved, restored, fresh);
    // What the start did to the lineage is in the file alone: in WAL with
    // the first refill (a standby's own comes with its primary's records).
    if (!s->replays_another) s->lineage_unlogged = true;
    const bool written = make_available(s, saved, restored, /* stamp */ start_moved_counters());
    bind_after_start(s, written);
    return true;
}

}  // namespace

FreshCounters fresh_counters() {
    FreshCounters f;
    f.variable_start = strong_random_u32();
    f.explicit_sequential = strong_random_u32();
    f.hot_guid = strong_random_u32();
    f.run_start = strong_random_u32() & (locality::kRunStartLimit - 1);
    // Each distance keeps a quarter of its counter's cycle clear on both
    // sides of where the origin stands (doc/guarantees.md, "Copies").
    f.variable_jump = (1ULL << 30) + strong_random_u32() % (1U << 31);
    f.explicit_jump = (1ULL << 29) + strong_random_u32() % (1U << 30);
    f.hot_jump = (1ULL << 22) + strong_random_u32() % (1U << 23);
    f.run_jump = (1U << 23) + strong_random_u32() % (1U << 23);
    for (uint32 &r : f.lineage) r = strong_random_u32();
    return f;
}

// The marks of s made available, and written back: at start (the file's
// marks, or fresh counters), or when a superuser accepted a file in doubt.
// The caller holds the lock, or is the postmaster at start. `stamp`: the
// file is this cluster's from now on (accepted, or moved at start);
// otherwise it keeps the stamp it had. True if the marks were written.
bool make_available(SharedCounters *s, const ReservedState &saved, bool restored, bool stamp) {
    ReservedState written = snapshot(s);
    written.system_identifier = saved.system_identifier;
    written.timeline = saved.timeline;
    if (stamp) stamp_cluster(&written);
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
    else if (new_cluster())
        ereport(LOG, (errmsg("locality_uuid: server-wide counters start fresh: a new cluster (no \"%s\" and no "
                             "\"%s\" yet)",
                             kStateFile, kBindingFile)));
    else
        // The file cannot vanish by itself: a pg_upgrade or a restore
        // without it, a tool or person that removed it, or the first
        // preload on a cluster that ran without the library. Said loudly.
        ereport(WARNING,
                (errmsg("locality_uuid: server-wide counters start fresh: no \"%s\" in the data directory of a "
                        "cluster that ran before",
                        kStateFile),
                 errdetail("Expected once when the library is first preloaded on an existing cluster. Otherwise "
                           "(a pg_upgrade or a restore without the file, or the file removed) ids for given times "
                           "and Hot Guids for given times start from new random counters and may repeat earlier "
                           "ones."),
                 errhint("If this cluster made server-wide ids before and has made none since this "
                         "start, stop it, put back the newest copy of the file (and of \"%s\"), and start it "
                         "again; if it has, first give it a new locality_uuid.node_id and "
                         "locality_uuid.machine_name.",
                         kBindingFile)));
    return written_ok;
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
    s->replay_wrote_file = false;
    s->replays_another = replays_another_server();
    s->standby_start = access("standby.signal", F_OK) == 0;
    s->hot_seconds_in_file = 0;
    s->hot_seconds_replayed = 0;
    s->hot_seconds_floor = 0;
    pg_atomic_init_u64(&s->write_retry_at, 0);
    s->write_errno = 0;
    pg_atomic_init_u32(&s->run_start, fresh.run_start);
    pg_atomic_init_u32(&s->moves_pending, 0);
    pg_atomic_init_u32(&s->identity_unreadable, 0);
    s->bound_known = false;
    s->move_target = MoveTarget{};
    s->move_why[0] = '\0';
    s->start_target = MoveTarget{};
    s->start_moved = false;
    s->file_at_start = ReservedState{};
    s->file_at_start_known = false;
    s->lineage = locality::Lineage{};  // the file's, read below
    s->lineage_unlogged = false;
    s->stop_closed = false;
    s->stop_marks = ReservedState{};
    s->move_lineage[0] = '\0';
    for (Line *l : {&s->variable, &s->explicit_sequential, &s->hot_draws, &s->hot_second, &s->hot_opened,
                    &s->variable_until, &s->explicit_until, &s->hot_seconds_until})
        pg_atomic_init_u64(&l->value, 0);
    pg_atomic_init_u64(&s->hot_until.value, 0);
    pg_atomic_init_u64(&s->hot_until.refill_at, 0);
    s->hot_step = 0;  // the first Hot Guid refill reserves kHotFirstReserve
    s->host_marks_given_up = false;
    do s->lifetime = strong_random_u32();
    while (s->lifetime == 0);
    for (uint32 i = 0; i < locality::kRunSlots; ++i) {
        pg_atomic_init_u64(&s->runs[i].value, 0);
        pg_atomic_init_u64(&s->run_until[i].value, 0);
    }
    read_binding_at_start(s);
    settle_host_marks_at_start();
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

}  // namespace locality_pg
