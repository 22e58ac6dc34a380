// The highest node value this data directory has leased from each registry
// it leased from: locality_uuid.lease beside the state file, written
// durably before a lease is used. A registry's node values only grow, so a
// lease at or below the recorded one from the same registry means the
// registry went back (restored from a dump or a backup, recovered to a
// point in time, failed over to a standby that lacked its last leases):
// that value may be one this server's own earlier ids carry, and it is
// refused (doc/fleets.md, "Restoring or failing over the registry").
//
// A registry is known by its address as reports name it (host:port/dbname)
// and by its identity (a random id it carries through dumps, backups and
// failovers: registry_sql.hpp): a lease is checked against every entry with
// either, so a registry restored at another address is still itself, and a
// new one at an old address is refused until moved past what the old one
// handed out.
// The file travels with the data directory (a base backup, a clone, a
// snapshot, pg_rewind): every copy then takes a value above its origin's.
// A data directory put back to an older file is checked against less,
// never wrongly.
#pragma once

#include "pg_boundary.hpp"

namespace locality_pg {

constexpr const char *kLeaseRecordFile = "locality_uuid.lease";

struct LeaseEntry {
    char registry[128];       // host:port/dbname (describe_registry), one line
    char identity[40];        // the registry's identity; "" if it has none
    int32 node;               // the highest node value leased from it
    char machine_name[64];    // that lease's Hot Guid machine name
    int64 at;                 // Unix seconds it was leased at
};

// The registries last leased from, the most recent first.
constexpr int kLeaseEntries = 8;
struct LeaseRecord {
    LeaseEntry entries[kLeaseEntries];
    int count;
};

enum class LeaseRecordRead { ok, missing, corrupt, io_error };

// Reads the record (errno set on io_error; missing: an empty record).
LeaseRecordRead read_lease_record(LeaseRecord *out);

// The entry with the highest node value among those of this registry (its
// address, or its identity if it has one), or nullptr.
const LeaseEntry *highest_lease_for(const LeaseRecord &record, const char *registry, const char *identity);

// Records a lease (above every entry of its registry): those entries
// replaced by it, first; the oldest entry dropped when all are taken.
void record_lease(LeaseRecord *record, const LeaseEntry &lease);

// Writes it durably (temporary file, fsync, rename, directory fsync); false,
// errno set, on failure. Raises no ERROR.
bool write_lease_record(const LeaseRecord &record);

}  // namespace locality_pg
