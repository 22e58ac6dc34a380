#include "settings.hpp"

#include "locality_id.hpp"

namespace locality_pg {

bool setting_sequential = false;
int setting_node_id = kNodeIdDetect;
bool setting_shared_counter = true;
char *setting_machine_name = nullptr;

void define_settings() {
    DefineCustomBoolVariable(
        "locality_uuid.sequential", "Makes locality_uuid() generate sequential-mode ids.",
        "Off (variable mode): the first hex digits change on every id and writes spread "
        "over range shards. On: ids made in the same 10-minute window share a prefix.",
        &setting_sequential, false, PGC_USERSET, 0, nullptr, nullptr, nullptr);

    // Superuser-only: a node id is part of the fleet-wide uniqueness contract,
    // and the detected default exposes part of a MAC address.
    DefineCustomIntVariable(
        "locality_uuid.node_id", "28-bit node value written into Locality UUIDs.",
        "-1 uses the last 28 bits of the first active non-loopback MAC address. Give every "
        "server of a fleet its own value.",
        &setting_node_id, kNodeIdDetect, kNodeIdDetect, static_cast<int>(locality::kNodeMask),
        PGC_SUSET, 0, nullptr, nullptr, nullptr);

    // One machine identity per server, like the host name it stands for.
    DefineCustomStringVariable(
        "locality_uuid.machine_name", "Machine name whose MD5 Hot Guids carry.",
        "Empty: the host name up to its first '.', as .NET's Environment.MachineName.",
        &setting_machine_name, "", PGC_SIGHUP, 0, nullptr, nullptr, nullptr);

    // A postmaster-level setting can only be defined while preloading; without
    // preloading there is no shared memory to choose anyway.
    if (process_shared_preload_libraries_in_progress)
        DefineCustomBoolVariable(
            "locality_uuid.shared_counter",
        "Keeps one counter per server in shared memory (needs shared_preload_libraries).",
        "Off: each backend keeps its own randomly seeded counter, as without preloading.",
        &setting_shared_counter, true, PGC_POSTMASTER, 0, nullptr, nullptr, nullptr);

#if PG_VERSION_NUM >= 150000
    MarkGUCPrefixReserved("locality_uuid");
#else
    EmitWarningsOnPlaceholders("locality_uuid");
#endif
}

}  // namespace locality_pg
