// The shared-memory layout of the server-wide counters (library preloaded).
// counter_state.cpp draws from them; reservation.cpp keeps their reserved
// marks on disk and in WAL.
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
    Line variable, explicit_sequential, hot_draws, hot_second, hot_opened;
    Line runs[locality::kRunSlots];
    // The reserved high-water marks (state_file.hpp): a draw below its mark
    // needs nothing more; the draw that reaches it raises the mark first.
    Line variable_until, explicit_until, hot_until, hot_seconds_until;
    Line run_until[locality::kRunSlots];  // (window + 1) << 32 | ids reserved
    // Held (exclusive) while the marks are raised: the file, the WAL record
    // and the new marks in shared memory. Its release orders the marks for
    // the next holder. Backends whose draw reached the mark wait on `raised`
    // (interruptible; wait event "Extension"), broadcast after each release.
    LWLock *lock;
    ConditionVariable raised;
    pg_atomic_uint32 variable_start;  // set from the file; replay adopts the primary's
    // Bumped, after a write barrier, when runs move back (a release,
    // release_runs.hpp): each backend then drops the run blocks it cached
    // (counter_state.cpp), reading the runs after a read barrier.
    pg_atomic_uint32 runs_released;
    // 1 once the marks are known (the file was read, or there was none).
    // While 0, no draw is taken: the file could not be read at start, and
    // every call tries again (reservation.hpp, restore_late).
    pg_atomic_uint32 available;
    uint32 unreadable_errno;  // why, while unavailable: 0 means the file is corrupt
    // hot_seconds_until as the start of this lifetime settled it: the end of
    // recovery closes seconds only if replay raised it further.
    uint64 hot_seconds_at_start;
};

}  // namespace locality_pg
