// Making Locality UUIDs: the counter rules of both modes, on any counter
// storage (counter_cells.hpp).  Time is always passed in, so tests can drive
// the clock (including backwards) and the caller decides where "now" comes from.
//
// Uniqueness argument, for one set of cells (one server with shared memory,
// one backend without), independent of pid and node:
//  * Variable mode: every id takes counter += 198491317 (odd, so the sequence
//    visits all 2^32 values before repeating): two ids share a counter only
//    2^32 ids apart, whatever their timestamps.
//  * Sequential mode, clock time: the state (window, index) only moves
//    forward.  Each id's counter is base(window) + 1 + index (index mod 2^31),
//    and its timestamp is clamped into that window: ids of one window differ
//    in counter, ids of different windows differ in timestamp.  When the
//    clock steps back into an earlier window, ids keep the newest window's
//    run and carry its start time until the clock catches up.
//  * Sequential mode, explicit time: counter is base(window of the time) +
//    2^31 + 1 + n, n from its own cell, so these offsets ([2^31+1, 2^32])
//    never meet the clock-time offsets ([1, 2^31]) and never each other
//    within 2^31 ids.
#pragma once

#include <cstdint>

#include "counter_cells.hpp"
#include "locality_id.hpp"
#include "window_base.hpp"

namespace locality {

enum class Mode : std::uint8_t { variable, sequential };

constexpr std::uint32_t kVariableStep = 198491317;        // prime
constexpr std::uint32_t kIndexMask = 0x7FFFFFFF;          // 2^31 offsets per half
constexpr std::uint32_t kClockOffset = 1;                 // first id: base + 1
constexpr std::uint32_t kExplicitOffset = 0x80000001;     // upper half

enum class GenStatus : std::uint8_t { ok, time_out_of_range, hash_failed };

// What identifies the generating process: pid mod 65536 and 28-bit node.
struct Stamp {
    std::uint16_t pid;
    std::uint32_t node;
};

struct SequentialDraw {
    std::uint32_t window;
    std::uint32_t index;
};

constexpr std::uint64_t pack_sequential(std::uint32_t window, std::uint32_t index) noexcept {
    return (static_cast<std::uint64_t>(window) << 32) | index;
}

template <class Cell32>
std::uint32_t next_variable_counter(Cell32 &cell) noexcept {
    return cell.fetch_add(kVariableStep) + kVariableStep;
}

// Takes the next place in the sequential run: re-bases (index 0) when `window`
// is newer than the stored one, otherwise continues the stored window's run.
template <class Cell64>
SequentialDraw draw_sequential(Cell64 &cell, std::uint32_t window) noexcept {
    std::uint64_t seen = cell.load();
    for (;;) {
        const auto stored_window = static_cast<std::uint32_t>(seen >> 32);
        const auto stored_index = static_cast<std::uint32_t>(seen);
        const std::uint64_t next = stored_window < window
                                       ? pack_sequential(window, 0)
                                       : pack_sequential(stored_window, stored_index + 1);
        if (cell.compare_exchange(seen, next))
            return {static_cast<std::uint32_t>(next >> 32), static_cast<std::uint32_t>(next)};
    }
}

inline bool millis_in_range(std::int64_t ms) noexcept {
    return ms >= 0 && static_cast<std::uint64_t>(ms) <= kMaxMillis;
}

// An id made now (`now_ms` read from the clock by the caller).
template <class Cells>
GenStatus make_clock_id(Cells &cells, WindowBaseCache &bases, Mode mode, std::int64_t now_ms,
                        Stamp stamp, Uuid16 *out) noexcept {
    if (!millis_in_range(now_ms)) return GenStatus::time_out_of_range;
    auto ms = static_cast<std::uint64_t>(now_ms);
    std::uint32_t written;
    if (mode == Mode::variable) {
        written = nibble_reverse(next_variable_counter(cells.variable));
    } else {
        const SequentialDraw d = draw_sequential(cells.sequential, window_of(ms));
        std::uint32_t base;
        if (!bases.get(d.window, &base)) return GenStatus::hash_failed;
        written = base + kClockOffset + (d.index & kIndexMask);
        const std::uint64_t start = window_start_millis(d.window);
        if (ms < start) ms = start;  // clock stepped back: stay in the run's window
    }
    *out = encode_locality({written, stamp.pid, stamp.node, ms});
    return GenStatus::ok;
}

// An id carrying a given time (backfills): uniqueness still from the counter.
template <class Cells>
GenStatus make_id_at(Cells &cells, WindowBaseCache &bases, Mode mode, std::int64_t at_ms,
                     Stamp stamp, Uuid16 *out) noexcept {
    if (!millis_in_range(at_ms)) return GenStatus::time_out_of_range;
    const auto ms = static_cast<std::uint64_t>(at_ms);
    std::uint32_t written;
    if (mode == Mode::variable) {
        written = nibble_reverse(next_variable_counter(cells.variable));
    } else {
        const std::uint32_t n = cells.explicit_sequential.fetch_add(1);
        std::uint32_t base;
        if (!bases.get(window_of(ms), &base)) return GenStatus::hash_failed;
        written = base + kExplicitOffset + (n & kIndexMask);
    }
    *out = encode_locality({written, stamp.pid, stamp.node, ms});
    return GenStatus::ok;
}

// The counter a decoded id carries: variable-mode ids store it nibble-reversed.
inline std::uint32_t counter_of(const LocalityFields &f, Mode mode) noexcept {
    return mode == Mode::variable ? nibble_reverse(f.counter_written) : f.counter_written;
}

}  // namespace locality
