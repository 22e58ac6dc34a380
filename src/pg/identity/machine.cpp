#include "identity/machine.hpp"

#include "identity/lease.hpp"
#include "settings.hpp"

namespace locality_pg {
namespace {

// The machine bytes, and the setting value they were computed for: they
// are recomputed only when locality_uuid.machine_name changes (a reload).
// The host name is read once per process, as .NET reads MachineName once.
char cached_setting[256];
bool cached = false;
std::uint8_t cached_machine[3];
char host_name[256];
bool host_name_read = false;

// The name set: this start's lease's with leases on (identity/lease.hpp),
// else locality_uuid.machine_name ('' for the host name).
const char *setting_value() {
    if (leases_on()) return lease_machine_name();
    return setting_machine_name != nullptr ? setting_machine_name : "";
}

// Fills `name` with the machine name in use.
void machine_name(char name[256]) {
    // A lease not held yet has no name: never the host's in its place.
    if (leases_on() && !lease_held()) report_no_lease();
    if (setting_value()[0] != '\0') {
        strlcpy(name, setting_value(), 256);
        return;
    }
    if (!host_name_read) {
        if (!locality::host_machine_name(host_name))
            ereport(ERROR, (errcode(ERRCODE_SYSTEM_ERROR), errmsg("could not read the host name: %m"),
                            errhint("Set locality_uuid.machine_name.")));
        host_name_read = true;
    }
    strlcpy(name, host_name, 256);
}

}  // namespace

const char *current_machine_name() {
    static char name[256];
    machine_name(name);
    return name;
}

bool machine_bytes_quietly(std::uint8_t out[3]) {
    char name[256];
    if (leases_on() && !lease_held()) return false;
    if (setting_value()[0] != '\0') {
        strlcpy(name, setting_value(), sizeof name);
    } else if (host_name_read) {
        strlcpy(name, host_name, sizeof name);
    } else if (!locality::host_machine_name(name)) {
        return false;
    }
    return locality::hot_guid_machine(name, strlen(name), out);
}

locality::HotStamp current_hot_stamp() {
    if (!cached || strcmp(setting_value(), cached_setting) != 0) {
        char name[256];
        machine_name(name);
        if (!locality::hot_guid_machine(name, strlen(name), cached_machine))
            ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                            errmsg("could not compute the Hot Guid machine bytes (MD5 unavailable)")));
        strlcpy(cached_setting, setting_value(), sizeof cached_setting);
        cached = true;
    }
    locality::HotStamp stamp;
    memcpy(stamp.machine, cached_machine, 3);
    stamp.pid = static_cast<uint16>(MyProcPid & 0xFFFF);
    return stamp;
}

}  // namespace locality_pg
