#include "machine.hpp"

#include <unistd.h>

#include "settings.hpp"

namespace locality_pg {
namespace {

// The name the cached bytes were computed from: recomputed only when the
// setting (or, without it, the host name) changes.
char cached_name[256];
bool cached = false;
std::uint8_t cached_machine[3];

// Fills `name` with the machine name in use.
void machine_name(char name[256]) {
    if (setting_machine_name != nullptr && setting_machine_name[0] != '\0') {
        strlcpy(name, setting_machine_name, 256);
        return;
    }
    char host[256];
    if (gethostname(host, sizeof host) != 0)
        ereport(ERROR, (errcode(ERRCODE_SYSTEM_ERROR), errmsg("could not read the host name: %m"),
                        errhint("Set locality_uuid.machine_name.")));
    host[sizeof host - 1] = '\0';
    const std::size_t len = locality::machine_name_length(host, strlen(host));
    memcpy(name, host, len);
    name[len] = '\0';
}

}  // namespace

const char *current_machine_name() {
    static char name[256];
    machine_name(name);
    return name;
}

locality::HotStamp current_hot_stamp() {
    char name[256];
    machine_name(name);
    if (!cached || strcmp(name, cached_name) != 0) {
        if (!locality::hot_guid_machine(name, strlen(name), cached_machine))
            ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                            errmsg("could not compute the Hot Guid machine bytes (MD5 unavailable)")));
        strlcpy(cached_name, name, sizeof cached_name);
        cached = true;
    }
    locality::HotStamp stamp;
    memcpy(stamp.machine, cached_machine, 3);
    stamp.pid = static_cast<uint16>(MyProcPid & 0xFFFF);
    return stamp;
}

}  // namespace locality_pg
