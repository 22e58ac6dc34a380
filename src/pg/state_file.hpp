// The server-wide counters' reserved high-water marks, kept in the data
// directory as locality_uuid.state. A server (with the library preloaded)
// starts every shared-memory lifetime past them, so ids made before a
// restart or a crash are never made again. The file is rewritten, fsynced
// and renamed into place only when a reservation of many ids is used up.
#pragma once

#include "pg_boundary.hpp"

#include "counter_cells.hpp"

namespace locality_pg {

constexpr const char *kStateFile = "locality_uuid.state";

struct ReservedState {
    uint32 variable_start;
    uint64 variable;             // variable-mode ids reserved
    uint64 explicit_sequential;  // sequential ids for given times reserved
    uint64 hot_guid;             // Hot Guid draws reserved (a draw value, not a count)
    uint64 runs[locality::kRunSlots];  // (window + 1) << 32 | ids reserved in it; 0: none
};

enum class StateRead : uint8 { ok, missing, corrupt, io_error };

// Reads the file from the current directory (the data directory).
StateRead read_state_file(ReservedState *state);

// Writes it durably (temporary file, fsync, rename, fsync of the directory)
// with plain system calls and no ereport, so it may run while a flag other
// backends wait on is held. On failure returns false with errno set.
bool write_state_file(const ReservedState &state);

}  // namespace locality_pg
