// Making Hot Guids: the counter rules, on any counter storage
// (counter_cells.hpp: one set per server in shared memory, or per backend).
// Time is passed in, in whole seconds.
//
// Every id takes the next value k of one 64-bit draw counter (which starts
// at a random value, as .NET's counter does); its 24-bit counter field is
// k mod 2^24. Two ids of one generator with the same second, machine, pid
// and shard key coincide only if their draws are a multiple of 2^24 apart.
//
//  * Ids for the clock time (make_hot_guid_now) never repeat. The generator
//    keeps the newest second it has stamped and the draw F that opened it.
//    A later second opens with its own draw. An id whose clock reads that
//    second or an earlier one (the clock stepped back) is stamped with the
//    newest second, a time the clock did reach, and must have a draw in
//    [F - kHotRaceSlack, F + 2^24 - kHotRaceSlack): 2^24 consecutive draws,
//    so all ids of one second have distinct counters. F is kept in full (64
//    bits, `opened`), so a window stays full however many draws (ids for
//    given times, failed calls) pass while the clock stands behind it; for
//    the moment between opening the second and storing F, its low 32 bits
//    in `second` decide, which is exact for draws that close to F. Past that window the
//    second is full: the caller gets second_full (an error, never a repeat)
//    until the clock reaches the next second. A draw below the window can
//    only come from a caller that stalled between its draw and this check;
//    it draws again. The slack (65,536) covers draws taken concurrently
//    before the one that opened the second; it leaves 16,711,680 ids per
//    second.
//  * Ids for a given time (make_hot_guid_at, backfills) take draws from the
//    same counter and carry that time: such an id differs from every other
//    id of the generator, whatever its second, made within 2^24 draws of
//    it.
#pragma once

#include <cstdint>

#include "counter_cells.hpp"
#include "hot_guid.hpp"

namespace locality {

constexpr std::uint64_t kHotCounterSpace = 1ULL << 24;
constexpr std::uint64_t kHotRaceSlack = 1ULL << 16;
constexpr std::uint64_t kHotIdsPerSecond = kHotCounterSpace - kHotRaceSlack;

enum class HotStatus : std::uint8_t {
    ok,
    time_out_of_range,
    second_full,
    not_reserved,  // the reservation policy refused the draw (counter_cells.hpp)
};

// What identifies the generating process.
struct HotStamp {
    std::uint8_t machine[3];
    std::uint16_t pid;
};

inline bool hot_seconds_in_range(std::int64_t seconds) noexcept {
    return seconds >= 0 && seconds <= kHotMaxSeconds;
}

// Ids for the clock end one second earlier: the generator keeps the newest
// second plus one in 32 bits (HotGuidCells::second), and the last second
// has no next one to wait for.
constexpr std::int64_t kHotMaxClockSeconds = kHotMaxSeconds - 1;  // 2106-02-07 06:28:14 UTC

namespace detail {
inline Uuid16 hot_id(std::uint32_t seconds, std::uint64_t draw, HotStamp stamp,
                     std::uint32_t shard_key) noexcept {
    return encode_hot_guid({seconds,
                            {stamp.machine[0], stamp.machine[1], stamp.machine[2]},
                            stamp.pid,
                            static_cast<std::uint32_t>(draw) & kHotCounterMask,
                            shard_key});
}
// Stores the opening draw `k` of the second `mine` (the value its opener
// put in `second`) unless a newer second was opened meanwhile, whose
// opener stores its own.
template <class Cells>
void store_opened(Cells &cells, std::uint64_t mine, std::uint64_t k) noexcept {
    std::uint64_t current = cells.opened.load();
    while (current != k && cells.second.load() == mine && !cells.opened.compare_exchange(current, k)) {
    }
}

// How far draw k lies past the opening draw of the second in `seen`: in
// 64 bits when the full opening draw is stored, else (just after the
// second opened) from the low 32 bits.
template <class Cells>
std::int64_t offset_in_second(Cells &cells, std::uint64_t seen, std::uint64_t k) noexcept {
    const std::uint64_t first = cells.opened.load();
    if (static_cast<std::uint32_t>(first) == static_cast<std::uint32_t>(seen))
        return static_cast<std::int64_t>(k - first);
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(k) - static_cast<std::uint32_t>(seen));
}

}  // namespace detail

template <class Cells, class Reserve = NoReservation>
HotStatus make_hot_guid_now(Cells &cells, std::int64_t now_seconds, HotStamp stamp,
                            std::uint32_t shard_key, Uuid16 *out, Reserve reserve = {}) noexcept {
    if (!hot_seconds_in_range(now_seconds) || now_seconds > kHotMaxClockSeconds)
        return HotStatus::time_out_of_range;
    const auto now = static_cast<std::uint64_t>(now_seconds);
    for (int stale_draws = 0;; ++stale_draws) {
        // A caller that stalls between its draw and the check below (while
        // the second turned and a later one opened) gets a fresh draw, a few
        // times at most.
        if (stale_draws > 3) return HotStatus::second_full;
        const std::uint64_t k = cells.draws.fetch_add(1);
        if (!reserve(Draw{Counter::hot_guid, 0, 0, k})) return HotStatus::not_reserved;
        const auto k32 = static_cast<std::uint32_t>(k);
        std::uint64_t seen = cells.second.load();
        for (;;) {
            const std::uint64_t newest_plus_one = seen >> 32;
            if (now + 1 > newest_plus_one) {
                // This id opens a new second, which must be reserved first.
                if (!reserve(Draw{Counter::hot_second, 0, 0, now})) return HotStatus::not_reserved;
                const std::uint64_t mine = ((now + 1) << 32) | k32;
                if (cells.second.compare_exchange(seen, mine)) {
                    detail::store_opened(cells, mine, k);
                    *out = detail::hot_id(static_cast<std::uint32_t>(now), k, stamp, shard_key);
                    return HotStatus::ok;
                }
                continue;  // `seen` was refreshed
            }
            // The newest second (the clock's, or a later one it reached before
            // stepping back): the draw must fall in the second's window.
            const std::int64_t offset = detail::offset_in_second(cells, seen, k);
            if (offset < -static_cast<std::int64_t>(kHotRaceSlack)) break;  // stale draw: again
            if (offset >= static_cast<std::int64_t>(kHotIdsPerSecond)) return HotStatus::second_full;
            *out = detail::hot_id(static_cast<std::uint32_t>(newest_plus_one - 1), k, stamp, shard_key);
            return HotStatus::ok;
        }
    }
}

template <class Cells, class Reserve = NoReservation>
HotStatus make_hot_guid_at(Cells &cells, std::int64_t at_seconds, HotStamp stamp,
                           std::uint32_t shard_key, Uuid16 *out, Reserve reserve = {}) noexcept {
    if (!hot_seconds_in_range(at_seconds)) return HotStatus::time_out_of_range;
    const std::uint64_t k = cells.draws.fetch_add(1);
    if (!reserve(Draw{Counter::hot_guid, 0, 0, k})) return HotStatus::not_reserved;
    *out = detail::hot_id(static_cast<std::uint32_t>(at_seconds), k, stamp, shard_key);
    return HotStatus::ok;
}

}  // namespace locality
