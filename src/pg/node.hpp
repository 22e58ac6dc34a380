// The 28-bit node value written into ids: locality_uuid.node_id when set,
// else the detected MAC (looked up once per process), else zero.
#pragma once

#include "pg_boundary.hpp"

namespace locality_pg {

// Detects the MAC now, in the postmaster when preloaded (backends inherit
// it), and LOGs when there is none and no node_id is set.
void detect_node_for_server();

uint32 current_node();

// "setting", "mac <interface>" or "none": where current_node() comes from.
const char *current_node_source();

}  // namespace locality_pg
