#include "reservations/release_runs.hpp"

#include <cerrno>

#include "hot_guid_generator.hpp"
#include "reservations/marks.hpp"
#include "reservations/reservation.hpp"
#include "reservations/reservation_wal.hpp"
#include "reservations/restore.hpp"
#include "reservations/restore_steps.hpp"
#include "wall_clock.hpp"

namespace locality_pg {
namespace {

// What a released slot holds afterwards: the run of its newest window the
// clock has reached (now_window or the last one before it in this slot),
// closed as full. The glitch's run replaced that window's run, whose count
// is lost with it, so that window may not start its run again: its
// sequential ids get window_full, and the slot's next window starts afresh.
uint64 closed_run(uint32 slot, uint32 now_window) {
    const uint32 back = (now_window % locality::kRunSlots + locality::kRunSlots - slot) % locality::kRunSlots;
    if (back > now_window) return 0;  // no such window (not a real clock)
    const uint64 window = static_cast<uint64>(now_window) - back;
    return ((window + 1) << 32) | locality::kRunIds;
}

// Seconds of clock Hot Guid reservation ahead of the clock that a release
// leaves alone.
constexpr uint64 kHotReleaseSlack = 10;

// A run's mark a reservation past its counter (window + 1 << 32 | drawn),
// at most the whole window.
uint64 run_mark_above(uint64 counter) {
    return ((counter >> 32) << 32) | Min((counter & 0xFFFFFFFF) + kReserve, static_cast<uint64>(locality::kRunIds));
}

// Backends drop the blocks they cached of the runs that moved back.
void announce_lowered_runs(SharedCounters *s) {
    pg_write_barrier();
    pg_atomic_fetch_add_u32(&s->runs_released, 1);
}

// Writes the released marks (the file, then the WAL record): 0, or the
// error code of release_future_runs with errno set. Releases the lock on
// failure.
int write_release(SharedCounters *s, ReservedState *next, void (*log)(const ReservedState &),
                  const uint64 *until_before = nullptr, const bool *released_slot = nullptr) {
    stamp_cluster(next);
    bool renamed = false;
    if (!write_marks(s, *next, &renamed)) {
        const int saved = errno;
        if (!renamed && until_before != nullptr)
            for (uint32 i = 0; i < locality::kRunSlots; ++i)
                if (released_slot[i]) pg_atomic_write_u64(&s->run_until[i].value, until_before[i]);
        release_counters_lock(s);
        errno = saved;
        return renamed ? kReleaseNotDurable : kReleaseNotWritten;
    }
    log(*next);
    return 0;
}

}  // namespace

int release_future_hot_seconds(SharedCounters *s, uint64 now_second, uint64 *from, uint64 *to) {
    acquire_counters_lock(s);
    ReservedState next = snapshot(s);
    // Normal operation reserves at most kHotSecondsAhead past the clock,
    // and a restart with the clock behind opens one more such span: a
    // reservation up to kHotReleaseSlack ahead resolves itself within
    // seconds and is not a glitch to release.
    if (next.hot_seconds <= now_second + kHotReleaseSlack) {
        release_counters_lock(s);
        return 0;
    }
    *from = now_second + 1;
    *to = next.hot_seconds;
    next.hot_seconds = now_second + 1;
    const int failed = write_release(s, &next, log_hot_release);
    if (failed != 0) return failed;
    // The current second counts as full (ids of it made before the glitch
    // are not known: draws below the mark are raised past it first); the
    // next one opens afresh from the draw mark.
    pg_atomic_write_u64(&s->hot_seconds_until.value, next.hot_seconds);
    pull_back_hot_second(s);
    release_counters_lock(s);
    return 1;
}


ReservedState release_floored(const SharedCounters *s, const ReservedState &to) {
    ReservedState floored = to;
    for (uint32 i = 0; i < locality::kRunSlots; ++i) {
        const uint64 floors[2] = {s->start_moved ? s->start_target.runs[i] : 0,
                                  s->file_at_start_known ? s->file_at_start.runs[i] : 0};
        for (const uint64 floor : floors)
            if (floor != 0 && floor >> 32 == to.runs[i] >> 32) floored.runs[i] = Max(floored.runs[i], floor);
    }
    return floored;
}

void lower_runs(SharedCounters *s, const ReservedState &to) {
    for (uint32 i = 0; i < locality::kRunSlots; ++i) {
        if (to.runs[i] < pg_atomic_read_u64(&s->runs[i].value)) pg_atomic_write_u64(&s->runs[i].value, to.runs[i]);
        if (to.runs[i] < pg_atomic_read_u64(&s->run_until[i].value))
            pg_atomic_write_u64(&s->run_until[i].value, to.runs[i]);
    }
    announce_lowered_runs(s);
}

int release_future_runs(SharedCounters *s, uint32 now_window, uint32 *windows) {
    acquire_counters_lock(s);

    ReservedState next = snapshot(s);
    const uint64 first_future = static_cast<uint64>(now_window) + locality::kRunSlots;
    bool released_slot[locality::kRunSlots] = {};
    uint64 until_before[locality::kRunSlots] = {};
    int released = 0;
    for (uint32 i = 0; i < locality::kRunSlots; ++i) {
        // window + 1 of the slot's newest run, drawn or reserved
        const uint64 counter = pg_atomic_read_u64(&s->runs[i].value);
        const uint64 held = Max(next.runs[i], counter) >> 32;
        if (held == 0 || held - 1 < first_future) continue;
        windows[released++] = static_cast<uint32>(held - 1);
        released_slot[i] = true;
        // A slot whose run the glitch only reserved ahead (the next window
        // of the glitch's) still counts a real window: its mark goes back
        // to that run, covering what was drawn of it, and nothing is
        // closed (review F10). A slot whose run the glitch took over lost
        // the real window's count: closed.
        // A slot never drawn in this lifetime, whose file held no run
        // before the glitch's reservation ahead, lost no count: nothing is
        // closed there either, and its mark goes (review G4).
        next.runs[i] = counter == 0                                       ? 0
                       : (counter >> 32) - 1 < first_future ? run_mark_above(counter)
                                                            : closed_run(i, now_window);
        until_before[i] = pg_atomic_read_u64(&s->run_until[i].value);
        if (counter != 0 && next.runs[i] >> 32 == counter >> 32) {
            // That window draws on meanwhile, covered by the glitch's newer
            // mark: lower the mark here first (draws past it now wait for
            // this lock), then take what was drawn before that into account.
            pg_atomic_write_u64(&s->run_until[i].value, next.runs[i]);
            pg_memory_barrier();
            next.runs[i] = Max(next.runs[i], run_mark_above(pg_atomic_read_u64(&s->runs[i].value)));
            pg_atomic_write_u64(&s->run_until[i].value, next.runs[i]);
        }
    }
    if (released > 0) {
        // A file not written holds the marks from before: so does shared
        // memory again, where a mark was lowered early (review G6). A file
        // renamed but not made durable may hold the release: its marks stay.
        const int failed = write_release(s, &next, log_release, until_before, released_slot);
        if (failed != 0) return failed;
        // Only the released slots move, each from the future run seen: the
        // others keep drawing meanwhile (their counters can be past their
        // marks, with backends waiting for this lock to raise them).
        for (uint32 i = 0; i < locality::kRunSlots; ++i) {
            if (!released_slot[i]) continue;
            uint64 seen = pg_atomic_read_u64(&s->runs[i].value);
            while ((seen >> 32) > first_future &&
                   !pg_atomic_compare_exchange_u64(&s->runs[i].value, &seen, next.runs[i])) {
            }
            pg_atomic_write_u64(&s->run_until[i].value, next.runs[i]);
        }
        announce_lowered_runs(s);
    }
    release_counters_lock(s);
    return released;
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
    const uint64 hot_mark = hot_guid_mark(s);
    raise_counter(&s->hot_draws.value, hot_mark);
    const uint64 full_from = hot_mark - locality::kHotIdsPerSecond;
    pg_atomic_write_u64(&s->hot_opened.value, full_from);
    pg_write_barrier();  // the opening draw before the second that uses it
    pg_atomic_write_u64(&s->hot_second.value, ((second + 1) << 32) | static_cast<uint32>(full_from));
}

}  // namespace locality_pg
