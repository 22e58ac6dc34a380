// The 28-bit node value written into ids: locality_uuid.node_id when set,
// else the detected MAC (looked up once per process), else zero.
#pragma once

#include "pg_boundary.hpp"

namespace locality_pg {

// Detects the MAC now, in the postmaster when preloaded (backends inherit
// it), and logs the node value and its source at every server start: a
// WARNING when it comes from a MAC that may not be this host's alone
// (locally administered or multicast) or from none at all.
void detect_node_for_server();

uint32 current_node();

// "setting", "mac <interface>" or "none": where current_node() comes from.
const char *current_node_source();

}  // namespace locality_pg
