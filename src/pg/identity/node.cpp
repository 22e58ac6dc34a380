#include "identity/node.hpp"

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

}  // namespace

void detect_node_for_server() {
    if (setting_node_id != kNodeIdDetect) {
        ereport(LOG, (errmsg("locality_uuid: node value %d, from locality_uuid.node_id", setting_node_id)));
        return;
    }
    const locality::DetectedNode &d = detect_once();
    const char *hint = "Set locality_uuid.node_id in a configuration file of this host outside the data "
                       "directory (README, \"Node identity\").";
    if (!d.found) {
        ereport(WARNING, (errmsg("locality_uuid: node value 0: no MAC address found and "
                                 "locality_uuid.node_id is not set"),
                          errdetail("Servers with the same node value make ids that differ only in pid, "
                                    "counter and millisecond."),
                          errhint("%s", hint)));
        return;
    }
    char mac[18];
    snprintf(mac, sizeof mac, "%02x:%02x:%02x:%02x:%02x:%02x", d.mac[0], d.mac[1], d.mac[2], d.mac[3], d.mac[4],
             d.mac[5]);
    const uint32 node = locality::node_from_mac(d.mac);
    const locality::MacKind kind = locality::classify_mac(d.mac);
    if (kind == locality::MacKind::universal) {
        ereport(LOG, (errmsg("locality_uuid: node value %u, from MAC address %s of interface \"%s\"", node, mac,
                             d.interface_name)));
        return;
    }
    ereport(WARNING,
            (errmsg("locality_uuid: node value %u comes from %s MAC address %s of interface \"%s\"", node,
                    kind == locality::MacKind::multicast ? "multicast" : "locally administered", mac,
                    d.interface_name),
             errdetail("Containers and cloud VMs often share such addresses; servers with the same node value "
                       "make sequential ids that differ only in pid and millisecond."),
             errhint("%s", hint)));
}

uint32 current_node() {
    if (setting_node_id != kNodeIdDetect) return static_cast<uint32>(setting_node_id);
    const locality::DetectedNode &d = detect_once();
    return d.found ? locality::node_from_mac(d.mac) : 0;
}

const char *current_node_source() {
    if (setting_node_id != kNodeIdDetect) return "setting";
    detect_once();
    return detected_source;
}

}  // namespace locality_pg
