// Making Locality UUIDs: the counter rules of both modes, on any counter
// storage (counter_cells.hpp).  Time is always passed in, so tests can drive
// the clock (including backwards) and the caller decides where "now" comes
// from. Every id carries the time it is made for: the clock's, or the given
// one.
//
// Uniqueness argument, for one set of cells (one server with shared memory,
// one backend without), independent of pid and node:
//  * Variable mode: the n-th id (n from 0) has counter
//    variable_start + (n + 1) * 198491317 mod 2^32. The prime is odd, so two
//    ids share a counter only when their n differ by a multiple of 2^32.
//  * Sequential mode, clock time: window w (10 minutes) keeps its own run in
//    slot w mod 64, from the cells' run start s (below 2^24: 0 for the
//    original libraries' base + 1; a server draws its own, so that two
//    servers' runs do not count through the same places at once): the id at
//    place p of w's run has counter base(w) + 1 + p, s <= p < 2^31. Ids of
//    one window differ in counter, ids of different windows in timestamp. When the clock steps back into a window whose run is
//    still held, ids continue that run; a window whose slot now holds a
//    later window (64 or more windows back, 10 h 40 min) is refused
//    (window_too_old), never restarted.
//  * Sequential mode, given time: the n-th such id has counter base(window
//    of the time) + 2^31 + 1 + (n mod 2^31): offsets [2^31 + 1, 2^32] never
//    meet the clock runs' [1, 2^31], nor each other within 2^31 ids.
// Each draw is passed to a reservation policy before its id is made (see
// counter_cells.hpp); a policy that refuses makes the call fail with
// not_reserved, and that draw is never used.
#pragma once

#include <cstdint>

#include "counter_cells.hpp"
#include "locality_id.hpp"
#include "window_base.hpp"

namespace locality {

enum class Mode : std::uint8_t { variable, sequential };

constexpr std::uint32_t kVariableStep = 198491317;        // prime
constexpr std::uint32_t kIndexMask = 0x7FFFFFFF;          // 2^31 offsets per half
constexpr std::uint32_t kRunIds = 0x80000000;             // places per window run
constexpr std::uint32_t kRunStartLimit = 1u << 24;        // a run start is below this
constexpr std::uint32_t kClockOffset = 1;                 // first id: base + 1
constexpr std::uint32_t kExplicitOffset = 0x80000001;     // upper half

enum class GenStatus : std::uint8_t {
    ok,
    time_out_of_range,
    hash_failed,
    window_too_old,  // the clock stands 64 or more windows behind the newest run
    window_full,     // 2^31 ids in one window
    not_reserved,    // the reservation policy refused the draw
};

// What identifies the generating process: pid mod 65536 and 28-bit node.
struct Stamp {
    std::uint16_t pid;
    std::uint32_t node;
};

// The variable-mode counter of the n-th id.
constexpr std::uint32_t variable_counter(std::uint32_t start, std::uint64_t n) noexcept {
    return start + static_cast<std::uint32_t>(n + 1) * kVariableStep;
}

// Handing counters over (one edition, or one version, continuing where
// another with the same node value stops): the draw whose id carries a
// given counter, and the first draw at or after another with given low
// bits. kVariableStep * kVariableStepInverse = 1 mod 2^32.
constexpr std::uint32_t kVariableStepInverse = 3127333277u;
static_assert(kVariableStep * kVariableStepInverse == 1u, "the step's inverse mod 2^32");

// The draw n (mod 2^32) whose variable-mode counter is `counter`.
constexpr std::uint32_t variable_draw_of(std::uint32_t start, std::uint32_t counter) noexcept {
    return (counter - start) * kVariableStepInverse - 1u;
}

// The first draw at or after `from` whose low `bits` bits are `low`.
constexpr std::uint64_t next_draw_with(std::uint64_t from, std::uint64_t low, unsigned bits) noexcept {
    const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
    return from + ((low - from) & mask);
}

struct RunDraw {
    GenStatus status;
    std::uint32_t slot;
    std::uint32_t index;
};

// Takes the next place in window `window`'s run: a fetch-add while the
// window keeps its slot, a compare-and-swap only when a newer window takes
// the slot over, at place `start`.
template <class Cell64>
RunDraw draw_run(Cell64 (&runs)[kRunSlots], std::uint32_t window, std::uint32_t start = 0) noexcept {
    const std::uint32_t slot = window % kRunSlots;
    Cell64 &cell = runs[slot];
    const std::uint64_t mine = static_cast<std::uint64_t>(window) + 1;
    std::uint64_t seen = cell.load();
    for (;;) {
        const std::uint64_t held = seen >> 32;
        if (held == mine) {
            if (static_cast<std::uint32_t>(seen) >= kRunIds) return {GenStatus::window_full, slot, 0};
            const std::uint64_t before = cell.fetch_add(1);
            if ((before >> 32) == mine) {
                const auto index = static_cast<std::uint32_t>(before);
                if (index >= kRunIds) return {GenStatus::window_full, slot, 0};
                return {GenStatus::ok, slot, index};
            }
            // A newer window took the slot between the load and the add; the
            // add only skipped a place in its run.
            seen = before + 1;
            continue;
        }
        if (held > mine) return {GenStatus::window_too_old, slot, 0};
        // Empty, or an older window's run: this window's run starts.
        const std::uint32_t first = start & (kRunStartLimit - 1);
        if (cell.compare_exchange(seen, (mine << 32) | (first + 1))) return {GenStatus::ok, slot, first};
    }
}

inline bool millis_in_range(std::int64_t ms) noexcept {
    return ms >= 0 && static_cast<std::uint64_t>(ms) <= kMaxMillis;
}

namespace detail {

template <class Cells, class Reserve>
GenStatus variable_id(Cells &cells, std::uint64_t ms, Stamp stamp, Reserve &reserve, Uuid16 *out) noexcept {
    const std::uint64_t n = cells.variable.fetch_add(1);
    if (!reserve(Draw{Counter::variable, 0, 0, n})) return GenStatus::not_reserved;
    *out = encode_locality({nibble_reverse(variable_counter(cells.variable_start, n)), stamp.pid,
                            stamp.node, ms});
    return GenStatus::ok;
}

}  // namespace detail

// An id made now (`now_ms` read from the clock by the caller).
template <class Cells, class Reserve = NoReservation>
GenStatus make_clock_id(Cells &cells, WindowBaseCache &bases, Mode mode, std::int64_t now_ms,
                        Stamp stamp, Uuid16 *out, Reserve reserve = {}) noexcept {
    if (!millis_in_range(now_ms)) return GenStatus::time_out_of_range;
    const auto ms = static_cast<std::uint64_t>(now_ms);
    if (mode == Mode::variable) return detail::variable_id(cells, ms, stamp, reserve, out);
    const std::uint32_t window = window_of(ms);
    const RunDraw d = draw_run(cells.runs, window, cells.run_start);
    if (d.status != GenStatus::ok) return d.status;
    if (!reserve(Draw{Counter::run, d.slot, window, d.index})) return GenStatus::not_reserved;
    std::uint32_t base;
    if (!bases.get(window, &base)) return GenStatus::hash_failed;
    *out = encode_locality({base + kClockOffset + d.index, stamp.pid, stamp.node, ms});
    return GenStatus::ok;
}

// An id carrying a given time (backfills): uniqueness still from the counter.
template <class Cells, class Reserve = NoReservation>
GenStatus make_id_at(Cells &cells, WindowBaseCache &bases, Mode mode, std::int64_t at_ms,
                     Stamp stamp, Uuid16 *out, Reserve reserve = {}) noexcept {
    if (!millis_in_range(at_ms)) return GenStatus::time_out_of_range;
    const auto ms = static_cast<std::uint64_t>(at_ms);
    if (mode == Mode::variable) return detail::variable_id(cells, ms, stamp, reserve, out);
    const std::uint64_t n = cells.explicit_sequential.fetch_add(1);
    if (!reserve(Draw{Counter::explicit_sequential, 0, 0, n})) return GenStatus::not_reserved;
    std::uint32_t base;
    if (!bases.get(window_of(ms), &base)) return GenStatus::hash_failed;
    *out = encode_locality(
        {base + kExplicitOffset + (static_cast<std::uint32_t>(n) & kIndexMask), stamp.pid, stamp.node, ms});
    return GenStatus::ok;
}

// The counter a decoded id carries: variable-mode ids store it nibble-reversed.
inline std::uint32_t counter_of(const LocalityFields &f, Mode mode) noexcept {
    return mode == Mode::variable ? nibble_reverse(f.counter_written) : f.counter_written;
}

}  // namespace locality
