// Reservations in WAL (PostgreSQL 15+, which lets an extension register a
// custom WAL resource manager): every refill of the server-wide counters
// logs its new marks and flushes the record before an id past the old mark
// is handed out; replay raises the marks (reservation.hpp says why file and
// WAL together cover every case). Before 15 there is no WAL record, and the
// file alone carries the marks (doc/guarantees.md says what that leaves
// out).
#pragma once

#include "pg_boundary.hpp"

#include "reservations/state_file.hpp"

namespace locality_pg {

// Registers the resource manager with the id of the setting
// locality_uuid.wal_resource_manager_id; called from _PG_init while
// shared_preload_libraries is processed. Does nothing before PostgreSQL 15.
void register_reservation_wal();

// Inserts and flushes one record with the marks of `marks`. Does nothing
// before PostgreSQL 15.
void log_reservation(const ReservedState &marks);

// A record of the lineage (lineage.hpp), inserted before a refill's record
// (whose flush makes both durable). Does nothing before PostgreSQL 15.
void log_lineage(const locality::Lineage &lineage);
// The same, flushed at once: a clean stop's (stop.hpp), which no refill follows.
void log_lineage_flushed(const locality::Lineage &lineage);

// The same for marks after run slots were released (release_runs.hpp):
// replay lowers those runs instead of only raising marks.
void log_release(const ReservedState &marks);
// The same after clock Hot Guid seconds were released (release_runs.hpp).
void log_hot_release(const ReservedState &marks);

}  // namespace locality_pg
