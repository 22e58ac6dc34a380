// Where the generator's counters live: one set per server in shared memory
// when the library is preloaded (and locality_uuid.shared_counter is on),
// otherwise one set per backend, seeded from pg_strong_random() in the
// backend itself after fork.
#pragma once

#include "pg_boundary.hpp"

#include "generator.hpp"
#include "hot_guid_generator.hpp"
#include "reservations/shared_counters.hpp"

namespace locality_pg {

// Whether this server's counters are server-wide, in shared memory
// (reservations/shared_memory.cpp).
bool counters_are_shared();

// Makes one id with the active counters; raises an ERROR on failure.
locality::Uuid16 make_locality_id(bool at_given_time, locality::Mode mode, int64 millis);

// Makes one Hot Guid for `seconds` since the Unix epoch (the clock's, or a
// given time); raises an ERROR on failure.
locality::Uuid16 make_hot_guid(bool at_given_time, int64 seconds, uint32 shard_key);

}  // namespace locality_pg
