// The shared-counter logic under threads: the same templates PostgreSQL runs
// on pg_atomic_* in shared memory, here on std::atomic.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "block_cell.hpp"
#include "generator.hpp"
#include "test_support.hpp"

using namespace locality;
using namespace locality_test;

namespace {
constexpr int kThreads = 8;
constexpr int kPerThread = 1250000;  // 10M ids in all

// Every thread shares the cells; each keeps its own base cache, as backends do.
template <class MakeOne>
std::vector<IdKey> run_threads(MakeOne make_one) {
    std::vector<std::vector<IdKey>> per(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            WindowBaseCache bases;
            per[t].reserve(kPerThread);
            for (int i = 0; i < kPerThread; ++i) per[t].push_back(make_one(bases, t, i));
        });
    for (auto &th : threads) th.join();
    std::vector<IdKey> all;
    all.reserve(static_cast<size_t>(kThreads) * kPerThread);
    for (auto &v : per) all.insert(all.end(), v.begin(), v.end());
    std::sort(all.begin(), all.end());
    return all;
}

size_t duplicates(const std::vector<IdKey> &sorted) {
    size_t d = 0;
    for (size_t i = 1; i < sorted.size(); ++i) d += sorted[i] == sorted[i - 1];
    return d;
}
}  // namespace

TEST(SharedCounters, VariableModeGivesTenMillionDistinctCounters) {
    AtomicCounters cells;
    cells.variable_start = 0xDEADBEEF;
    // Same pid, node and millisecond for every id: only the counter can differ.
    const auto all = run_threads([&](WindowBaseCache &bases, int, int) {
        Uuid16 u{};
        make_clock_id(cells, bases, Mode::variable, 1700000000000, {1, 1}, &u);
        return key_of(u);
    });
    ASSERT_EQ(all.size(), 10000000u);
    EXPECT_EQ(duplicates(all), 0u);
}

// Sequential ids across the 10:00 window boundary: each thread's clock
// crosses it at a different moment and some threads lag 30 ms behind, so
// re-basing races with threads still drawing from the old window, as
// backends would. `cells_of(t)` gives thread t's cells.
template <class CellsOf>
void check_rollover_race(CellsOf cells_of) {
    const std::int64_t start = utc_millis(2024, 5, 1, 9, 59, 59, 990);
    const auto all = run_threads([&](WindowBaseCache &bases, int t, int i) {
        const std::int64_t now = start + i / (20000 * (t + 1)) - (t % 2 ? 30 : 0);
        Uuid16 u{};
        EXPECT_EQ(make_clock_id(cells_of(t), bases, Mode::sequential, now, {1, 1}, &u), GenStatus::ok);
        return key_of(u);
    });
    ASSERT_EQ(all.size(), 10000000u);
    EXPECT_EQ(duplicates(all), 0u);
    // The run really did roll over: ids exist in both windows.
    const std::uint64_t boundary = window_start_millis(window_of(start) + 1);
    const auto in_new = std::count_if(all.begin(), all.end(), [&](const IdKey &k) {
        return (k.lo & 0xFFFFFFFFFFFFull) >= boundary;
    });
    EXPECT_GT(in_new, 0);
    EXPECT_LT(static_cast<size_t>(in_new), all.size());
}

TEST(SharedCounters, SequentialRolloverRacingWithGenerationStaysUnique) {
    AtomicCounters cells;
    check_rollover_race([&](int) -> AtomicCounters & { return cells; });
}

TEST(SharedCounters, SequentialRunIsContiguousAcrossThreads) {
    AtomicCounters cells;
    const std::int64_t now = utc_millis(2013, 4, 28, 1, 3);
    const auto all = run_threads([&](WindowBaseCache &bases, int, int) {
        Uuid16 u{};
        make_clock_id(cells, bases, Mode::sequential, now, {1, 1}, &u);
        return key_of(u);
    });
    // One server, one window: the counters are exactly base+1 .. base+10M.
    EXPECT_EQ(all.front().hi >> 32, 0xf5166776u);
    EXPECT_EQ(all.back().hi >> 32, 0xf5166775u + 10000000u);
    EXPECT_EQ(duplicates(all), 0u);
}

// --- The production arrangement: one shared set of counters, each thread
// (a backend) with its own BlockCell view of them (block_cell.hpp). --------

namespace {
// A cell that refers to a shared std::atomic, as PgCell64 refers to shared
// memory.
struct AtomicRef64 {
    std::atomic<std::uint64_t> *value;
    std::uint64_t fetch_add(std::uint64_t delta) noexcept { return value->fetch_add(delta); }
    std::uint64_t load() const noexcept { return value->load(); }
    bool compare_exchange(std::uint64_t &expected, std::uint64_t desired) noexcept {
        return value->compare_exchange_strong(expected, desired);
    }
};
using BlockCounters = CounterCells<BlockCell<AtomicRef64>>;

struct SharedAtomics {
    std::atomic<std::uint64_t> variable{0}, explicit_sequential{0}, runs[kRunSlots]{};

    BlockCounters view(std::uint32_t variable_start) {
        BlockCounters c;
        c.variable_start = variable_start;
        c.variable = {{&variable}};
        c.explicit_sequential = {{&explicit_sequential}};
        for (std::uint32_t i = 0; i < kRunSlots; ++i) c.runs[i] = {{&runs[i]}, true};
        return c;
    }
};

// Like run_threads, with one BlockCell view per thread.
template <class MakeOne>
std::vector<IdKey> run_backends(SharedAtomics &shared, MakeOne make_one) {
    std::vector<BlockCounters> views;
    for (int t = 0; t < kThreads; ++t) views.push_back(shared.view(0xDEADBEEF));
    return run_threads([&](WindowBaseCache &bases, int t, int i) { return make_one(views[t], bases, t, i); });
}
}  // namespace

TEST(BlockCells, VariableAndGivenTimeIdsFromPerThreadBlocksAreDistinct) {
    SharedAtomics shared;
    const auto all = run_backends(shared, [](BlockCounters &cells, WindowBaseCache &bases, int, int i) {
        Uuid16 u{};
        const Mode mode = i % 2 ? Mode::variable : Mode::sequential;
        EXPECT_EQ(make_id_at(cells, bases, mode, 1700000000000, {1, 1}, &u), GenStatus::ok);
        // Same pid, node and time: only the counter can differ; modes apart.
        u.bytes[15] ^= static_cast<std::uint8_t>(mode);
        return key_of(u);
    });
    ASSERT_EQ(all.size(), 10000000u);
    EXPECT_EQ(duplicates(all), 0u);
    // Blocks of 256: each thread took whole blocks for its 625,000 variable-mode
    // ids (2,442), and no draw twice.
    EXPECT_EQ(shared.variable.load(), static_cast<std::uint64_t>(kThreads) * 2442 * 256);
}

TEST(BlockCells, SequentialRolloverWithPerThreadBlocksStaysUnique) {
    // A thread's block of the old window outlives the new window's start.
    SharedAtomics shared;
    std::vector<BlockCounters> views;
    for (int t = 0; t < kThreads; ++t) views.push_back(shared.view(0));
    check_rollover_race([&](int t) -> BlockCounters & { return views[t]; });
}
