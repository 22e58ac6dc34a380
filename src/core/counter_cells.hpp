// Storage for generator counters.  The generators (generator.hpp,
// hot_guid_generator.hpp) are written once against this small interface
// and run on three kinds of storage:
//   PlainCell64    one process, one thread (a PostgreSQL backend's own state)
//   AtomicCell64   std::atomic, for threads (the CLI and the C++ tests)
//   PgCell64       pg_atomic_* in PostgreSQL shared memory (src/pg/), taken
//                  by each backend in blocks (block_cell.hpp)
// A cell needs fetch_add, load, and a compare_exchange that, like
// std::atomic's, refreshes `expected` on failure.
#pragma once

#include <atomic>
#include <cstdint>

namespace locality {

struct PlainCell64 {
    std::uint64_t value = 0;
    std::uint64_t fetch_add(std::uint64_t delta) noexcept {
        const std::uint64_t old = value;
        value = old + delta;
        return old;
    }
    std::uint64_t load() const noexcept { return value; }
    bool compare_exchange(std::uint64_t &expected, std::uint64_t desired) noexcept {
        if (value != expected) {
            expected = value;
            return false;
        }
        value = desired;
        return true;
    }
};

// Relaxed ordering is enough: uniqueness needs each read-modify-write to be
// atomic, not any ordering against other memory.
struct AtomicCell64 {
    std::atomic<std::uint64_t> value{0};
    std::uint64_t fetch_add(std::uint64_t delta) noexcept {
        return value.fetch_add(delta, std::memory_order_relaxed);
    }
    std::uint64_t load() const noexcept { return value.load(std::memory_order_relaxed); }
    bool compare_exchange(std::uint64_t &expected, std::uint64_t desired) noexcept {
        return value.compare_exchange_weak(expected, desired, std::memory_order_relaxed);
    }
};

// Sequential runs are kept for this many recent windows (10 hours 40
// minutes): a window's slot is its number mod kRunSlots.
constexpr std::uint32_t kRunSlots = 64;

// The counters of a Locality UUID generator, on one kind of storage. Every
// counter only grows, so a generator that starts again past the values it
// reserved (src/pg/reservation.hpp) never repeats one.
template <class Cell64>
struct CounterCells {
    std::uint32_t variable_start = 0;  // variable-mode counter before the first id
    std::uint32_t run_start = 0;       // the place a window's run starts at (below 2^24)
    Cell64 variable;                   // variable-mode ids drawn
    Cell64 explicit_sequential;        // sequential ids for given times drawn
    Cell64 runs[kRunSlots];            // (window + 1) << 32 | next place in that window's run; 0: none
};

using PlainCounters = CounterCells<PlainCell64>;
using AtomicCounters = CounterCells<AtomicCell64>;

// The two counters of a Hot Guid generator (hot_guid_generator.hpp).
template <class Cell64>
struct HotGuidCells {
    Cell64 draws;   // every id takes the next draw; its low 24 bits are the counter
    Cell64 second;  // (newest second + 1) << 32 | low 32 bits of its first draw; 0: none yet
    Cell64 opened;  // that first draw in full, stored by its opener right after `second`
};

using PlainHotGuidCells = HotGuidCells<PlainCell64>;
using AtomicHotGuidCells = HotGuidCells<AtomicCell64>;

// What a generator drew, for a caller that must make each draw durable
// before the id is used (the server-wide counters persist reserved
// high-water marks). `slot` and `window` are set for runs only. A Hot Guid
// generator also reserves each second it opens (hot_second: `position` is
// that second), so a restart knows which seconds ids can carry already.
enum class Counter : std::uint8_t { variable, explicit_sequential, run, hot_guid, hot_second };

struct Draw {
    Counter counter;
    std::uint32_t slot;
    std::uint32_t window;
    std::uint64_t position;  // the value drawn: ids before this one in that counter
};

// The reservation policy of generators that need none.
struct NoReservation {
    constexpr bool operator()(const Draw &) const noexcept { return true; }
};

}  // namespace locality
