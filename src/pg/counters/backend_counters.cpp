// Per-backend counters (library not preloaded, or shared_counter off):
// seeded from pg_strong_random() in the backend itself.
#include "counters/active_cells.hpp"
#include "generator.hpp"
#include "strong_random.hpp"

namespace locality_pg {
namespace {

locality::PlainCounters cells;
locality::PlainHotGuidCells hot_cells;
int seeded_pid = 0;  // the process that seeded them

// A preloaded library's statics are copied into every forked backend, so the
// seed is taken lazily in the process that uses it, never in the postmaster.
void seed_once() {
    if (seeded_pid == MyProcPid) return;
    cells = locality::PlainCounters{};
    cells.variable_start = strong_random_u32();
    // Each backend's window runs start at a place of its own (below 2^24),
    // so that two backends do not count through the same places at once.
    cells.run_start = strong_random_u32() & (locality::kRunStartLimit - 1);
    cells.explicit_sequential.value = strong_random_u32();
    hot_cells = locality::PlainHotGuidCells{};
    hot_cells.draws.value = strong_random_u32();
    seeded_pid = MyProcPid;
}

}  // namespace

locality::PlainCounters &backend_cells() {
    seed_once();
    return cells;
}

locality::PlainHotGuidCells &backend_hot_cells() {
    seed_once();
    return hot_cells;
}

}  // namespace locality_pg
