// The 16 raw bytes of a UUID and big-endian field helpers.
// Kept as a plain aggregate so the PostgreSQL glue can copy it into a
// pg_uuid_t without constructors or destructors being involved.
#pragma once

#include <cstdint>
#include <cstring>

namespace locality {

struct Uuid16 {
    std::uint8_t bytes[16];
};

// Reads `width` bytes starting at `offset` as a big-endian unsigned number.
inline std::uint64_t get_be(const Uuid16 &u, int offset, int width) noexcept {
    std::uint64_t v = 0;
    for (int i = 0; i < width; ++i) v = (v << 8) | u.bytes[offset + i];
    return v;
}

// Writes the low `width` bytes of `value` big-endian starting at `offset`.
inline void put_be(Uuid16 &u, int offset, int width, std::uint64_t value) noexcept {
    for (int i = width - 1; i >= 0; --i) {
        u.bytes[offset + i] = static_cast<std::uint8_t>(value & 0xFF);
        value >>= 8;
    }
}

// Converts between this machine's byte order and big-endian (network)
// order; its own inverse. Decided at compile time: a no-op on big-endian
// targets (s390x), one byte swap on little-endian ones (x86-64, arm64,
// i386, ppc64el, riscv64). Every byte order assumption of the id formats
// goes through here or through the shift-based helpers above.
#if !defined(__BYTE_ORDER__) || \
    (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ && __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__)
#error "locality_uuid needs a compiler that defines __BYTE_ORDER__ as little or big endian"
#endif
constexpr std::uint64_t big_endian64(std::uint64_t v) noexcept {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return v;
#else
    return __builtin_bswap64(v);
#endif
}

// The two big-endian 64-bit halves of an id: one load or store each
// (plus a byte swap on little-endian machines) instead of sixteen byte
// stores (generation is on the hot path).
inline std::uint64_t load_be64(const Uuid16 &u, int offset) noexcept {
    std::uint64_t v;
    std::memcpy(&v, u.bytes + offset, 8);
    return big_endian64(v);
}

inline void store_be64(Uuid16 &u, int offset, std::uint64_t value) noexcept {
    value = big_endian64(value);
    std::memcpy(u.bytes + offset, &value, 8);
}

// The version nibble every UUID layout keeps in the high half of byte 6.
inline unsigned version_nibble(const Uuid16 &u) noexcept { return u.bytes[6] >> 4; }

}  // namespace locality
