// This backend's views of the server-wide counters in shared memory
// (reservations/shared_memory.cpp): block cells over the Locality
// counters, plain cells over the Hot Guid ones, set once the shared memory
// is there (in the postmaster, whose children inherit them).
#include "counters/active_cells.hpp"
#include "counters/counter_state.hpp"

namespace locality_pg {
namespace {

SharedCells cells{};
SharedHotCells hot_cells{};
SharedCounters *viewed = nullptr;  // the shared memory the views are of

void view(SharedCounters *state) {
    if (viewed == state) return;
    cells = SharedCells{};
    cells.variable = {{&state->variable.value}};
    cells.explicit_sequential = {{&state->explicit_sequential.value}};
    for (uint32 i = 0; i < locality::kRunSlots; ++i) cells.runs[i] = {{&state->runs[i].value}, true};
    hot_cells = SharedHotCells{{&state->hot_draws.value}, {&state->hot_second.value}, {&state->hot_opened.value}};
    viewed = state;
}

}  // namespace

bool counters_are_shared() { return shared_counters() != nullptr; }

SharedCells &shared_cells() {
    view(shared_counters());
    return cells;
}

SharedHotCells &shared_hot_cells() {
    view(shared_counters());
    return hot_cells;
}

}  // namespace locality_pg
