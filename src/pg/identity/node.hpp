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

// What locality_uuid.require_node_id asks of each kind of id: Locality
// UUIDs need locality_uuid.node_id, Hot Guids locality_uuid.machine_name,
// from a configuration file of this host outside the data directory.
// Whether the value comes from such a file; if not, why, into why.
bool node_value_from_host_file(char *why, size_t size);
bool machine_name_from_host_file(char *why, size_t size);

// Whether server-wide ids need their values from such files, and why:
// "locality_uuid.require_node_id is on", or, on a data directory that has
// leased (its lease record, lease_record.hpp, holds an entry or cannot be
// read) now running with leases off (an emergency start, or the registry
// setting removed), why it never falls back to a MAC address, the host
// name or a file in the data directory: values a registry leases to other
// servers, or that every copy of the directory carries (issue #52). Read
// once at start, in the postmaster.
struct HostFilesRequired {
    const char *reason;       // nullptr: not required
    const char *leased_hint;  // the lease record's case: what to do (its refusals' hint); else nullptr
};
HostFilesRequired host_files_required();

uint32 current_node();

// "setting", "mac <interface>" or "none": where current_node() comes from.
const char *current_node_source();

}  // namespace locality_pg
