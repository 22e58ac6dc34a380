#include "uuid_v1.hpp"

namespace locality {

V1Status v1_ticks_from_unix_micros(std::int64_t unix_micros, std::uint64_t *ticks) noexcept {
    if (unix_micros < kMinV1UnixMicros) return V1Status::before_gregorian;
    if (unix_micros > kMaxV1UnixMicros) return V1Status::after_limit;
    *ticks = static_cast<std::uint64_t>(unix_micros + kGregorianToUnixMicros) * 10;
    return V1Status::ok;
}

Uuid16 v1_from_fields(std::uint64_t ticks, std::uint16_t clock_seq, const std::uint8_t node[6]) noexcept {
    Uuid16 u{};
    put_be(u, 0, 4, ticks & 0xFFFFFFFF);                       // time_low
    put_be(u, 4, 2, (ticks >> 32) & 0xFFFF);                   // time_mid
    put_be(u, 6, 2, ((ticks >> 48) & 0x0FFF) | 0x1000);        // time_hi_and_version
    u.bytes[8] = static_cast<std::uint8_t>(0x80 | ((clock_seq >> 8) & 0x3F));  // variant 10
    u.bytes[9] = static_cast<std::uint8_t>(clock_seq & 0xFF);
    for (int i = 0; i < 6; ++i) u.bytes[10 + i] = node[i];
    return u;
}

V1Status form_v1(std::int64_t unix_micros, std::int64_t clock_seq, const std::uint8_t node[6],
                 Uuid16 *out) noexcept {
    if (clock_seq < 0 || clock_seq > kMaxClockSeq) return V1Status::clock_seq_out_of_range;
    std::uint64_t ticks;
    const V1Status s = v1_ticks_from_unix_micros(unix_micros, &ticks);
    if (s != V1Status::ok) return s;
    *out = v1_from_fields(ticks, static_cast<std::uint16_t>(clock_seq), node);
    return V1Status::ok;
}

V1Status form_v1_nth(std::int64_t unix_micros, std::int64_t ordinal, const std::uint8_t node[6],
                     Uuid16 *out) noexcept {
    if (ordinal < 0 || ordinal >= kV1OrdinalsPerMicro) return V1Status::ordinal_out_of_range;
    std::uint64_t ticks;
    const V1Status s = v1_ticks_from_unix_micros(unix_micros, &ticks);
    if (s != V1Status::ok) return s;
    const auto sub_tick = static_cast<std::uint64_t>(ordinal / (kMaxClockSeq + 1));
    if (ticks + sub_tick > kMaxV1Ticks) return V1Status::after_limit;
    *out = v1_from_fields(ticks + sub_tick, static_cast<std::uint16_t>(ordinal % (kMaxClockSeq + 1)), node);
    return V1Status::ok;
}

std::uint64_t v1_ticks(const Uuid16 &u) noexcept {
    return get_be(u, 0, 4) | (get_be(u, 4, 2) << 32) | ((get_be(u, 6, 2) & 0x0FFF) << 48);
}

}  // namespace locality
