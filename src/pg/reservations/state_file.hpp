// The server-wide counters' reserved high-water marks, kept in the data
// directory as locality_uuid.state. A server (with the library preloaded)
// starts every shared-memory lifetime past them, so ids made before a
// restart or a crash are never made again. The file is rewritten and
// durably renamed into place only when a reservation of many ids is used
// up. On PostgreSQL 15+ each rewrite is also logged in WAL
// (reservation_wal.hpp), which carries the marks to standbys, point-in-time
// recovery and rewound servers.
#pragma once

#include "durable_file.hpp"  // write_durably, close_after_reading

#include "pg_boundary.hpp"

#include "lineage.hpp"

#include "counter_cells.hpp"

namespace locality_pg {

constexpr const char *kStateFile = "locality_uuid.state";
// Present while the file is in doubt across restarts: written when a start
// could not read the file, removed once a superuser accepted what is there
// or replay rewrote it (accept.cpp, replay.cpp).
constexpr const char *kDoubtFile = "locality_uuid.state.doubt";

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

// Why a file that can be read is not used until a superuser accepts it
// (locality_uuid_accept_state_file()): nothing proves it is this server's
// newest copy, and an older one would hand out its ids again.
// (A file of another cluster is not in doubt: the counters move past it,
// reservations/dealign.hpp.)
enum class StateDoubt : uint8 {
    none,
    late,  // read after the start could not read it (put back or replaced meanwhile)
};

// Reads the file from the current directory (the data directory), and
// into *lineage (if given) the lineage written after the marks (all zero
// if there is none, or it cannot be parsed: a file of 1.4 or earlier).
StateRead read_state_file(ReservedState *state, locality::Lineage *lineage = nullptr);

// Writes it durably through PostgreSQL's file layer: a temporary file,
// fsynced, renamed over the old one, and the directory fsynced (the steps
// of fd.c's durable_rename, done here so that errno is the failing call's).
// No ERROR is raised, so it may run while the reservation lock is held: on
// failure it returns false with errno set, and *renamed says whether the
// file may have changed all the same (a failed directory fsync). Nothing is
// logged here and nothing PANICs, whatever data_sync_retry says; the caller
// reports. The next attempt writes a new temporary file rather than
// fsyncing pages whose error the kernel may already have cleared.
// The lineage (lineage.hpp), if given, follows the marks' "end" line,
// where the readers of 1.4 and earlier stop.
bool write_state_file(const ReservedState &state, bool *renamed = nullptr, const locality::Lineage *lineage = nullptr);

// The doubt mark (kDoubtFile): written durably (false, errno set, if it
// could not be), looked for, removed.
bool mark_state_in_doubt();
bool state_marked_in_doubt();
void clear_doubt_mark();

// Each mark of `from` that is higher than `into`'s, raised in `into`.
void raise_marks(ReservedState *into, const ReservedState &from);

}  // namespace locality_pg
