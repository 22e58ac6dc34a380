// The steps that start-up (start.cpp), a superuser's accept (accept.cpp)
// and replay (replay.cpp) share: raising counters and marks, closing and
// opening clock Hot Guid seconds, reading the file or taking fresh counters.
#include "reservations/restore_steps.hpp"

#include <cerrno>

extern "C" {
#if PG_VERSION_NUM >= 140000
#include "utils/wait_event.h"  // PG_WAIT_EXTENSION (in pgstat.h before 14)
#endif
}

#include "hot_guid_generator.hpp"
#include "reservations/marks.hpp"
#include "reservations/reservation.hpp"
#include "wall_clock.hpp"

namespace locality_pg {

void acquire_counters_lock(SharedCounters *s) {
    ConditionVariablePrepareToSleep(&s->raised);
    while (!LWLockConditionalAcquire(s->lock, LW_EXCLUSIVE))
        ConditionVariableTimedSleep(&s->raised, 100, PG_WAIT_EXTENSION);
    ConditionVariableCancelSleep();
}

void release_counters_lock(SharedCounters *s) {
    LWLockRelease(s->lock);
    ConditionVariableBroadcast(&s->raised);
}

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
    const uint64 hot_mark = hot_guid_mark(s);
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
    const uint64 first = hot_guid_mark(s);
    pg_atomic_write_u64(&s->hot_seconds_until.value, reserved_until);
    pg_atomic_write_u64(&s->hot_opened.value, first);
    pg_atomic_write_u64(&s->hot_second.value, ((second + 1) << 32) | static_cast<uint32>(first));
}

uint64 unused_hot_second(SharedCounters *s, ReservedState *written) {
    const uint64 now = static_cast<uint64>(locality::wall_clock_millis() / 1000);
    const uint64 unused = written->hot_seconds;
    if (now + 1 >= unused) return 0;
    // A second opened with a window from the draw mark holds no id yet.
    const uint64 second = pg_atomic_read_u64(&s->hot_second.value);
    if (second != 0 && pg_atomic_read_u64(&s->hot_opened.value) == written->hot_guid) return 0;
    written->hot_seconds = unused + kHotSecondsAhead;
    return unused;
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
    const StateRead read = read_state_file(saved, &s->lineage);
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

}  // namespace locality_pg
