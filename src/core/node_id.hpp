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

// What a MAC address says of its uniqueness (IEEE 802: bit 0x01 of the
// first octet is multicast, bit 0x02 locally administered). Only a
// universally administered address is assigned to one interface in the
// world; containers and cloud VMs often get the same locally administered
// one on many hosts.
enum class MacKind : std::uint8_t { universal, locally_administered, multicast, zero };

MacKind classify_mac(const std::uint8_t mac[6]) noexcept;

}  // namespace locality
