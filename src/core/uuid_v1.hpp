// RFC 4122 version-1 UUIDs for a given time: 60-bit count of 100-ns ticks
// since 1582-10-15 00:00 UTC, 14-bit clock sequence, 48-bit node.  All
// arithmetic is on integers (Unix microseconds in, microseconds out), so
// form -> extract round-trips exactly for every microsecond in range.
#pragma once

#include <cstdint>

#include "uuid16.hpp"

namespace locality {

constexpr std::int64_t kGregorianToUnixMicros = 12219292800000000;  // 1582-10-15 -> 1970-01-01
constexpr std::uint64_t kMaxV1Ticks = (1ULL << 60) - 1;
constexpr std::int64_t kMinV1UnixMicros = -kGregorianToUnixMicros;
// Last microsecond whose first tick fits 60 bits (5236-03-31 21:21:00.684697 UTC).
constexpr std::int64_t kMaxV1UnixMicros =
    static_cast<std::int64_t>(kMaxV1Ticks / 10) - kGregorianToUnixMicros;
constexpr std::int32_t kMaxClockSeq = 16383;
// form_v1_nth: ordinals use every clock sequence, then the 10 ticks of the microsecond.
constexpr std::int64_t kV1OrdinalsPerMicro = 10LL * (kMaxClockSeq + 1);

enum class V1Status : std::uint8_t {
    ok,
    clock_seq_out_of_range,
    ordinal_out_of_range,
    before_gregorian,
    after_limit,
};

// Ticks of the first 100 ns of a Unix microsecond, when in range.
V1Status v1_ticks_from_unix_micros(std::int64_t unix_micros, std::uint64_t *ticks) noexcept;

// The v1 UUID a machine with `node` would have made at tick `ticks`.
Uuid16 v1_from_fields(std::uint64_t ticks, std::uint16_t clock_seq, const std::uint8_t node[6]) noexcept;

V1Status form_v1(std::int64_t unix_micros, std::int64_t clock_seq, const std::uint8_t node[6],
                 Uuid16 *out) noexcept;

// The ordinal-th distinct v1 UUID of one microsecond and node, for backfills:
// clock_seq = ordinal mod 16384 and the tick inside the microsecond =
// ordinal / 16384, so ordinals 0..16383 equal form_v1(t, ordinal, node) and
// up to 163840 rows sharing a microsecond get distinct ids that all read
// back as that microsecond.
V1Status form_v1_nth(std::int64_t unix_micros, std::int64_t ordinal, const std::uint8_t node[6],
                     Uuid16 *out) noexcept;

// True for version 1 with the RFC 4122 variant (bits 10).
inline bool is_rfc_v1(const Uuid16 &u) noexcept {
    return version_nibble(u) == 1 && (u.bytes[8] & 0xC0) == 0x80;
}

std::uint64_t v1_ticks(const Uuid16 &u) noexcept;

// Truncates toward the past to whole microseconds.
constexpr std::int64_t unix_micros_from_v1_ticks(std::uint64_t ticks) noexcept {
    return static_cast<std::int64_t>(ticks / 10) - kGregorianToUnixMicros;
}

inline std::uint16_t v1_clock_seq(const Uuid16 &u) noexcept {
    return static_cast<std::uint16_t>(((u.bytes[8] & 0x3F) << 8) | u.bytes[9]);
}

}  // namespace locality
