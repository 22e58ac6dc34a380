// Where the generator's counters live: one set per server in shared memory
// when the library is preloaded (and locality_uuid.shared_counter is on),
// otherwise one set per backend, seeded from pg_strong_random() in the
// backend itself after fork.
#pragma once

#include "pg_boundary.hpp"

#include "generator.hpp"

namespace locality_pg {

// Called from _PG_init while shared_preload_libraries is being processed.
void request_shared_counters();

bool counters_are_shared();

// Makes one id with the active counters; raises an ERROR on failure.
locality::Uuid16 make_locality_id(bool at_given_time, locality::Mode mode, int64 millis);

}  // namespace locality_pg
