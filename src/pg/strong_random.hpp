// Random 32-bit values from pg_strong_random(), for counters that start
// fresh: a backend's own counters (counters/backend_counters.cpp) and the
// server-wide ones without a state file (reservations/).
#pragma once

#include "pg_boundary.hpp"

namespace locality_pg {

// A random 32-bit value; ERROR if there is none.
uint32 strong_random_u32();

}  // namespace locality_pg
