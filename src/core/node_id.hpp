// Finding this machine's node value: the last 28 bits of the MAC address of
// the first interface that is up, is not loopback and has a non-zero 6-byte
// hardware address (Linux getifaddrs order).  Zero when there is none.
#pragma once

#include <cstdint>

namespace locality {

struct DetectedNode {
    bool found;
    std::uint8_t mac[6];
    char interface_name[40];
};

DetectedNode detect_node() noexcept;

}  // namespace locality
