#include "identity/node.hpp"

#include "identity/lease.hpp"
#include "identity/lease_record.hpp"
#include "identity/setting_source.hpp"
#include "locality_id.hpp"
#include "node_id.hpp"
#include "settings.hpp"

namespace locality_pg {
namespace {

bool detected = false;
locality::DetectedNode detected_node{};
char detected_source[64];

// Looks the MAC up once in this process. When the library is preloaded,
// that is the postmaster at start, and every backend inherits the result:
// one node value per server, even if interfaces come up later.
const locality::DetectedNode &detect_once() {
    if (!detected) {
        detected_node = locality::detect_node();
        if (detected_node.found)
            snprintf(detected_source, sizeof detected_source, "mac %s", detected_node.interface_name);
        else
            strlcpy(detected_source, "none", sizeof detected_source);
        detected = true;
    }
    return detected_node;
}

// Why ids need values from host files (host_files_required): set at start.
char leased_reason[sizeof(LeaseEntry::registry) + 256] = "";

// With leases off: whether this data directory has leased (or its record
// of leases cannot be read, which is not taken for "never").
void read_leases_held_before() {
    LeaseRecord record;
    const LeaseRecordRead read = read_lease_record(&record);
    if (read == LeaseRecordRead::missing || (read == LeaseRecordRead::ok && record.count == 0)) return;
    if (read == LeaseRecordRead::ok)
        snprintf(leased_reason, sizeof leased_reason,
                 "locality_uuid: this data directory has leased (node value %d from the registry at %s, "
                 "recorded in \"%s\") and locality_uuid.registry is empty",
                 record.entries[0].node, record.entries[0].registry, kLeaseRecordFile);
    else
        snprintf(leased_reason, sizeof leased_reason,
                 "locality_uuid: the record of this data directory's leases (\"%s\") cannot be read (%s) and "
                 "locality_uuid.registry is empty",
                 kLeaseRecordFile, read == LeaseRecordRead::corrupt ? "it is not a lease record" : strerror(errno));
}

// What a copy of this data directory, or another server with the same
// values, does: said at every start where the values are not this host's
// own (README, "Node identity").
constexpr const char *kHostFileHint =
    "Set locality_uuid.node_id and locality_uuid.machine_name in a configuration file of this host outside "
    "the data directory (README, \"Node identity\"); locality_uuid.require_node_id = on then refuses ids "
    "until they are.";

// What a data directory that has leased does without its registry (also
// to give up leases for good: a claimed value in a host file, never a
// MAC's or the host name, which the registry may lease to another server).
constexpr const char *kLeasedHint =
    "Include the node file claimed for this host in advance (doc/fleets.md, \"When the registry is down for "
    "hours\") and reload, or set locality_uuid.registry again and restart.";

void warn_data_directory(const char *what, const char *source) {
    ereport(WARNING, (errmsg("locality_uuid: %s comes from a file in the data directory (%s)", what, source),
                      errdetail("Every copy of this data directory (a restored backup, a clone, a standby's "
                                "base backup) starts with the same value; its counters move past fresh random "
                                "points at its start, but its ids and its origin's then differ only by chance."),
                      errhint("%s", kHostFileHint)));
}

}  // namespace

void detect_node_for_server() {
    char source[MAXPGPATH + 32];
    if (leases_on()) {
        // The values come from this start's lease, none other: what the
        // settings hold would only mislead.
        ereport(LOG, (errmsg("locality_uuid: node values and Hot Guid machine names come from leases (locality_uuid.registry): "
                             "this start takes one before its first server-wide id"),
                      (setting_node_id != kNodeIdDetect || (setting_machine_name != nullptr && setting_machine_name[0] != '\0'))
                          ? errdetail("locality_uuid.node_id and locality_uuid.machine_name are not used while "
                                      "locality_uuid.registry is set.")
                          : 0));
        return;
    }
    if (setting_node_id != kNodeIdDetect) {
        if (setting_source("locality_uuid.node_id", source, sizeof source) == SettingSource::data_directory_file) {
            char what[64];
            snprintf(what, sizeof what, "node value %d", setting_node_id);
            warn_data_directory(what, source);
        } else {
            ereport(LOG, (errmsg("locality_uuid: node value %d, from locality_uuid.node_id (%s)", setting_node_id,
                                 source)));
        }
    } else {
        const locality::DetectedNode &d = detect_once();
        if (!d.found) {
            ereport(WARNING, (errmsg("locality_uuid: node value 0: no MAC address found and "
                                     "locality_uuid.node_id is not set"),
                              errdetail("Servers with the same node value make ids that differ only in pid, "
                                        "counter and millisecond."),
                              errhint("%s", kHostFileHint)));
        } else {
            char mac[18];
            snprintf(mac, sizeof mac, "%02x:%02x:%02x:%02x:%02x:%02x", d.mac[0], d.mac[1], d.mac[2], d.mac[3],
                     d.mac[4], d.mac[5]);
            const uint32 node = locality::node_from_mac(d.mac);
            const locality::MacKind kind = locality::classify_mac(d.mac);
            ereport(WARNING,
                    (errmsg("locality_uuid: node value %u comes from %sMAC address %s of interface \"%s\"", node,
                            kind == locality::MacKind::universal   ? ""
                            : kind == locality::MacKind::multicast ? "multicast "
                                                                   : "locally administered ",
                            mac, d.interface_name),
                     errdetail("A node value drawn from 28 bits of a MAC address is shared by two of 10,000 "
                               "servers with probability 0.17, and containers and cloud images share whole "
                               "addresses; servers with the same node value make ids that differ only by "
                               "chance."),
                     errhint("%s", kHostFileHint)));
        }
    }
    read_leases_held_before();
    const char *machine = setting_machine_name != nullptr ? setting_machine_name : "";
    if (machine[0] == '\0') {
        ereport(WARNING,
                (errmsg("locality_uuid: the Hot Guid machine name comes from the host name"),
                 errdetail("Host names repeat (every StatefulSet has a db-0), and 24 machine bytes are shared by "
                           "two of 10,000 machines with probability 0.95."),
                 errhint("%s", kHostFileHint)));
    } else if (setting_source("locality_uuid.machine_name", source, sizeof source) ==
               SettingSource::data_directory_file) {
        warn_data_directory("the Hot Guid machine name", source);
    } else {
        ereport(LOG, (errmsg("locality_uuid: Hot Guid machine name \"%s\", from locality_uuid.machine_name (%s)",
                             machine, source)));
    }
    // What require_node_id (or a lease record) refuses until the values
    // come from a host file: said at start, so that the refusal is no
    // surprise at the first id.
    char why[MAXPGPATH + 64];
    const HostFilesRequired required = host_files_required();
    const char *hint = required.leased_hint != nullptr ? required.leased_hint : kHostFileHint;
    if (required.reason != nullptr && !node_value_from_host_file(why, sizeof why))
        ereport(WARNING, (errmsg("%s: %s", required.reason, why),
                          errdetail("Locality UUIDs made with the server-wide counters are refused until "
                                    "locality_uuid.node_id comes from a configuration file of this host outside "
                                    "the data directory."),
                          errhint("%s", hint)));
    if (required.reason != nullptr && !machine_name_from_host_file(why, sizeof why))
        ereport(WARNING, (errmsg("%s: %s", required.reason, why),
                          errdetail("Hot Guids made with the server-wide counters are refused until "
                                    "locality_uuid.machine_name comes from a configuration file of this host "
                                    "outside the data directory; Locality UUIDs are not."),
                          errhint("%s", hint)));
}

HostFilesRequired host_files_required() {
    if (leases_on()) return {nullptr, nullptr};
    if (leased_reason[0] != '\0') return {leased_reason, kLeasedHint};
    return {setting_require_node_id ? "locality_uuid.require_node_id is on" : nullptr, nullptr};
}

bool node_value_from_host_file(char *why, size_t size) {
    char source[MAXPGPATH + 32];
    if (leases_on()) return true;  // the registry's, for this start alone
    if (setting_node_id == kNodeIdDetect) {
        snprintf(why, size, "the node value comes from %s", current_node_source());
        return false;
    }
    if (setting_source("locality_uuid.node_id", source, sizeof source) != SettingSource::host_file) {
        snprintf(why, size, "locality_uuid.node_id comes from %s", source);
        return false;
    }
    return true;
}

bool machine_name_from_host_file(char *why, size_t size) {
    char source[MAXPGPATH + 32];
    if (leases_on()) return true;
    if (setting_machine_name == nullptr || setting_machine_name[0] == '\0') {
        snprintf(why, size, "the Hot Guid machine name comes from the host name");
        return false;
    }
    if (setting_source("locality_uuid.machine_name", source, sizeof source) != SettingSource::host_file) {
        snprintf(why, size, "locality_uuid.machine_name comes from %s", source);
        return false;
    }
    return true;
}

uint32 current_node() {
    if (leases_on()) return lease_node();
    if (setting_node_id != kNodeIdDetect) return static_cast<uint32>(setting_node_id);
    const locality::DetectedNode &d = detect_once();
    return d.found ? locality::node_from_mac(d.mac) : 0;
}

const char *current_node_source() {
    if (leases_on()) return "lease";
    if (setting_node_id != kNodeIdDetect) return "setting";
    detect_once();
    return detected_source;
}

}  // namespace locality_pg
