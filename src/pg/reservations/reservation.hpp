// Reservations: every draw from a server-wide counter lies below a mark
// already on disk (locality_uuid.state, state_file.hpp) and, on PostgreSQL
// 15+, in flushed WAL (reservation_wal.hpp). A restart or a crash, which
// starts the counters past the file's marks, and any server that replays
// this WAL (a standby, point-in-time recovery, a rewound server), which
// raises them past every logged mark, never makes an id again.
//
// Why the pair is complete: a server starts from the file of its data
// directory (or of the base backup it was made from) and then replays WAL
// from the redo point of a checkpoint (or of the backup's start). A refill
// writes the file first, then inserts and flushes its WAL record, then
// publishes the mark. So a refill whose record lies before the redo point
// wrote its file before that point was chosen, before the checkpoint ended
// and before a base backup copied the file: the file holds it. A refill
// whose record lies at or past the redo point is replayed; replay writes the
// file too, before a later restartpoint can move the redo point past it.
// No id past a mark is handed out before both are durable.
//
// The check on each draw is inline and touches one shared cache line; the
// file and the WAL record are written only when half a reservation of many
// ids is used up.
#pragma once

#include "pg_boundary.hpp"

#include "counter_cells.hpp"
#include "generator.hpp"
#include "reservations/shared_counters.hpp"
#include "reservations/state_file.hpp"

namespace locality_pg {

// Ids reserved per refill: about one file write and one WAL flush per 2^21
// ids of a counter (and one per new 10-minute window); a restart skips at
// most 2^22 of a counter.
constexpr uint64 kReserve = 1 << 22;
// Hot Guid draws: their counter field is 24 bits, and ids for one given
// second differ only within 2^24 draws, so what a server reserves and
// never draws must stay a small share of it. A leadership that ends
// without a clean stop (a crash, a failover) leaves its last refill's
// unused part behind (a member returning to lead continues above it:
// lineage.hpp), so the refills grow with the draws: the first of a
// server's lifetime or move reserves 2^12, each next one twice the last,
// up to 2^20 (about one a second at a million a second). The unused part
// is then at most about what the leadership drew, or 2^12.
constexpr uint64 kHotFirstReserve = 1 << 12;
constexpr uint64 kHotReserve = 1 << 20;
// Seconds Hot Guids for the clock may open, reserved ahead: a refill about
// once a second while they are made; after a restart, ids wait for (or, with
// the clock further behind, refuse) at most these seconds.
constexpr uint64 kHotSecondsAhead = 2;

// What the next Hot Guid refill reserves after one of `last` (the caller
// holds the lock).
inline uint64 hot_refill_step(uint64 last) { return Min(Max(2 * last, kHotFirstReserve), kHotReserve); }

// The most a refill of d's counter reserves (Hot Guid draws: as they grow).
inline uint64 reservation_of(const locality::Draw &d) {
    switch (d.counter) {
        case locality::Counter::hot_guid: return kHotReserve;
        case locality::Counter::hot_second: return kHotSecondsAhead;
        default: return kReserve;
    }
}

inline pg_atomic_uint64 *until_of(SharedCounters *s, const locality::Draw &d) {
    switch (d.counter) {
        case locality::Counter::variable: return &s->variable_until.value;
        case locality::Counter::explicit_sequential: return &s->explicit_until.value;
        case locality::Counter::hot_guid: return &s->hot_until.value;
        case locality::Counter::hot_second: return &s->hot_seconds_until.value;
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
    // A run whose whole window is reserved needs no refill ahead: its last
    // 2^21 draws would otherwise each rewrite the file.
    const uint64 reserved = until & 0xFFFFFFFF;
    if (reserved >= locality::kRunIds) return d.position < reserved;
    return d.position + margin < reserved;
}

// Whether d lies so far below its mark that no refill is due yet: half a
// reservation below it (for Hot Guid draws, half the last refill's, as
// published in refill_at).
inline bool covered_ahead(SharedCounters *s, const locality::Draw &d) {
    if (d.counter == locality::Counter::hot_guid) return d.position < pg_atomic_read_u64(&s->hot_until.refill_at);
    return covered(s, d, reservation_of(d) / 2);
}

// Raises d's mark ahead of need, or waits (interruptibly) for the backend
// doing so; false (reservation_errno() says why) if the file could not be
// written and d is not covered. Raises no ERROR of its own: a cancel while
// waiting, or PostgreSQL's WAL insertion on conditions that are PANICs
// anyway, leave by longjmp, and the abort releases the lock and the
// condition variable. Runs inside the core's noexcept generators, which
// hold nothing that needs a destructor.
bool reserve_slow(SharedCounters *s, const locality::Draw &d) noexcept;

// The reservation policy of the server-wide generators: the common case, a
// draw well below its mark, is one shared read.
struct SharedReservation {
    SharedCounters *counters;
    bool operator()(const locality::Draw &d) const noexcept {
        // A draw that opens a Hot Guid second (about once a second) reads
        // the seconds bound after the second it found: a release moves both
        // back, the bound first.
        if (d.counter == locality::Counter::hot_second) pg_read_barrier();
        return covered_ahead(counters, d) || reserve_slow(counters, d);
    }
};

// The errno of the last failed write of the state file (or of the host's
// marks file: reservation_failed_file says which).
int reservation_errno();
const char *reservation_failed_file();

// Sets the cluster's system identifier and current timeline in marks about
// to be written (informational, for a DBA reading the file).
void stamp_cluster(ReservedState *marks);

}  // namespace locality_pg
