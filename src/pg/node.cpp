#include "node.hpp"

#include "locality_id.hpp"
#include "node_id.hpp"
#include "settings.hpp"

namespace locality_pg {
namespace {

bool detected = false;
locality::DetectedNode detected_node{};
char detected_source[64];

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
