// The errors of id generation, as PostgreSQL reports them: one place for
// their SQLSTATEs, messages, details and hints.
#pragma once

#include "pg_boundary.hpp"

#include "generator.hpp"
#include "hot_guid_generator.hpp"

namespace locality_pg {

// A server in recovery (25006).
[[noreturn]] void report_in_recovery();

// locality_uuid.state could not be read at start, nor now: the file error
// (read_errno) or, with 0, a corrupt file (XX001).
[[noreturn]] void report_state_unreadable(int read_errno);

// A draw past the reserved mark whose refill could not write the file.
[[noreturn]] void report_not_reserved();

// A Locality UUID that could not be made (status not ok).
[[noreturn]] void report_failure(locality::GenStatus status, int64 millis);

// A Hot Guid that could not be made (status not ok), by the generator of
// this server (shared) or backend.
[[noreturn]] void report_hot_failure(locality::HotStatus status, int64 seconds, bool shared);

}  // namespace locality_pg
