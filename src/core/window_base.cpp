#include "window_base.hpp"

#include <cstdio>

#include "civil_time.hpp"
#include "md5.hpp"

namespace locality {

int window_key(std::uint32_t window, char out[24]) noexcept {
    const CivilTime t = civil_from_millis(static_cast<std::int64_t>(window_start_millis(window)));
    // The original library formats yyyyMMddHHmm and keeps 11 characters; a
    // 5-digit year (after 9999) shifts that cut, and so do we, to stay
    // byte-compatible with it.
    char full[32];
    std::snprintf(full, sizeof full, "%04lld%02d%02d%02d%02d", static_cast<long long>(t.year),
                  t.month, t.day, t.hour, t.minute);
    int n = 0;
    for (; n < 11 && full[n] != '\0'; ++n) out[n] = full[n];
    out[n] = '\0';
    return n;
}

bool window_base(std::uint32_t window, std::uint32_t *base) noexcept {
    char key[24];
    const int len = window_key(window, key);
    std::uint8_t digest[16];
    if (!md5_digest(key, static_cast<std::size_t>(len), digest)) return false;
    *base = static_cast<std::uint32_t>(digest[0]) | (static_cast<std::uint32_t>(digest[1]) << 8) |
            (static_cast<std::uint32_t>(digest[2]) << 16) |
            (static_cast<std::uint32_t>(digest[3]) << 24);
    return true;
}

}  // namespace locality
