// Storage for generator counters.  The generator (generator.hpp) is written
// once against this small interface and runs on three kinds of storage:
//   PlainCell*   one process, one thread (a PostgreSQL backend's own state)
//   AtomicCell*  std::atomic, for threads (the CLI and the C++ tests)
//   PgCell*      pg_atomic_* in PostgreSQL shared memory (src/pg/)
// A 32-bit cell needs fetch_add; a 64-bit cell needs fetch_add, load and a
// compare_exchange that, like std::atomic's, refreshes `expected` on failure.
#pragma once

#include <atomic>
#include <cstdint>

namespace locality {

struct PlainCell32 {
    std::uint32_t value = 0;
    std::uint32_t fetch_add(std::uint32_t delta) noexcept {
        const std::uint32_t old = value;
        value = old + delta;
        return old;
    }
};

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
struct AtomicCell32 {
    std::atomic<std::uint32_t> value{0};
    std::uint32_t fetch_add(std::uint32_t delta) noexcept {
        return value.fetch_add(delta, std::memory_order_relaxed);
    }
};

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

// The three counters of a generator, on one kind of storage.
template <class Cell32, class Cell64>
struct CounterCells {
    Cell32 variable;             // variable mode: advanced by the prime
    Cell64 sequential;           // sequential mode: (window << 32) | index in window
    Cell32 explicit_sequential;  // sequential ids for a given time (backfills)
};

using PlainCounters = CounterCells<PlainCell32, PlainCell64>;
using AtomicCounters = CounterCells<AtomicCell32, AtomicCell64>;

// The two counters of a Hot Guid generator (hot_guid_generator.hpp).
template <class Cell64>
struct HotGuidCells {
    Cell64 draws;   // every id takes the next draw; its low 24 bits are the counter
    Cell64 second;  // (newest second + 1) << 32 | low 32 bits of its first draw; 0: none yet
};

using PlainHotGuidCells = HotGuidCells<PlainCell64>;
using AtomicHotGuidCells = HotGuidCells<AtomicCell64>;

}  // namespace locality
