// Sequential mode's starting counter, derived identically on every node from
// the current 10-minute UTC window: MD5 of the first 11 characters of the
// time formatted yyyyMMddHHmm (e.g. "20130428010"), first four digest bytes
// read little-endian.  The first id of the window carries base + 1.
#pragma once

#include <cstdint>

namespace locality {

constexpr std::int64_t kWindowMillis = 600000;  // 10 minutes

// Window number of a Unix millisecond time (>= 0); fits 32 bits up to 2^48 ms.
constexpr std::uint32_t window_of(std::uint64_t unix_millis) noexcept {
    return static_cast<std::uint32_t>(unix_millis / kWindowMillis);
}

constexpr std::uint64_t window_start_millis(std::uint32_t window) noexcept {
    return static_cast<std::uint64_t>(window) * kWindowMillis;
}

// Writes the window's key text ("yyyyMMddHHm", NUL-terminated) into out.
// Returns the key length (11 for years 0-9999).
int window_key(std::uint32_t window, char out[24]) noexcept;

// Computes the window's base counter; false only if the MD5 provider failed.
bool window_base(std::uint32_t window, std::uint32_t *base) noexcept;

// Remembers window bases so MD5 runs about once per window per process:
// 64 slots indexed by window number, so a backfill whose rows come in any
// order over up to 64 windows (10 hours and 40 minutes) still hits.
struct WindowBaseCache {
    static constexpr std::uint32_t kSlots = 64;
    std::uint32_t window[kSlots] = {};
    std::uint32_t base[kSlots] = {};
    bool valid[kSlots] = {};

    bool get(std::uint32_t w, std::uint32_t *out) noexcept {
        const std::uint32_t slot = w % kSlots;
        if (!valid[slot] || window[slot] != w) {
            std::uint32_t b;
            if (!window_base(w, &b)) return false;
            window[slot] = w;
            base[slot] = b;
            valid[slot] = true;
        }
        *out = base[slot];
        return true;
    }
};

}  // namespace locality
