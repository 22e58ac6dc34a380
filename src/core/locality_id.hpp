// The Locality UUID layout (version nibble 'b'):
//
//   wwwwwwww-xxxx-byyy-yyyy-zzzzzzzzzzzz
//   bytes 0-3  counter as written (variable mode writes it nibble-reversed)
//   bytes 4-5  process id mod 65536
//   byte  6    0xB0 | top nibble of the 28-bit node value
//   bytes 7-9  low 24 bits of the node value (the last three MAC bytes)
//   bytes 10-15 UTC milliseconds since the Unix epoch (48 bits)
#pragma once

#include <cstdint>

#include "uuid16.hpp"

namespace locality {

constexpr unsigned kLocalityVersion = 0xB;
constexpr std::uint32_t kNodeMask = 0x0FFFFFFF;           // 28 bits
constexpr std::uint64_t kMaxMillis = (1ULL << 48) - 1;    // year 10889

struct LocalityFields {
    std::uint32_t counter_written;  // bytes 0-3 exactly as stored
    std::uint16_t pid;
    std::uint32_t node;             // 28 bits
    std::uint64_t millis;           // 48 bits
};

// Reverses the eight hex digits of a 32-bit value: 0xcff0eb02 <-> 0x20be0ffc.
// Variable mode stores the counter this way so its fastest-changing digit
// comes first in the text form.
// Reversing the bytes and then the two nibbles of each byte reverses all
// eight nibbles.
constexpr std::uint32_t nibble_reverse(std::uint32_t v) noexcept {
    v = __builtin_bswap32(v);
    return ((v & 0x0F0F0F0Fu) << 4) | ((v >> 4) & 0x0F0F0F0Fu);
}

// Inline: encoding is on the generation hot path.
inline Uuid16 encode_locality(const LocalityFields &f) noexcept {
    const std::uint32_t node = f.node & kNodeMask;
    Uuid16 u;
    store_be64(u, 0, (static_cast<std::uint64_t>(f.counter_written) << 32) |
                         (static_cast<std::uint64_t>(f.pid) << 16) | (kLocalityVersion << 12) |
                         (node >> 16));
    store_be64(u, 8, (static_cast<std::uint64_t>(node & 0xFFFF) << 48) | (f.millis & kMaxMillis));
    return u;
}

inline LocalityFields decode_locality(const Uuid16 &u) noexcept {
    const std::uint64_t hi = load_be64(u, 0);
    const std::uint64_t lo = load_be64(u, 8);
    LocalityFields f;
    f.counter_written = static_cast<std::uint32_t>(hi >> 32);
    f.pid = static_cast<std::uint16_t>(hi >> 16);
    f.node = (static_cast<std::uint32_t>(hi & 0x0FFF) << 16) | static_cast<std::uint32_t>(lo >> 48);
    f.millis = lo & kMaxMillis;
    return f;
}

inline bool is_locality(const Uuid16 &u) noexcept {
    return version_nibble(u) == kLocalityVersion;
}

// The 28-bit node value of a MAC address: its last 28 bits.
inline std::uint32_t node_from_mac(const std::uint8_t mac[6]) noexcept {
    return (static_cast<std::uint32_t>(mac[2] & 0x0F) << 24) |
           (static_cast<std::uint32_t>(mac[3]) << 16) |
           (static_cast<std::uint32_t>(mac[4]) << 8) | mac[5];
}

// The MAC fragment a node value stands for, unknown leading bits zero.
inline void mac_from_node(std::uint32_t node, std::uint8_t mac[6]) noexcept {
    mac[0] = 0;
    mac[1] = 0;
    mac[2] = static_cast<std::uint8_t>((node >> 24) & 0x0F);
    mac[3] = static_cast<std::uint8_t>(node >> 16);
    mac[4] = static_cast<std::uint8_t>(node >> 8);
    mac[5] = static_cast<std::uint8_t>(node);
}

}  // namespace locality
