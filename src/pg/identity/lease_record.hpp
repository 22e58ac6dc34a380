// The highest node value this data directory has leased, and from which
// registry: locality_uuid.lease beside the state file, written durably
// before a lease is used. A registry's node values only grow, so a lease
// at or below the recorded one from the same registry means the registry
// went back (restored from a dump or a backup, recovered to a point in
// time, failed over to a standby that lacked its last leases): that value
// may be one this server's own earlier ids carry, and it is refused
// (doc/fleets.md, "Restoring or failing over the registry").
//
// The file travels with the data directory (a base backup, a clone, a
// snapshot, pg_rewind): every copy then takes a value above its origin's.
// A data directory put back to an older file is checked against less, never
// wrongly.
#pragma once

#include "pg_boundary.hpp"

namespace locality_pg {

constexpr const char *kLeaseRecordFile = "locality_uuid.lease";

struct LeaseRecord {
    char registry[128];       // host:port/dbname (describe_registry)
    int32 node;               // the highest node value leased from it
    char machine_name[64];    // that lease's Hot Guid machine name
    int64 at;                 // Unix seconds it was leased at
};

enum class LeaseRecordRead { ok, missing, corrupt, io_error };

// Reads the record (errno set on io_error).
LeaseRecordRead read_lease_record(LeaseRecord *out);

// Writes it durably (temporary file, fsync, rename, directory fsync); false,
// errno set, on failure. Raises no ERROR.
bool write_lease_record(const LeaseRecord &record);

}  // namespace locality_pg
