// The counter storage a backend generates with, for counter_state.cpp:
// the server's shared memory (reservations/shared_memory.cpp), seen
// through this backend's blocks (shared_cells.cpp), or this backend's own
// seeded counters (backend_counters.cpp).
#pragma once

#include "pg_boundary.hpp"

#include "block_cell.hpp"
#include "counter_cells.hpp"
#include "reservations/shared_counters.hpp"

namespace locality_pg {

// A counter in shared memory: pg_atomic_* with full barriers.
struct PgCell64 {
    pg_atomic_uint64 *atom;
    uint64 fetch_add(uint64 delta) noexcept {
        return pg_atomic_fetch_add_u64(atom, static_cast<int64>(delta));
    }
    uint64 load() const noexcept { return pg_atomic_read_u64(atom); }
    bool compare_exchange(uint64 &expected, uint64 desired) noexcept {
        return pg_atomic_compare_exchange_u64(atom, &expected, desired);
    }
};

// Each backend takes draws of the shared Locality counters in blocks
// (block_cell.hpp); Hot Guid draws come one at a time (their per-second
// window is checked against the shared draw).
using SharedCells = locality::CounterCells<locality::BlockCell<PgCell64>>;
using SharedHotCells = locality::HotGuidCells<PgCell64>;

// This backend's views of the server-wide counters (counters/shared_cells.cpp);
// valid once counters_are_shared() (counter_state.hpp).
SharedCells &shared_cells();
SharedHotCells &shared_hot_cells();

// This backend's own counters, seeded from pg_strong_random() on first use
// in this process.
locality::PlainCounters &backend_cells();
locality::PlainHotGuidCells &backend_hot_cells();

}  // namespace locality_pg
