#include "settings.hpp"

#include <cstdlib>

#include "locality_id.hpp"

extern "C" {
#include "access/parallel.h"  // InitializingParallelWorker
}

#include <libpq-fe.h>

namespace locality_pg {

bool setting_sequential = false;
int setting_node_id = kNodeIdDetect;
bool setting_shared_counter = true;
char *setting_machine_name = nullptr;
int setting_wal_rmgr_id = 128;
bool setting_shared_counter_explicit = false;
char *setting_host_identity_file = nullptr;
char *setting_host_marks_file = nullptr;
bool setting_require_node_id = false;
char *setting_registry = nullptr;
char *setting_registry_owner = nullptr;
uint32 identity_settings_generation = 0;

namespace {

// While define_settings runs: the values already set are being applied.
bool defining = false;

// locality_uuid.registry: a string libpq cannot parse is refused where a
// backend sets it once the library is loaded (ALTER SYSTEM; a reload keeps
// the value before), naming neither the string nor libpq's reason (either
// may hold its password). A value already set when the library is loaded,
// and the postmaster's, are taken as they are: refused there, the setting
// would fall back to empty, and leases would be off, ids taking node_id's or
// a MAC's value instead of waiting. The worker reports such a string
// instead (identity/lease.cpp), and ids wait.
bool check_registry(char **value, void **, GucSource) {
    // (A parallel worker takes its leader's settings: never refused there.)
    if (defining || !IsUnderPostmaster || InitializingParallelWorker || *value == nullptr || (*value)[0] == '\0')
        return true;
    char *error = nullptr;
    PQconninfoOption *options = PQconninfoParse(*value, &error);
    if (error != nullptr) PQfreemem(error);
    if (options != nullptr) {
        PQconninfoFree(options);
        return true;
    }
    // (Without a message of its own, PostgreSQL's quotes the value.)
    GUC_check_errmsg("invalid value for parameter \"%s\"", "locality_uuid.registry");
    GUC_check_errdetail("libpq cannot parse it as a connection string (its reason is not shown: the string may hold "
                        "a password).");
    GUC_check_errhint("Check the string with psql \"$STRING\" -c 'SELECT 1' as the server's OS user.");
    return false;
}

// locality_uuid.host_marks_file: an absolute path outside the data
// directory (which a copy, a restore and pg_rewind carry or replace: the
// file is this host's word, and must outlive them).
bool check_host_marks_file(char **value, void **, GucSource) {
    if (*value == nullptr || (*value)[0] == '\0' || strcmp(*value, "auto") == 0) return true;
    // Compared canonical ("//", "/./", "/x/.." folded; symbolic links are
    // not followed), with room for the temporary name beside it.
    char path[MAXPGPATH], data[MAXPGPATH] = "";
    const bool fits = strlen(*value) < MAXPGPATH - 24;
    strlcpy(path, *value, sizeof path);
    canonicalize_path(path);
    if (DataDir != nullptr) {
        strlcpy(data, DataDir, sizeof data);
        canonicalize_path(data);
    }
    const size_t dir = strlen(data);
    if (fits && is_absolute_path(path) &&
        !(dir > 0 && strncmp(path, data, dir) == 0 && (path[dir] == '/' || path[dir] == '\0')))
        return true;
    GUC_check_errmsg("invalid value for parameter \"%s\": \"%s\"", "locality_uuid.host_marks_file", *value);
    GUC_check_errdetail("The host's marks file must be \"auto\", empty, or an absolute path outside the data "
                        "directory, shorter than %d bytes: a copy, a restore or pg_rewind replaces the data "
                        "directory's files.",
                        MAXPGPATH - 24);
    return false;
}

// The source of locality_uuid.shared_counter's value travels from the
// check hook to the assign hook in `extra`: a check alone (ALTER SYSTEM
// validating a value) assigns nothing and must change nothing.
bool check_shared_counter(bool *, void **extra, GucSource source) {
    // As guc.c frees `extra`: with pfree() from 16 on (guc_malloc's memory
    // context), with free() before (when guc_malloc is not exported).
#if PG_VERSION_NUM >= 160000
    bool *explicit_value = static_cast<bool *>(guc_malloc(LOG, sizeof(bool)));
#else
    bool *explicit_value = static_cast<bool *>(std::malloc(sizeof(bool)));
#endif
    if (explicit_value == nullptr) return false;
    *explicit_value = source > PGC_S_DEFAULT;
    *extra = explicit_value;
    return true;
}

void assign_shared_counter(bool, void *extra) {
    if (extra != nullptr) setting_shared_counter_explicit = *static_cast<bool *>(extra);
}

// A reload (or the start) set the node value or machine name: the next
// server-wide id compares them with the binding (reservations/dealign.hpp).
void assign_node_id(int, void *) { ++identity_settings_generation; }
void assign_machine_name(const char *, void *) { ++identity_settings_generation; }

}  // namespace

void define_each_setting();

void define_settings() {
    // (Reset however this ends: an ERROR here would leave the check off.)
    defining = true;
    PG_TRY();
    {
        define_each_setting();
    }
    PG_FINALLY();
    {
        defining = false;
    }
    PG_END_TRY();
}

void define_each_setting() {
    DefineCustomBoolVariable(
        "locality_uuid.sequential", "Makes locality_uuid() generate sequential-mode ids.",
        "Off (variable mode): the first hex digits change on every id and writes spread "
        "over range shards. On: ids made in the same 10-minute window share a prefix.",
        &setting_sequential, false, PGC_USERSET, 0, nullptr, nullptr, nullptr);

    // One node identity per server: set in postgresql.conf (or ALTER
    // SYSTEM), never per role, database or session. It is part of the
    // fleet-wide uniqueness contract.
    DefineCustomIntVariable(
        "locality_uuid.node_id", "This server's 28-bit node value, written into Locality UUIDs.",
        "-1 uses the last 28 bits of the first active non-loopback MAC address. Give every "
        "server of a fleet its own value.",
        &setting_node_id, kNodeIdDetect, kNodeIdDetect, static_cast<int>(locality::kNodeMask),
        PGC_SIGHUP, 0, nullptr, assign_node_id, nullptr);

    // One machine identity per server, like the host name it stands for.
    DefineCustomStringVariable(
        "locality_uuid.machine_name", "Machine name whose MD5 Hot Guids carry.",
        "Empty: the host name up to its first '.', as .NET's Environment.MachineName.",
        &setting_machine_name, "", PGC_SIGHUP, 0, nullptr, assign_machine_name, nullptr);

    // Defined whether or not the library is preloaded, so that a value in
    // postgresql.conf is not reported as an unknown setting by every session
    // that loads the library late. It only has an effect when preloaded;
    // PostgreSQL allows a postmaster-level variable only then, so a library
    // loaded late defines it as reloadable, which changes nothing either,
    // and with the default off: what pg_settings shows then agrees with
    // locality_uuid_counter_scope() ('backend').
    DefineCustomBoolVariable(
        "locality_uuid.shared_counter",
        "Keeps one counter per server in shared memory (needs shared_preload_libraries).",
        "Off: each backend keeps its own randomly seeded counter. Without preloading the "
        "default is off, and on changes nothing.",
        &setting_shared_counter, process_shared_preload_libraries_in_progress,
        process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SIGHUP, 0,
        check_shared_counter, assign_shared_counter, nullptr);

    // Where the counters are bound (binding.hpp): the host is told by this
    // file's first line where the machine id and host name do not tell
    // hosts apart (containers: a per-host file mounted into the pod).
    DefineCustomStringVariable(
        "locality_uuid.host_identity_file", "File whose first line identifies this host, for the counters' binding.",
        "Empty: the host's /etc/machine-id and host name. A server that starts on another host, or "
        "in another data directory, moves its counters past fresh random points.",
        &setting_host_identity_file, "",
        process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SIGHUP, 0, nullptr, nullptr, nullptr);

    // Where this host mirrors its reserved marks, outside the data directory
    // (reservations/host_marks.hpp): read when this server's identity
    // returns to lead after a history lost the end of its last leadership.
    // Read at the start only: a file left at another path meanwhile would
    // say less than this server reserved.
    DefineCustomStringVariable(
        "locality_uuid.host_marks_file",
        "File outside the data directory where this host keeps the counters' reserved marks (PostgreSQL 15+).",
        "auto: beside the data directory, as DATA_DIRECTORY.locality_uuid_marks (given up, at LOG, if it cannot be "
        "written there); an absolute path: there, and ids fail while it cannot be written; empty: none. Every "
        "refill writes it before its ids, and a member that leads again after a failover continues exactly above "
        "them (doc/guarantees.md).",
        &setting_host_marks_file, "auto", process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SIGHUP,
        GUC_SUPERUSER_ONLY, check_host_marks_file, nullptr, nullptr);

    // Fleets enforce assigned node values at deployment, never at failover.
    DefineCustomBoolVariable(
        "locality_uuid.require_node_id",
        "Refuses server-wide ids whose node value or machine name does not come from a file outside the data directory.",
        "On: Locality UUIDs whose node_id comes from a MAC address, and Hot Guids whose machine_name comes from "
        "the host name, or either from postgresql.auto.conf or another file in the data directory (which every "
        "copy of it carries), get error 55000.",
        &setting_require_node_id, false,
        process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SIGHUP, 0, nullptr, nullptr, nullptr);

    // Leases (identity/lease.hpp): the registry every start takes its node
    // value and machine name from. Superusers only (its conninfo may hold a
    // password); read at the start, as the worker that uses it starts then.
    DefineCustomStringVariable(
        "locality_uuid.registry", "libpq connection string of the registry every start leases its node value from.",
        "Empty: no leases (node_id and machine_name as set). Set: every start of the server takes a node value and a "
        "Hot Guid machine name the registry never handed out, before its first server-wide id (doc/fleets.md).",
        &setting_registry, "", process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SIGHUP,
        GUC_SUPERUSER_ONLY, check_registry, nullptr, nullptr);
    DefineCustomStringVariable(
        "locality_uuid.registry_owner", "The role that owns the registry, if it is not the registry login.",
        "Leases are taken only from a registry owned by this role alone (as locality-uuid --registry-owner).",
        &setting_registry_owner, "", process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SIGHUP,
        GUC_SUPERUSER_ONLY, nullptr, nullptr, nullptr);

#if PG_VERSION_NUM >= 150000
    // The custom WAL resource manager id of the reservation records
    // (reservation_wal.hpp); 128 is RM_EXPERIMENTAL_ID. Read once, when the
    // preloaded library registers the resource manager.
    DefineCustomIntVariable(
        "locality_uuid.wal_resource_manager_id",
        "Custom WAL resource manager id of locality_uuid's reservation records.",
        "Every server that replays this WAL must preload the library with the same id. Change it "
        "only to avoid another extension's id, as doc/guarantees.md says.",
        &setting_wal_rmgr_id, 128, 128, 255,
        process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SIGHUP, 0, nullptr, nullptr,
        nullptr);
    MarkGUCPrefixReserved("locality_uuid");
#else
    EmitWarningsOnPlaceholders("locality_uuid");
#endif
}

}  // namespace locality_pg
