// The extension's settings (GUCs), defined in _PG_init.
#pragma once

#include "pg_boundary.hpp"

namespace locality_pg {

extern bool setting_sequential;      // locality_uuid.sequential
extern int setting_node_id;          // locality_uuid.node_id, -1 = detect from MAC
extern bool setting_shared_counter;  // locality_uuid.shared_counter
extern char *setting_machine_name;   // locality_uuid.machine_name, '' = host name
extern int setting_wal_rmgr_id;      // locality_uuid.wal_resource_manager_id (PostgreSQL 15+)
extern char *setting_host_marks_file;  // locality_uuid.host_marks_file: "auto", a path, '' = none (reservations/host_marks.hpp)
extern char *setting_host_identity_file;  // locality_uuid.host_identity_file, '' = machine id and host name
extern bool setting_require_node_id;      // locality_uuid.require_node_id
extern char *setting_registry;            // locality_uuid.registry, '' = no leases
extern char *setting_registry_owner;      // locality_uuid.registry_owner, '' = the registry login
// Bumped whenever locality_uuid.node_id or locality_uuid.machine_name is
// assigned (start, reload): one integer to compare per id.
extern uint32 identity_settings_generation;

// Whether locality_uuid.shared_counter has a value someone set (a file, a
// command line, ALTER SYSTEM) rather than its default: without preloading,
// an explicit off is the choice of counters per session
// (session_counters.hpp), the default is not.
extern bool setting_shared_counter_explicit;

constexpr int kNodeIdDetect = -1;

void define_settings();

}  // namespace locality_pg
