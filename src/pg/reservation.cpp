#include "reservation.hpp"

#include <cerrno>
#include <initializer_list>

extern "C" {
#include "access/xlog.h"
}

#include "generator.hpp"
#include "hot_guid_generator.hpp"
#include "reservation_wal.hpp"
#include "wall_clock.hpp"

namespace locality_pg {
namespace {

ReservedState snapshot(SharedCounters *s) {
    ReservedState r{};
    r.variable_start = pg_atomic_read_u32(&s->variable_start);
    r.variable = pg_atomic_read_u64(&s->variable_until.value);
    r.explicit_sequential = pg_atomic_read_u64(&s->explicit_until.value);
    r.hot_guid = pg_atomic_read_u64(&s->hot_until.value);
    for (uint32 i = 0; i < locality::kRunSlots; ++i) r.runs[i] = pg_atomic_read_u64(&s->run_until[i].value);
    return r;
}

// The marks of r in shared memory; the caller holds the lock, whose release
// makes them visible in order to the next holder.
void publish(SharedCounters *s, const ReservedState &r) {
    pg_atomic_write_u64(&s->variable_until.value, r.variable);
    pg_atomic_write_u64(&s->explicit_until.value, r.explicit_sequential);
    pg_atomic_write_u64(&s->hot_until.value, r.hot_guid);
    for (uint32 i = 0; i < locality::kRunSlots; ++i) pg_atomic_write_u64(&s->run_until[i].value, r.runs[i]);
}

// Raises a counter to at least `floor` (only replay moves a counter this
// way; generation only adds).
void raise_counter(pg_atomic_uint64 *cell, uint64 floor) {
    uint64 seen = pg_atomic_read_u64(cell);
    while (seen < floor && !pg_atomic_compare_exchange_u64(cell, &seen, floor)) {
    }
}

// Where this server's WAL goes now, for the file (informational).
TimeLineID current_timeline() {
    if (RecoveryInProgress()) return 0;
#if PG_VERSION_NUM >= 150000
    return GetWALInsertionTimeLine();
#else
    return ThisTimeLineID;
#endif
}

// The error of the last failed write, reported after the draw failed.
int reserve_errno = 0;

// Raises d's mark to d + its reservation: the file first, then the WAL
// record (flushed), then shared memory (the order reservation.hpp's
// invariant rests on). The caller holds the lock. False (errno saved) if the
// file could not be written; nothing is published then.
bool extend_reservation(SharedCounters *s, const locality::Draw &d) {
    ReservedState next = snapshot(s);
    switch (d.counter) {
        case locality::Counter::variable: next.variable = d.position + kReserve; break;
        case locality::Counter::explicit_sequential: next.explicit_sequential = d.position + kReserve; break;
        case locality::Counter::hot_guid: next.hot_guid = d.position + kHotReserve; break;
        case locality::Counter::run: {
            next.runs[d.slot] = ((static_cast<uint64>(d.window) + 1) << 32) |
                                Min(d.position + kReserve, static_cast<uint64>(locality::kRunIds));
            // The next window's run is reserved ahead too, so that its first
            // ids, at the rollover, find their mark already on disk instead
            // of all waiting for this write. (Its slot's older run, 63
            // windows back, is then refused after a restart: a clock more
            // than 10.5 hours behind.)
            const uint64 following = static_cast<uint64>(d.window) + 2;  // (window + 1) + 1
            uint64 &ahead = next.runs[(d.window + 1) % locality::kRunSlots];
            ahead = Max(ahead, (following << 32) | kReserve);
            break;
        }
    }
    next.system_identifier = GetSystemIdentifier();
    next.timeline = current_timeline();
    if (!write_state_file(next)) {
        reserve_errno = errno;
        return false;
    }
    log_reservation(next);
    publish(s, next);
    return true;
}

void close_hot_second(SharedCounters *s, uint64 hot_mark) {
    // The window of the closed second ends at the mark: every later draw
    // finds it full and waits for the next second.
    const uint64 second = static_cast<uint64>(locality::wall_clock_millis() / 1000);
    const uint32 full_from = static_cast<uint32>(hot_mark) - static_cast<uint32>(locality::kHotIdsPerSecond);
    const uint64 closed = ((second + 1) << 32) | full_from;
    uint64 seen = pg_atomic_read_u64(&s->hot_second.value);
    while ((seen >> 32) <= second + 1 && seen != closed &&
           !pg_atomic_compare_exchange_u64(&s->hot_second.value, &seen, closed)) {
    }
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
    // Hot Guids made in this very second before the restart are not known:
    // the second counts as full, so ids wait for the next one.
    if (restored) close_hot_second(s, marks.hot_guid);
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
    if (!write_state_file(written))
        ereport(LOG, (errcode_for_file_access(), errmsg("locality_uuid: could not write \"%s\": %m", kStateFile),
                      errdetail("Ids beyond the reserved marks fail until it can be written.")));
    pg_write_barrier();  // the counters before the flag (restore_late's readers)
    pg_atomic_write_u32(&s->available, 1);
    ereport(LOG, (errmsg("locality_uuid: server-wide counters %s",
                         restored ? "continue past the reserved marks in \"locality_uuid.state\""
                                  : "start fresh (no \"locality_uuid.state\" yet)")));
    return true;
}

}  // namespace

// A draw past half of its reservation raises the mark, if no other backend
// holds the lock, while everyone keeps drawing below the old mark; only a
// draw at or past the mark itself waits, on the lock, for the backend that
// raises it.
__attribute__((noinline)) bool reserve_slow(SharedCounters *s, const locality::Draw &d) noexcept {
    if (covered(s, d)) {
        if (!LWLockConditionalAcquire(s->lock, LW_EXCLUSIVE)) return true;  // someone is raising it
    } else {
        LWLockAcquire(s->lock, LW_EXCLUSIVE);
    }
    const bool ok = covered(s, d, reservation_of(d) / 2) || extend_reservation(s, d);
    LWLockRelease(s->lock);
    return ok || covered(s, d);
}

int reservation_errno() { return reserve_errno; }

void restore_counters(SharedCounters *s, LWLock *lock, const FreshCounters &fresh) {
    s->lock = lock;
    pg_atomic_init_u32(&s->variable_start, 0);
    pg_atomic_init_u32(&s->available, 0);
    s->unreadable_errno = 0;
    for (Line *l : {&s->variable, &s->explicit_sequential, &s->hot_draws, &s->hot_second, &s->variable_until,
                    &s->explicit_until, &s->hot_until})
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
    return ok;
}

void replay_reservation(SharedCounters *s, const ReservedState &logged) {
    ReservedState next{};
    if (s != nullptr) {
        // Nothing is generated during recovery (counter_state.cpp refuses),
        // so raising the counters to the marks starts the promoted server
        // past every logged reservation.
        LWLockAcquire(s->lock, LW_EXCLUSIVE);
        pg_atomic_write_u32(&s->variable_start, logged.variable_start);
        raise_counter(&s->variable.value, logged.variable);
        raise_counter(&s->explicit_sequential.value, logged.explicit_sequential);
        raise_counter(&s->hot_draws.value, logged.hot_guid);
        for (uint32 i = 0; i < locality::kRunSlots; ++i) raise_counter(&s->runs[i].value, logged.runs[i]);
        next = snapshot(s);
        raise_marks(&next, logged);
        publish(s, next);
    } else {
        // Without server-wide counters on this server: the file alone.
        if (read_state_file(&next) != StateRead::ok) next = ReservedState{};
        raise_marks(&next, logged);
        next.variable_start = logged.variable_start;
    }
    next.system_identifier = logged.system_identifier;
    next.timeline = logged.timeline;
    // A file that could not be read at start is left as it is: the marks it
    // held are unknown, and shared memory keeps the replayed ones until it
    // is restored (restore_late merges both).
    if (s != nullptr && pg_atomic_read_u32(&s->available) == 0) {
        LWLockRelease(s->lock);
        return;
    }
    const bool written = write_state_file(next);
    const int saved_errno = errno;
    if (s != nullptr) LWLockRelease(s->lock);
    // As for a data file that replay cannot write: replay stops, and goes on
    // from this record once the file can be written.
    if (!written) {
        errno = saved_errno;
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("could not write \"%s\" while replaying a locality_uuid reservation: %m",
                               kStateFile),
                        errdetail("The file must hold every replayed reservation before a "
                                  "restartpoint passes its record.")));
    }
}

void close_current_hot_second(SharedCounters *s) {
    if (s != nullptr) close_hot_second(s, pg_atomic_read_u64(&s->hot_until.value));
}

}  // namespace locality_pg
