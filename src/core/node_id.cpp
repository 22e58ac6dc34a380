#include "node_id.hpp"

#include <cstring>

#if defined(__linux__)
#include <ifaddrs.h>
#include <net/if.h>
#include <netpacket/packet.h>
#include <sys/socket.h>
#endif

namespace locality {

DetectedNode detect_node() noexcept {
    DetectedNode result{};
#if defined(__linux__)
    struct ifaddrs *list = nullptr;
    if (getifaddrs(&list) != 0) return result;
    for (struct ifaddrs *ifa = list; ifa != nullptr; ifa = ifa->ifa_next) {
        if (ifa->ifa_addr == nullptr || ifa->ifa_addr->sa_family != AF_PACKET) continue;
        if (!(ifa->ifa_flags & IFF_UP) || (ifa->ifa_flags & IFF_LOOPBACK)) continue;
        const auto *ll = reinterpret_cast<const struct sockaddr_ll *>(ifa->ifa_addr);
        if (ll->sll_halen != 6) continue;
        bool nonzero = false;
        for (int i = 0; i < 6; ++i) nonzero = nonzero || ll->sll_addr[i] != 0;
        if (!nonzero) continue;
        result.found = true;
        std::memcpy(result.mac, ll->sll_addr, 6);
        std::strncpy(result.interface_name, ifa->ifa_name, sizeof result.interface_name - 1);
        break;
    }
    freeifaddrs(list);
#endif
    return result;
}

MacKind classify_mac(const std::uint8_t mac[6]) noexcept {
    bool nonzero = false;
    for (int i = 0; i < 6; ++i) nonzero = nonzero || mac[i] != 0;
    if (!nonzero) return MacKind::zero;
    if (mac[0] & 0x01) return MacKind::multicast;
    if (mac[0] & 0x02) return MacKind::locally_administered;
    return MacKind::universal;
}

}  // namespace locality
