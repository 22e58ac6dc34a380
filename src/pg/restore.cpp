#include "restore.hpp"

#include <unistd.h>

#include <cerrno>
#include <initializer_list>

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

// Reads the file into s and makes s available; false (s stays unavailable,
// the reason kept in s) if it exists but cannot be read.
bool load_state(SharedCounters *s, const FreshCounters &fresh) {
    ReservedState saved{};
    const StateRead read = read_state_file(&saved);
    if (read == StateRead::corrupt || read == StateRead::io_error) {
        s->unreadable_errno = read == StateRead::io_error ? errno : 0;
        return false;
    }
    const bool restored = read == StateRead::ok;
    if (!restored) {
        saved = ReservedState{};
        saved.variable_start = fresh.variable_start;
        saved.explicit_sequential = fresh.explicit_sequential;
        saved.hot_guid = fresh.hot_guid;
    }
    apply_state(s, saved, restored);
    ReservedState written = snapshot(s);
    written.system_identifier = saved.system_identifier;
    written.timeline = saved.timeline;
    // A clock behind the seconds reserved for Hot Guids (it stepped back
    // before the restart): rather than refuse them until it catches up,
    // open the first second no id can carry yet, once it is reserved. Only
    // where this file is the newest word on them: not on a server that
    // starts as a standby or for point-in-time recovery, whose primary may
    // open that second meanwhile (it closes seconds instead).
    const uint64 now = static_cast<uint64>(locality::wall_clock_millis() / 1000);
    const uint64 unused_second = written.hot_seconds;  // the file's and any replayed mark
    const bool replays_another = access("standby.signal", F_OK) == 0 || access("recovery.signal", F_OK) == 0;
    const bool open_unused = restored && !replays_another && now + 1 < unused_second;
    if (open_unused) written.hot_seconds = unused_second + kHotSecondsAhead;
    const bool written_ok = write_state_file(written);
    if (written_ok && open_unused) open_hot_second(s, unused_second, written.hot_seconds);
    s->hot_seconds_at_start = pg_atomic_read_u64(&s->hot_seconds_until.value);
    if (!written_ok) {
        ereport(LOG, (errcode_for_file_access(), errmsg("locality_uuid: could not write \"%s\": %m", kStateFile),
                      errdetail("Ids beyond the reserved marks fail until it can be written.")));
    }
    pg_write_barrier();  // the counters before the flag (restore_late's readers)
    pg_atomic_write_u32(&s->available, 1);
    ereport(LOG, (errmsg("locality_uuid: server-wide counters %s",
                         restored ? "continue past the reserved marks in \"locality_uuid.state\""
                                  : "start fresh (no \"locality_uuid.state\" yet)")));
    return true;
}

}  // namespace

void restore_counters(SharedCounters *s, LWLock *lock, const FreshCounters &fresh) {
    s->lock = lock;
    ConditionVariableInit(&s->raised);
    pg_atomic_init_u32(&s->variable_start, 0);
    pg_atomic_init_u32(&s->available, 0);
    pg_atomic_init_u32(&s->runs_released, 0);
    s->unreadable_errno = 0;
    s->hot_seconds_at_start = 0;
    for (Line *l : {&s->variable, &s->explicit_sequential, &s->hot_draws, &s->hot_second, &s->hot_opened,
                    &s->variable_until, &s->explicit_until, &s->hot_until, &s->hot_seconds_until})
        pg_atomic_init_u64(&l->value, 0);
    for (uint32 i = 0; i < locality::kRunSlots; ++i) {
        pg_atomic_init_u64(&s->runs[i].value, 0);
        pg_atomic_init_u64(&s->run_until[i].value, 0);
    }
    if (load_state(s, fresh)) return;
    const int read_errno = s->unreadable_errno;  // 0: the file is corrupt
    errno = read_errno;
    ereport(LOG, (errcode(ERRCODE_DATA_CORRUPTED),
                  read_errno != 0
                      ? errmsg("locality_uuid: could not read \"%s\": %m", kStateFile)
                      : errmsg("locality_uuid: \"%s\" in the data directory is corrupt", kStateFile),
                  errdetail("Server-wide ids fail until the file can be read; everything else works."),
                  errhint("Restore the file, or delete it after giving this server a new "
                          "locality_uuid.node_id and locality_uuid.machine_name.")));
}

bool restore_late(SharedCounters *s, const FreshCounters &fresh) {
    LWLockAcquire(s->lock, LW_EXCLUSIVE);
    const bool ok = pg_atomic_read_u32(&s->available) != 0 || load_state(s, fresh);
    LWLockRelease(s->lock);
    ConditionVariableBroadcast(&s->raised);
    return ok;
}

void replay_reservation(SharedCounters *s, const ReservedState &logged, bool release) {
    ReservedState next{};
    bool adopted_unreadable = false;
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
        publish(s, next);
        adopted_unreadable = pg_atomic_read_u32(&s->available) == 0;
    } else {
        // Without server-wide counters on this server: the file alone.
        const StateRead read = read_state_file(&next);
        if (read != StateRead::ok) next = ReservedState{};
        adopted_unreadable = read == StateRead::corrupt || read == StateRead::io_error;
        raise_marks(&next, logged);
        next.variable_start = logged.variable_start;
    }
    if (release)
        for (uint32 i = 0; i < locality::kRunSlots; ++i) next.runs[i] = logged.runs[i];
    next.system_identifier = logged.system_identifier;
    next.timeline = logged.timeline;
    // A file that could not be read is replaced, and server-wide counters
    // that were unavailable for it become available: every record holds
    // every mark of the server that wrote it as of that record, and marks
    // only grow (a release lowers what no id made since can carry), so the
    // replayed marks cover everything the unreadable file held of this WAL
    // history. (Refills the file held beyond the last record were never
    // flushed to WAL, so none of their ids was handed out: reservation.hpp.)
    const bool written = write_state_file(next);
    const int saved_errno = errno;
    if (written && adopted_unreadable && s != nullptr) {
        pg_write_barrier();  // the counters before the flag
        pg_atomic_write_u32(&s->available, 1);
    }
    if (s != nullptr) LWLockRelease(s->lock);
    if (written && adopted_unreadable)
        ereport(LOG, (errmsg("locality_uuid: \"%s\" rewritten from a replayed reservation", kStateFile),
                      errdetail("The file could not be read; the replayed marks cover everything it "
                                "held of this WAL history.")));
    // As for a data file that replay cannot write: the startup process
    // fails, and with it the server (a standby, or a primary in crash
    // recovery); started again once the file can be written, replay goes
    // on from the last restartpoint.
    if (!written) {
        errno = saved_errno;
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("could not write \"%s\" while replaying a locality_uuid reservation: %m",
                               kStateFile),
                        errdetail("The file must hold every replayed reservation before a "
                                  "restartpoint passes its record."),
                        errhint("Free space in the data directory's file system, or make the file "
                                "writable, and start the server again.")));
    }
}

void close_current_hot_second(SharedCounters *s) {
    // Crash recovery replays only what the file already held; a standby
    // replays its primary's reservations, which raise the bound.
    if (s != nullptr && pg_atomic_read_u64(&s->hot_seconds_until.value) != s->hot_seconds_at_start)
        close_hot_seconds(s);
}

}  // namespace locality_pg
