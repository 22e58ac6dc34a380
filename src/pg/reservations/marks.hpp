// The marks of SharedCounters as a whole, for the refill (reservation.cpp)
// and for restoring and replaying them (start.cpp, accept.cpp, replay.cpp).
#pragma once

#include "pg_boundary.hpp"

#include "reservations/shared_counters.hpp"
#include "reservations/state_file.hpp"

namespace locality_pg {

// The marks now in shared memory (and the variable-mode start).
inline ReservedState snapshot(SharedCounters *s) {
    ReservedState r{};
    r.variable_start = pg_atomic_read_u32(&s->variable_start);
    r.variable = pg_atomic_read_u64(&s->variable_until.value);
    r.explicit_sequential = pg_atomic_read_u64(&s->explicit_until.value);
    r.hot_guid = pg_atomic_read_u64(&s->hot_until.value);
    r.hot_seconds = pg_atomic_read_u64(&s->hot_seconds_until.value);
    for (uint32 i = 0; i < locality::kRunSlots; ++i) r.runs[i] = pg_atomic_read_u64(&s->run_until[i].value);
    if (s->stop_closed) {  // the marks a clean stop closed (stop.hpp)
        r.variable = s->stop_marks.variable;
        r.explicit_sequential = s->stop_marks.explicit_sequential;
        r.hot_guid = s->stop_marks.hot_guid;
    }
    return r;
}

// The Hot Guid draw mark, closed or not (the caller holds the lock, or
// nothing generates).
inline uint64 hot_guid_mark(SharedCounters *s) {
    return s->stop_closed ? s->stop_marks.hot_guid : pg_atomic_read_u64(&s->hot_until.value);
}

// The marks of r in shared memory; the caller holds the lock, whose release
// makes them visible in order to the next holder. A draw reads a mark
// without the lock (reservation.hpp, covered()): the barrier keeps every
// store the refill made before (the file, the WAL insertion) ahead of the
// marks on weakly ordered CPUs (arm64, POWER), where the lock's release
// alone orders nothing for a reader that never takes it. Each mark is read
// on its own and a stale one only sends a draw to the slow path, so the
// marks need no order among themselves.
inline void publish(SharedCounters *s, const ReservedState &r) {
    s->stop_closed = false;  // r holds every mark: a closed one is open again
    pg_write_barrier();
    pg_atomic_write_u64(&s->variable_until.value, r.variable);
    pg_atomic_write_u64(&s->explicit_until.value, r.explicit_sequential);
    pg_atomic_write_u64(&s->hot_until.value, r.hot_guid);
    pg_atomic_write_u64(&s->hot_until.refill_at, r.hot_guid - Min(r.hot_guid, s->hot_step / 2));
    pg_atomic_write_u64(&s->hot_seconds_until.value, r.hot_seconds);
    for (uint32 i = 0; i < locality::kRunSlots; ++i) pg_atomic_write_u64(&s->run_until[i].value, r.runs[i]);
}

// Writes r to the file and remembers it as what the file holds (the caller
// holds the lock, or is the postmaster at start, or replay). False, errno
// set, if it could not; if the rename was done before a failed fsync, what
// the file holds is unknown, so replay writes its next record. *renamed
// (optional) says so.
inline bool write_marks(SharedCounters *s, const ReservedState &r, bool *renamed = nullptr) {
    bool moved = false;
    if (!write_state_file(r, &moved, &s->lineage)) {
        const int saved = errno;
        if (moved) s->on_disk_known = false;
        if (renamed != nullptr) *renamed = moved;
        errno = saved;
        return false;
    }
    s->on_disk = r;
    s->on_disk_known = true;
    return true;
}

// Whether a holds a mark above b's (or another variable-mode start).
inline bool rises_above(const ReservedState &a, const ReservedState &b) {
    if (a.variable_start != b.variable_start || a.variable > b.variable ||
        a.explicit_sequential > b.explicit_sequential || a.hot_guid > b.hot_guid || a.hot_seconds > b.hot_seconds)
        return true;
    for (uint32 i = 0; i < locality::kRunSlots; ++i)
        if (a.runs[i] > b.runs[i]) return true;
    return false;
}

}  // namespace locality_pg
