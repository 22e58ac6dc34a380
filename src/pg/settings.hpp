// The extension's settings (GUCs), defined in _PG_init.
#pragma once

#include "pg_boundary.hpp"

namespace locality_pg {

extern bool setting_sequential;      // locality_uuid.sequential
extern int setting_node_id;          // locality_uuid.node_id, -1 = detect from MAC
extern bool setting_shared_counter;  // locality_uuid.shared_counter
extern char *setting_machine_name;   // locality_uuid.machine_name, '' = host name
extern int setting_wal_rmgr_id;      // locality_uuid.wal_resource_manager_id (PostgreSQL 15+)

constexpr int kNodeIdDetect = -1;

void define_settings();

}  // namespace locality_pg
