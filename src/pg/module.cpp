// Module entry: settings, shared memory, and the status functions.
#include "pg_boundary.hpp"

#include "counters/counter_state.hpp"
#include "counters/session_counters.hpp"
#include "identity/lease.hpp"
#include "identity/node.hpp"
#include "log_quota.hpp"
#include "reservations/reservation_wal.hpp"
#include "reservations/shared_counters.hpp"
#include "reservations/stop.hpp"
#include "settings.hpp"

extern "C" {
#include "commands/extension.h"

#if PG_VERSION_NUM >= 180000
// Name and version for pg_get_loaded_modules() (PostgreSQL 18+).
PG_MODULE_MAGIC_EXT(.name = "locality_uuid", .version = LOCALITY_UUID_VERSION);
#else
PG_MODULE_MAGIC;
#endif

PGDLLEXPORT void _PG_init(void);
}

void _PG_init(void) {
    locality_pg::define_settings();
    locality_pg::library_preloaded = process_shared_preload_libraries_in_progress;
    if (!process_shared_preload_libraries_in_progress) {
        // CREATE EXTENSION (or ALTER EXTENSION UPDATE) loads the library
        // to check its functions: the moment to say what running without
        // preloading means. A WARNING, as PostgreSQL runs extension scripts
        // with client_min_messages at warning at least.
        if (creating_extension) locality_pg::warn_not_preloaded_at_create();
        return;
    }
    locality_pg::detect_node_for_server();
    // Leases: this start's node value and machine name from the registry.
    // Before the counters' shared memory: their start-up reads the lease's
    // (lease_source, for the binding), which must be this start's.
    if (locality_pg::leases_on()) {
        locality_pg::request_lease();
        locality_pg::install_log_quota_hook();
    }
    // Registered whatever locality_uuid.shared_counter says: this server may
    // have to replay records of one where it was on.
    locality_pg::register_reservation_wal();
    if (!locality_pg::setting_shared_counter) return;
    locality_pg::request_shared_counters();
    locality_pg::register_stop_worker();
    // What server-wide counters ask of the servers around this one, said
    // where a DBA reads at every start: a standby that replays this WAL
    // without the library stops with FATAL at the first record.
#if PG_VERSION_NUM >= 150000
    ereport(LOG, (errmsg("locality_uuid: server-wide counters are reserved in \"locality_uuid.state\" and in "
                         "WAL records of resource manager %d",
                         locality_pg::setting_wal_rmgr_id),
                  errdetail("Every server that replays this WAL (standbys, point-in-time recovery, pg_rewind) "
                            "must preload locality_uuid with the same locality_uuid.wal_resource_manager_id, "
                            "before this server makes its first server-wide id; without it, replay stops.")));
#else
    ereport(LOG, (errmsg("locality_uuid: server-wide counters are reserved in \"locality_uuid.state\""),
                  errdetail("PostgreSQL %d has no custom WAL: a promoted standby or a point-in-time recovery "
                            "continues from its own copy of the file, moved past fresh random points; for a "
                            "guarantee it needs a new locality_uuid.node_id.",
                            PG_VERSION_NUM / 10000)));
#endif
}

// 'server' when one shared-memory counter serves every backend, else 'backend'.
LOCALITY_SQL_FUNCTION(locality_uuid_counter_scope) {
    PG_RETURN_TEXT_P(cstring_to_text(locality_pg::counters_are_shared() ? "server" : "backend"));
}

// The 28-bit node value this backend writes into ids.
LOCALITY_SQL_FUNCTION(locality_uuid_node_id) {
    // With leases, none before this start holds its lease (not a 0 no id has).
    if (locality_pg::leases_on() && !locality_pg::lease_held()) locality_pg::report_no_lease();
    PG_RETURN_INT32(static_cast<int32>(locality_pg::current_node()));
}

LOCALITY_SQL_FUNCTION(locality_uuid_node_source) {
    PG_RETURN_TEXT_P(cstring_to_text(locality_pg::current_node_source()));
}

// The library's session toggles, mirroring UUID::use_sequential_ids() and
// UUID::use_variable_ids(): a plain SET, undone if the transaction aborts.
namespace {
Datum set_sequential(bool on) {
    SetConfigOption("locality_uuid.sequential", on ? "on" : "off", PGC_USERSET, PGC_S_SESSION);
    PG_RETURN_VOID();
}
}  // namespace

LOCALITY_SQL_FUNCTION(locality_uuid_use_sequential_ids) { return set_sequential(true); }

LOCALITY_SQL_FUNCTION(locality_uuid_use_variable_ids) { return set_sequential(false); }
