#include "locality_id.hpp"

namespace locality {

Uuid16 encode_locality(const LocalityFields &f) noexcept {
    Uuid16 u{};
    put_be(u, 0, 4, f.counter_written);
    put_be(u, 4, 2, f.pid);
    const std::uint32_t node = f.node & kNodeMask;
    u.bytes[6] = static_cast<std::uint8_t>((kLocalityVersion << 4) | (node >> 24));
    put_be(u, 7, 3, node & 0xFFFFFF);
    put_be(u, 10, 6, f.millis & kMaxMillis);
    return u;
}

LocalityFields decode_locality(const Uuid16 &u) noexcept {
    LocalityFields f{};
    f.counter_written = static_cast<std::uint32_t>(get_be(u, 0, 4));
    f.pid = static_cast<std::uint16_t>(get_be(u, 4, 2));
    f.node = (static_cast<std::uint32_t>(u.bytes[6] & 0x0F) << 24) |
             static_cast<std::uint32_t>(get_be(u, 7, 3));
    f.millis = get_be(u, 10, 6);
    return f;
}

}  // namespace locality
