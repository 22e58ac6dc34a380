// The 28-bit node value written into ids: locality_uuid.node_id when set,
// else the detected MAC (looked up once per process), else zero.
#pragma once

#include "pg_boundary.hpp"

namespace locality_pg {

// Detects the MAC now, in the postmaster when preloaded (backends inherit
// it), and logs the node value and its source at every server start: a
// WARNING when the node value or the machine name is not this host's own
// (a MAC address, the host name, a file in the data directory, none).
void detect_node_for_server();

// Whether locality_uuid.node_id and locality_uuid.machine_name both come
// from configuration files outside the data directory (what
// locality_uuid.require_node_id asks); if not, why, into why.
bool values_from_host_files(char *why, size_t size);

uint32 current_node();

// "setting", "mac <interface>" or "none": where current_node() comes from.
const char *current_node_source();

}  // namespace locality_pg
