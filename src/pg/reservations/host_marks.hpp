// This host's word on its server's reserved marks, outside the data
// directory (locality_uuid.host_marks_file, PostgreSQL 15+).
//
// The lineage (lineage.hpp) knows where each identity left the counters
// from the WAL it replayed. A history that lost the end of a leadership
// (an asynchronous failover, a leader stopped -m immediate before its
// standby had everything) knows only the marks of its last record, and a
// member that leads again must then skip a sixteenth to an eighth of each
// cycle for what it may have drawn after: given-time Hot Guids (2^24 draws
// a second) meet a member's first ids after 8 to 17 such returns. The host
// has the rest: every refill writes this file before the reservation's
// ids are made (reservation.cpp), and pg_rewind, which replaces the data
// directory's own file with the new leader's, leaves it be. So a member
// returning to lead continues exactly above its own marks (lineage_witness):
// only the reserved-but-unused part of its last refill is skipped.
//
// Only the server that draws writes it (a standby's lineage is its
// leader's). One file per server: a file of another cluster or data
// directory, one a leadership left behind, or one older than the lineage's
// word (restored) proves nothing, and the return keeps its gap.
#pragma once

#include "pg_boundary.hpp"

#include "lineage.hpp"
#include "binding.hpp"
#include "reservations/state_file.hpp"

namespace locality_pg {

// Whether the file is set (and used: PostgreSQL 15+, where returns are
// placed by the lineage).
bool host_marks_on();

// The file's path: the setting's, or for "auto" (the default) beside the
// data directory, DATA_DIRECTORY.locality_uuid_marks.
const char *host_marks_path();

// Whether the setting is "auto": a file that cannot be written there is
// given up (removed) rather than failing ids (reservation.cpp).
bool host_marks_auto();

// The active identities' marks in `marks` and entry clocks in l, and this
// start's token `lifetime`, written
// durably (temporary file in the same directory, fsync, rename, fsync of
// the directory). Raises no ERROR (the caller holds the counters' lock);
// false, errno set, on failure.
bool write_host_marks(const ReservedState &marks, const locality::Lineage &l, uint32 lifetime);

// What the file holds: per table, the identity that was active (its key;
// 0: none), its entry clock, and its marks (node: variable, given-time;
// machine: Hot Guid draws), and the token of the start that wrote them.
struct HostMarks {
    uint32 lifetime;
    uint32 key[2];
    uint32 used[2];
    uint64 marks[2][locality::kLineageCounters];
};
enum class HostMarksRead : uint8 { ok, missing, unreadable, corrupt, elsewhere };

// At the postmaster's start: a host's marks file an earlier start of this
// server on this host wrote, at a path the setting no longer names (set
// empty or elsewhere), is removed before any id. Such a start's draws do
// not reach it, so it would fall behind them while a history that lost
// them could find it at or above its own word and take it for their end.
// The path in use is kept, with the host's identity, in the data
// directory (kHostMarksPointer): a pointer that pg_rewind or a copy brought
// from another host names that host's file, not this one's, and is left;
// a file of another cluster or data directory (a sibling server on this
// host) is never removed; one that could not be removed, or whose
// directory is missing (a volume not mounted), is tried at every start.
void settle_host_marks_at_start();

constexpr const char *kHostMarksPointer = "locality_uuid.host_marks";

// Reads the file; `elsewhere`: written by another cluster or data
// directory. Raises no ERROR; errno set for `unreadable`.
HostMarksRead read_host_marks(HostMarks *out);
// ... at another path (an earlier start's file).
HostMarksRead read_host_marks_at(const char *path, HostMarks *out);

}  // namespace locality_pg
