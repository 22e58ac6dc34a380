// The shared-memory layout of the server-wide counters (library preloaded).
// counter_state.cpp draws from them; reservation.cpp keeps their reserved
// marks on disk.
#pragma once

#include "pg_boundary.hpp"

#include "counter_cells.hpp"

namespace locality_pg {

// Each counter on a cache line of its own, so backends drawing from
// different counters do not contend for one line.
struct alignas(64) Line {
    pg_atomic_uint64 value;
};

struct SharedCounters {
    Line variable, explicit_sequential, hot_draws, hot_second;
    Line runs[locality::kRunSlots];
    // The reserved high-water marks (state_file.hpp): a draw below its mark
    // needs nothing more; the draw that reaches it writes the file first.
    Line variable_until, explicit_until, hot_until;
    Line run_until[locality::kRunSlots];  // (window + 1) << 32 | ids reserved
    alignas(64) pg_atomic_uint32 writer;  // 1 while a backend rewrites the file
    uint32 variable_start;
};

}  // namespace locality_pg
