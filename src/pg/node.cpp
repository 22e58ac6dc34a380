#include "node.hpp"

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
    if (!detect_once().found && setting_node_id == kNodeIdDetect)
        ereport(LOG, (errmsg("locality_uuid: no active non-loopback MAC address found; Locality UUIDs "
                             "carry node value 0"),
                      errhint("Set locality_uuid.node_id to give this server its own node value.")));
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
