// The Hot Guid layout, bit-compatible with the .NET HotGuid library
// (HotGuidGenerator.NewGuid(shardKey)): a time-ordered id whose last four
// bytes carry a shard key chosen by the caller.
//
// .NET builds the 16 bytes
//   uint32 LE unix seconds | MD5(machine name)[0..2] | pid hi, pid lo |
//   24-bit counter, big-endian | uint32 LE shard key
// and passes them to new Guid(byte[]), whose first three fields are
// little-endian. So in the uuid as PostgreSQL (and Npgsql, and the text
// form) holds it:
//   bytes 0-3   unix seconds, big-endian (ids sort by second)
//   bytes 4-5   machine byte 1, machine byte 0
//   bytes 6-7   pid high byte, machine byte 2
//   byte  8     pid low byte
//   bytes 9-11  counter, big-endian
//   bytes 12-15 shard key, little-endian
// There is no version or variant marker: those nibbles hold pid and
// machine bits, so any uuid decodes (as in the original).
#pragma once

#include <cstddef>
#include <cstdint>

#include "uuid16.hpp"

namespace locality {

constexpr std::uint32_t kHotCounterMask = 0xFFFFFF;           // 24 bits
constexpr std::int64_t kHotMaxSeconds = 0xFFFFFFFFLL;         // 2106-02-07 06:28:15 UTC

struct HotGuidFields {
    std::uint32_t seconds;     // since the Unix epoch
    std::uint8_t machine[3];   // MD5(machine name) bytes 0, 1, 2
    std::uint16_t pid;         // process id mod 65536
    std::uint32_t counter;     // 24 bits
    std::uint32_t shard_key;
};

inline Uuid16 encode_hot_guid(const HotGuidFields &f) noexcept {
    Uuid16 u;
    put_be(u, 0, 4, f.seconds);
    u.bytes[4] = f.machine[1];
    u.bytes[5] = f.machine[0];
    u.bytes[6] = static_cast<std::uint8_t>(f.pid >> 8);
    u.bytes[7] = f.machine[2];
    u.bytes[8] = static_cast<std::uint8_t>(f.pid);
    put_be(u, 9, 3, f.counter & kHotCounterMask);
    for (int i = 0; i < 4; ++i) u.bytes[12 + i] = static_cast<std::uint8_t>(f.shard_key >> (8 * i));
    return u;
}

inline HotGuidFields decode_hot_guid(const Uuid16 &u) noexcept {
    HotGuidFields f;
    f.seconds = static_cast<std::uint32_t>(get_be(u, 0, 4));
    f.machine[0] = u.bytes[5];
    f.machine[1] = u.bytes[4];
    f.machine[2] = u.bytes[7];
    f.pid = static_cast<std::uint16_t>((u.bytes[6] << 8) | u.bytes[8]);
    f.counter = static_cast<std::uint32_t>(get_be(u, 9, 3));
    f.shard_key = 0;
    for (int i = 0; i < 4; ++i) f.shard_key |= static_cast<std::uint32_t>(u.bytes[12 + i]) << (8 * i);
    return f;
}

// The smallest uuid a Hot Guid of second `seconds` can be: every Hot Guid
// of an earlier second sorts below it (uuids compare byte by byte, and the
// second comes first, big-endian), every one of that second or later at or
// above it. So `id >= bound(a) AND id < bound(b)` selects the Hot Guids of
// seconds a to b - 1 as a range of the primary key.
inline Uuid16 hot_guid_lower_bound(std::uint32_t seconds) noexcept {
    Uuid16 u{};
    put_be(u, 0, 4, seconds);
    return u;
}

// The machine bytes .NET derives from Environment.MachineName: the first
// three bytes of the MD5 of its UTF-8 text. On Linux .NET's MachineName is
// the host name up to its first '.', so callers pass that. False only if
// MD5 is unavailable.
bool hot_guid_machine(const char *name, std::size_t len, std::uint8_t out[3]) noexcept;

// The length of a host name up to its first '.', as .NET's MachineName.
std::size_t machine_name_length(const char *host_name, std::size_t len) noexcept;

// This host's machine name as .NET's Environment.MachineName gives it on
// Linux: the host name up to its first '.'. False (errno set) if the host
// name cannot be read.
bool host_machine_name(char (&out)[256]) noexcept;

// The three machine bytes as six hex digits and a NUL, MD5 byte order (as
// hot_guid_machine() returns them).
void format_machine(const std::uint8_t machine[3], char (&out)[7]) noexcept;

}  // namespace locality
