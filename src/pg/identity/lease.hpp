// Leases (doc/fleets.md, "Leases"): with locality_uuid.registry set, every
// start of the server takes a node value and a Hot Guid machine name that
// the fleet's registry never handed out before, recorded there with the
// host, the data directory, the system identifier and the start. A
// background worker takes it over libpq (whoever started PostgreSQL:
// systemd, pg_ctl, Patroni, an operator), retrying until the registry
// answers; until then server-wide ids fail (55000, naming the registry's
// last error), and nothing falls back to a drawn, configured or earlier
// value. A clone that keeps everything, a revert in place, a copy of a
// copy, a promoted standby: each start is a start, with a value of its own.
#pragma once

#include "pg_boundary.hpp"

namespace locality_pg {

// Whether ids take their values from leases: locality_uuid.registry is set.
bool leases_on();

// Called from _PG_init while the library is preloaded and leases are on:
// its shared memory, and the worker that takes this start's lease.
void request_lease();

// Whether this start holds its lease (the values below are then set for
// the life of the postmaster: a crash restart keeps them, a start of the
// server takes new ones).
bool lease_held();
uint32 lease_node();
const char *lease_machine_name();

// The postmaster, making shared memory after a crash restart: the lease it
// keeps across one (lease.cpp) is not kept after all, for `why` (the data
// directory went back under it: reservations/shared_memory.cpp); the
// worker takes a new one. Logged.
void forget_kept_lease(const char *why);

// "lease from the registry at HOST:PORT/DB, <time>": where the values come
// from, for the binding and locality_uuid_binding().
const char *lease_source();

// 55000: leases are on and this start holds none yet (the registry's last
// error), or the library is not preloaded (no worker can take one).
[[noreturn]] void report_no_lease();

}  // namespace locality_pg

extern "C" {
// The lease worker's entry point (registered by request_lease).
PGDLLEXPORT void locality_uuid_lease_main(Datum arg);
}
