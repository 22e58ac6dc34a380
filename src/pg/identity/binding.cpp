// This server's binding now (binding.hpp): the host identity, the data
// directory, the system identifier, the node value and machine bytes and
// where each comes from.
#include "binding.hpp"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <ctime>

extern "C" {
#include "access/xlog.h"  // GetSystemIdentifier
}

#include "host_identity.hpp"
#include "hot_guid.hpp"
#include "identity/lease.hpp"
#include "identity/machine.hpp"
#include "identity/node.hpp"
#include "identity/setting_source.hpp"
#include "settings.hpp"

namespace locality_pg {
namespace {

void host_identity(Binding *b) {
    char text[1024];
    size_t len = 0;
    const char *file = setting_host_identity_file != nullptr ? setting_host_identity_file : "";
    if (file[0] != '\0') {
        // A file the operator provides (a container's host, mounted in).
        if (!locality::read_first_line(file, text, sizeof text)) {
            b->host[0] = '\0';
            snprintf(b->host_source, sizeof b->host_source, "file %s (unreadable)", file);
            return;
        }
        len = strlen(text);
        snprintf(b->host_source, sizeof b->host_source, "file %s", file);
    } else {
        char machine_id[128];
        char host[256];
        const bool has_id = locality::read_first_line("/etc/machine-id", machine_id, sizeof machine_id);
        if (gethostname(host, sizeof host) != 0) host[0] = '\0';
        host[sizeof host - 1] = '\0';
        len = static_cast<size_t>(snprintf(text, sizeof text, "%s\n%s", has_id ? machine_id : "", host));
        strlcpy(b->host_source, has_id ? "machine-id and host name" : "host name", sizeof b->host_source);
    }
    if (!locality::identity_digest(text, len, b->host)) b->host[0] = '\0';
}

}  // namespace

void current_binding(Binding *out) {
    memset(out, 0, sizeof *out);
    host_identity(out);
    // The directory itself, however it is reached: a start through a
    // symbolic link, or another mount of the same path, is the same place.
    char resolved[PATH_MAX];
    if (DataDir != nullptr && realpath(DataDir, resolved) != nullptr)
        strlcpy(out->data_directory, resolved, sizeof out->data_directory);
    else
        strlcpy(out->data_directory, DataDir != nullptr ? DataDir : "", sizeof out->data_directory);
    out->system_identifier = GetSystemIdentifier();
    out->node = static_cast<int32>(current_node());
    if (leases_on())
        strlcpy(out->node_source, lease_source(), sizeof out->node_source);
    else if (setting_node_id != kNodeIdDetect)
        setting_source("locality_uuid.node_id", out->node_source, sizeof out->node_source);
    else
        strlcpy(out->node_source, current_node_source(), sizeof out->node_source);
    std::uint8_t machine[3];
    if (machine_bytes_quietly(machine)) locality::format_machine(machine, out->machine);
    if (leases_on())
        strlcpy(out->machine_source, lease_source(), sizeof out->machine_source);
    else if (setting_machine_name != nullptr && setting_machine_name[0] != '\0')
        setting_source("locality_uuid.machine_name", out->machine_source, sizeof out->machine_source);
    else
        strlcpy(out->machine_source, "host name", sizeof out->machine_source);
    out->since = static_cast<int64>(time(nullptr));
}

void current_host_label(char *buf, size_t size) {
    const char *file = setting_host_identity_file != nullptr ? setting_host_identity_file : "";
    char text[1024];
    if (file[0] != '\0') {
        if (!locality::read_first_line(file, text, sizeof text)) text[0] = '\0';
        strlcpy(buf, text, size);
        return;
    }
    char machine_id[128];
    char host[256];
    const bool has_id = locality::read_first_line("/etc/machine-id", machine_id, sizeof machine_id);
    if (gethostname(host, sizeof host) != 0) host[0] = '\0';
    host[sizeof host - 1] = '\0';
    snprintf(buf, size, "%s (%s)", has_id ? "machine-id and host name" : "host name", host);
}

bool host_identity_unreadable() {
    Binding b;
    memset(&b, 0, sizeof b);
    host_identity(&b);
    return b.host[0] == '\0' && setting_host_identity_file != nullptr && setting_host_identity_file[0] != '\0';
}

bool same_place(const Binding &a, const Binding &b) {
    return a.host[0] != '\0' && strcmp(a.host, b.host) == 0 && a.data_directory[0] != '\0' &&
           strcmp(a.data_directory, b.data_directory) == 0 && a.system_identifier != 0 &&
           a.system_identifier == b.system_identifier;
}

bool same_values(const Binding &a, const Binding &b) {
    return a.node == b.node && strcmp(a.machine, b.machine) == 0 && strcmp(a.node_source, b.node_source) == 0 &&
           strcmp(a.machine_source, b.machine_source) == 0;
}

void describe_binding(const Binding &b, char *buf, size_t size) {
    char since[64] = "unknown";
    if (b.since > 0) {
        const time_t t = static_cast<time_t>(b.since);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(since, sizeof since, "%Y-%m-%d %H:%M:%S+00", &tm);
    }
    snprintf(buf, size,
             "host %.16s (%s), data directory %s, system identifier " UINT64_FORMAT
             ", node %d (%s), machine %s (%s), since %s",
             b.host[0] != '\0' ? b.host : "unknown", b.host_source, b.data_directory,
             static_cast<uint64>(b.system_identifier), b.node, b.node_source,
             b.machine[0] != '\0' ? b.machine : "unknown", b.machine_source, since);
}

}  // namespace locality_pg
