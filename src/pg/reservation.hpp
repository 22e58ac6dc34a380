// Reservations: every draw from a server-wide counter lies below a mark
// already on disk (locality_uuid.state, state_file.hpp), so a restart or a
// crash, which starts the counters past the marks, never makes an id again.
// The check on each draw is inline and touches one shared cache line; the
// file is rewritten only when half a reservation of many ids is used up.
#pragma once

#include "pg_boundary.hpp"

#include "counter_cells.hpp"
#include "shared_counters.hpp"

namespace locality_pg {

// Ids reserved per write of the state file: about one fsync per 2^21 ids of
// a counter (and one per new 10-minute window); a restart skips at most
// 2^22 of a counter. Hot Guid draws reserve 2^20: their counter field is 24
// bits, and ids for one given second differ only within 2^24 draws, so a
// restart must not skip a large share of it.
constexpr uint64 kReserve = 1 << 22;
constexpr uint64 kHotReserve = 1 << 20;

inline uint64 reservation_of(const locality::Draw &d) {
    return d.counter == locality::Counter::hot_guid ? kHotReserve : kReserve;
}

inline pg_atomic_uint64 *until_of(SharedCounters *s, const locality::Draw &d) {
    switch (d.counter) {
        case locality::Counter::variable: return &s->variable_until.value;
        case locality::Counter::explicit_sequential: return &s->explicit_until.value;
        case locality::Counter::hot_guid: return &s->hot_until.value;
        default: return &s->run_until[d.slot].value;
    }
}

// Whether d lies below its counter's mark less `margin`. A run's draw of a
// window older than the one its slot's mark is for (a block taken before a
// newer window took the slot) needs no mark: a restart starts that slot at
// the newer window, which refuses the older one. So a run's mark never
// moves back to an older window.
inline bool covered(SharedCounters *s, const locality::Draw &d, uint64 margin = 0) {
    const uint64 until = pg_atomic_read_u64(until_of(s, d));
    if (d.counter != locality::Counter::run) return d.position + margin < until;
    const uint64 mine = static_cast<uint64>(d.window) + 1;
    if ((until >> 32) != mine) return (until >> 32) > mine;
    return d.position + margin < (until & 0xFFFFFFFF);
}

// Raises d's mark ahead of need, or waits for the backend doing so; false
// (reservation_errno() says why) if the file could not be written and d is
// not covered. No ereport, no allocation: runs inside the core's noexcept
// generators.
bool reserve_slow(SharedCounters *s, const locality::Draw &d) noexcept;

// The reservation policy of the server-wide generators: the common case, a
// draw well below its mark, is one shared read.
struct SharedReservation {
    SharedCounters *counters;
    bool operator()(const locality::Draw &d) const noexcept {
        return covered(counters, d, reservation_of(d) / 2) || reserve_slow(counters, d);
    }
};

// The errno of the last failed write of the state file.
int reservation_errno();

// At the start of a shared-memory lifetime (postmaster start, crash
// restart): starts every counter of s past the marks of the state file, or
// at the fresh values if there is none yet, and writes a new file before the
// first id can be made. FATAL if the file exists but cannot be read.
void restore_counters(SharedCounters *s, uint32 fresh_start, uint32 fresh_hot);

}  // namespace locality_pg
