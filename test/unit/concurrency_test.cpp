// The shared-counter logic under threads: the same templates PostgreSQL runs
// on pg_atomic_* in shared memory, here on std::atomic.
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

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

TEST(SharedCounters, SequentialRolloverRacingWithGenerationStaysUnique) {
    AtomicCounters cells;
    const std::int64_t start = utc_millis(2024, 5, 1, 9, 59, 59, 990);
    // Each thread's clock crosses the 10:00 window boundary at a different
    // moment and some threads lag 30 ms behind: re-basing races with
    // threads still drawing from the old window, as backends would.
    const auto all = run_threads([&](WindowBaseCache &bases, int t, int i) {
        const std::int64_t now = start + i / (20000 * (t + 1)) - (t % 2 ? 30 : 0);
        Uuid16 u{};
        EXPECT_EQ(make_clock_id(cells, bases, Mode::sequential, now, {1, 1}, &u), GenStatus::ok);
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
