// The server-wide counters' reserved high-water marks, kept in the data
// directory as locality_uuid.state. A server (with the library preloaded)
// starts every shared-memory lifetime past them, so ids made before a
// restart or a crash are never made again. The file is rewritten and
// durably renamed into place only when a reservation of many ids is used
// up. On PostgreSQL 15+ each rewrite is also logged in WAL
// (reservation_wal.hpp), which carries the marks to standbys, point-in-time
// recovery and rewound servers.
#pragma once

#include "pg_boundary.hpp"

#include "counter_cells.hpp"

namespace locality_pg {

constexpr const char *kStateFile = "locality_uuid.state";

// Also the payload of the WAL record: plain, fixed-size, no pointers, in
// this machine's byte order and alignment (560 bytes on LP64 and ILP32
// alike). Like PostgreSQL's own records it never travels between
// architectures: physical replication, pg_rewind and backups need the same
// one on both sides. The file itself is text (state_file.cpp), so its
// content does not depend on the byte order.
struct ReservedState {
    uint32 variable_start;
    uint32 timeline;             // the timeline the marks were written on; 0: unknown
    uint64 system_identifier;    // the cluster's (pg_control); 0: unknown
    uint64 variable;             // variable-mode ids reserved
    uint64 explicit_sequential;  // sequential ids for given times reserved
    uint64 hot_guid;             // Hot Guid draws reserved (a draw value, not a count)
    uint64 hot_seconds;          // every second a clock Hot Guid carries is below this
    uint64 runs[locality::kRunSlots];  // (window + 1) << 32 | ids reserved in it; 0: none
};

enum class StateRead : uint8 { ok, missing, corrupt, io_error };

// Reads the file from the current directory (the data directory).
StateRead read_state_file(ReservedState *state);

// Writes it durably through PostgreSQL's file layer (a temporary file and
// durable_rename). No ERROR is raised, so it may run while the reservation
// lock is held: on failure it returns false with errno set (and fd.c has
// logged why). A failed fsync follows data_sync_retry, as PostgreSQL's own
// files do (PANIC unless data_sync_retry is on).
bool write_state_file(const ReservedState &state);

// Each mark of `from` that is higher than `into`'s, raised in `into`.
void raise_marks(ReservedState *into, const ReservedState &from);

}  // namespace locality_pg
