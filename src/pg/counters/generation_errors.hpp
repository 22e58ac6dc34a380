// The errors of id generation, as PostgreSQL reports them: one place for
// their SQLSTATEs, messages, details and hints.
#pragma once

#include "pg_boundary.hpp"

#include "generator.hpp"
#include "hot_guid_generator.hpp"
#include "reservations/shared_counters.hpp"

namespace locality_pg {

// A server in recovery (25006).
[[noreturn]] void report_in_recovery();

// Server-wide counters that are not available: locality_uuid.state could
// not be read at start, nor now (the file error, or XX001 for a corrupt
// file), or a readable file waits for a superuser to accept it (55000).
[[noreturn]] void report_unavailable(SharedCounters *s);

// The file could not be read (its error, or XX001 if corrupt); `accepting`:
// for a superuser's accept, which accepted nothing (review G8).
[[noreturn]] void report_unreadable(SharedCounters *s, bool accepting);

// locality_uuid.require_node_id is on (or a lease record, leases off:
// identity/node.hpp's host_files_required) and `why` says what the kind of id
// being made (Hot Guids: the machine name; Locality UUIDs: the node
// value) does not take from a file of this host outside the data
// directory (55000).
[[noreturn]] void report_node_not_assigned(const char *why, bool hot_guid);

// locality_uuid.host_identity_file cannot be read (55000, the file's
// error): the counters' binding cannot be checked.
[[noreturn]] void report_identity_unreadable();

// A draw past the reserved mark whose refill could not write the file.
[[noreturn]] void report_not_reserved();

// A Locality UUID that could not be made (status not ok).
[[noreturn]] void report_failure(locality::GenStatus status, int64 millis);

// A Hot Guid that could not be made (status not ok), by the generator of
// this server (shared) or backend.
[[noreturn]] void report_hot_failure(locality::HotStatus status, int64 seconds, bool shared);

}  // namespace locality_pg
