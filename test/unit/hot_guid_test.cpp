// The Hot Guid layout against the worked examples (shared/reference and the
// .NET HotGuid byte order), and the counter rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "hot_guid.hpp"
#include "hot_guid_generator.hpp"
#include "test_support.hpp"

using namespace locality;
using namespace locality_test;

namespace {

HotStamp web01_stamp(std::uint16_t pid) {
    HotStamp s{};
    EXPECT_TRUE(hot_guid_machine("web01", 5, s.machine));
    s.pid = pid;
    return s;
}

constexpr std::uint32_t k20220206 = 1644105600;  // 2022-02-06T00:00:00Z

std::uint64_t counter_field(const Uuid16 &u) { return decode_hot_guid(u).counter; }

}  // namespace

TEST(HotGuidLayout, WorkedExamples) {
    const HotStamp s = web01_stamp(0xABCD);
    EXPECT_EQ(s.machine[0], 0x2f);
    EXPECT_EQ(s.machine[1], 0x52);
    EXPECT_EQ(s.machine[2], 0x76);
    EXPECT_EQ(hex(encode_hot_guid({k20220206, {0x2f, 0x52, 0x76}, 0xABCD, 123456, 208})),
              "61ff0f80522fab76cd01e240d0000000");
    EXPECT_EQ(hex(encode_hot_guid({k20220206, {0x2f, 0x52, 0x76}, 0xABCD, 123457, 0xDEADBEEF})),
              "61ff0f80522fab76cd01e241efbeadde");
}

TEST(HotGuidLayout, RoundTripsEdgeKeysAndSeconds) {
    for (std::uint32_t key : {0u, 1u, 208u, 65535u, 4294967295u})
        for (std::uint32_t sec : {0u, 2147483647u, 2147483648u, 4294967295u}) {
            const HotGuidFields f{sec, {0x01, 0xfe, 0x80}, 0x8001, 0xABCDEF, key};
            const HotGuidFields g = decode_hot_guid(encode_hot_guid(f));
            EXPECT_EQ(g.seconds, sec);
            EXPECT_EQ(g.shard_key, key);
            EXPECT_EQ(g.pid, 0x8001);
            EXPECT_EQ(g.counter, 0xABCDEFu);
            EXPECT_EQ(0, std::memcmp(g.machine, f.machine, 3));
            // The shard key is the last four bytes, little-endian.
            const Uuid16 u = encode_hot_guid(f);
            EXPECT_EQ(u.bytes[12], key & 0xFF);
            EXPECT_EQ(u.bytes[15], key >> 24);
        }
}

TEST(HotGuidLayout, MachineNameEndsAtTheFirstDot) {
    EXPECT_EQ(machine_name_length("web01.example.com", 17), 5u);
    EXPECT_EQ(machine_name_length("web01", 5), 5u);
    EXPECT_EQ(machine_name_length(".x", 2), 0u);
}

TEST(HotGuidGenerator, IdsOfOneSecondHaveConsecutiveCounters) {
    PlainHotGuidCells cells;
    cells.draws.value = 0xFFFFF0;  // crosses the 24-bit wrap
    const HotStamp s = web01_stamp(1);
    std::vector<std::uint64_t> counters;
    Uuid16 u;
    for (int i = 0; i < 100; ++i) {
        ASSERT_EQ(make_hot_guid_now(cells, k20220206, s, 7, &u), HotStatus::ok);
        EXPECT_EQ(decode_hot_guid(u).seconds, k20220206);
        counters.push_back(counter_field(u));
    }
    for (int i = 0; i < 100; ++i) EXPECT_EQ(counters[i], (0xFFFFF0u + i) & kHotCounterMask);
}

TEST(HotGuidGenerator, ASecondHoldsExactly16711680IdsThenRefuses) {
    PlainHotGuidCells cells;
    cells.draws.value = 12345;
    const HotStamp s = web01_stamp(1);
    Uuid16 u;
    for (std::uint64_t i = 0; i < kHotIdsPerSecond; ++i)
        ASSERT_EQ(make_hot_guid_now(cells, 100, s, 0, &u), HotStatus::ok) << i;
    EXPECT_EQ(make_hot_guid_now(cells, 100, s, 0, &u), HotStatus::second_full);
    EXPECT_EQ(make_hot_guid_now(cells, 100, s, 0, &u), HotStatus::second_full);
    ASSERT_EQ(make_hot_guid_now(cells, 101, s, 0, &u), HotStatus::ok);
    EXPECT_EQ(decode_hot_guid(u).seconds, 101u);
}

TEST(HotGuidGenerator, ClockSteppingBackKeepsTheNewestSecond) {
    PlainHotGuidCells cells;
    const HotStamp s = web01_stamp(1);
    Uuid16 a, b;
    ASSERT_EQ(make_hot_guid_now(cells, 1000, s, 0, &a), HotStatus::ok);
    ASSERT_EQ(make_hot_guid_now(cells, 990, s, 0, &b), HotStatus::ok);
    EXPECT_EQ(decode_hot_guid(b).seconds, 1000u);
    EXPECT_EQ(counter_field(b), counter_field(a) + 1);
}

TEST(HotGuidGenerator, DrawsTakenBeforeTheSecondOpenedStillFit) {
    // A draw a little below the one that opened the second (a concurrent
    // caller that lost the race) is stamped with that second.
    PlainHotGuidCells cells;
    cells.draws.value = 5000;
    cells.second.value = ((1000ull + 1) << 32) | 5010;
    const HotStamp s = web01_stamp(1);
    Uuid16 u;
    ASSERT_EQ(make_hot_guid_now(cells, 1000, s, 0, &u), HotStatus::ok);
    EXPECT_EQ(decode_hot_guid(u).seconds, 1000u);
    EXPECT_EQ(counter_field(u), 5000u);
    // Far below the window (2^31 draws past the second): refused, not reused.
    cells.second.value = ((1000ull + 1) << 32) | (5001u + (1u << 20));
    EXPECT_EQ(make_hot_guid_now(cells, 1000, s, 0, &u), HotStatus::second_full);
}

TEST(HotGuidGenerator, RejectsSecondsOutsideTheUnsigned32BitField) {
    PlainHotGuidCells cells;
    const HotStamp s = web01_stamp(1);
    Uuid16 u;
    EXPECT_EQ(make_hot_guid_now(cells, -1, s, 0, &u), HotStatus::time_out_of_range);
    EXPECT_EQ(make_hot_guid_at(cells, 4294967296LL, s, 0, &u), HotStatus::time_out_of_range);
    EXPECT_EQ(make_hot_guid_at(cells, 4294967295LL, s, 0, &u), HotStatus::ok);
    EXPECT_EQ(make_hot_guid_at(cells, 0, s, 0, &u), HotStatus::ok);
}

TEST(HotGuidGenerator, TheLastClockSecondFillsUpInsteadOfWrapping) {
    // (newest + 1) << 32 must not overflow: 2106-02-07 06:28:14 is the last
    // second for the clock; it fills up like any other, 06:28:15 is refused.
    PlainHotGuidCells cells;
    const HotStamp s = web01_stamp(1);
    Uuid16 u;
    for (std::uint64_t i = 0; i < kHotIdsPerSecond; ++i)
        ASSERT_EQ(make_hot_guid_now(cells, 4294967294LL, s, 0, &u), HotStatus::ok) << i;
    EXPECT_EQ(decode_hot_guid(u).seconds, 4294967294u);
    EXPECT_EQ(make_hot_guid_now(cells, 4294967294LL, s, 0, &u), HotStatus::second_full);
    EXPECT_EQ(make_hot_guid_now(cells, 4294967295LL, s, 0, &u), HotStatus::time_out_of_range);
    EXPECT_EQ(make_hot_guid_now(cells, 4294967294LL, s, 0, &u), HotStatus::second_full);
}

TEST(HotGuidGenerator, IdsForAGivenTimeDifferWithin2To24Draws) {
    PlainHotGuidCells cells;
    cells.draws.value = 0xFFFF00;
    const HotStamp s = web01_stamp(1);
    std::vector<std::uint64_t> counters;
    Uuid16 u;
    for (int i = 0; i < 300000; ++i) {
        ASSERT_EQ(make_hot_guid_at(cells, 42, s, 9, &u), HotStatus::ok);
        counters.push_back(counter_field(u));
    }
    std::sort(counters.begin(), counters.end());
    EXPECT_EQ(std::adjacent_find(counters.begin(), counters.end()), counters.end());
}

TEST(HotGuidGenerator, EightThreadsInOneSecondNeverRepeat) {
    AtomicHotGuidCells cells;
    cells.draws.value = 0xFFF000;
    const HotStamp s = web01_stamp(1);
    constexpr int kThreads = 8, kPerThread = 1000000;
    std::vector<std::vector<Uuid16>> ids(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            ids[t].resize(kPerThread);
            for (int i = 0; i < kPerThread; ++i)
                if (make_hot_guid_now(cells, 7, s, 3, &ids[t][i]) != HotStatus::ok) std::abort();
        });
    for (auto &th : threads) th.join();
    std::vector<std::uint64_t> all;
    for (const auto &v : ids)
        for (const Uuid16 &u : v) {
            EXPECT_EQ(decode_hot_guid(u).seconds, 7u);
            all.push_back(counter_field(u));
        }
    std::sort(all.begin(), all.end());
    EXPECT_EQ(all.size(), static_cast<std::size_t>(kThreads) * kPerThread);
    EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
}

// Past 2^24 draws: clock ids of three seconds, with the clock stepping back
// and given-time ids burning draws in between, the 32-bit wrap of the draw
// counter's low bits included. Every clock id's (second, counter) is new:
// any scheme that only takes draws mod 2^24 would repeat one here.
TEST(HotGuidGenerator, ClockIdsStayUniquePast2To24DrawsAcrossSeconds) {
    PlainHotGuidCells cells;
    cells.draws.value = 0xFFFFFF00ull;  // the low 32 bits wrap during the test
    const HotStamp s = web01_stamp(1);
    constexpr std::uint32_t kFirst = 1000;
    std::vector<std::vector<bool>> seen(3, std::vector<bool>(kHotCounterSpace));
    std::uint64_t made = 0, full = 0, repeated = 0;
    auto clock_ids = [&](std::int64_t clock, std::uint64_t n) {
        Uuid16 u;
        for (std::uint64_t i = 0; i < n; ++i) {
            const HotStatus st = make_hot_guid_now(cells, clock, s, 0, &u);
            if (st == HotStatus::second_full) { ++full; continue; }
            ASSERT_EQ(st, HotStatus::ok);
            const HotGuidFields f = decode_hot_guid(u);
            ASSERT_GE(f.seconds, kFirst);
            ASSERT_LT(f.seconds, kFirst + 3);
            auto bit = seen[f.seconds - kFirst][f.counter];
            repeated += bit;
            bit = true;
            ++made;
        }
    };
    auto given_time_ids = [&](std::uint64_t n) {
        Uuid16 u;
        for (std::uint64_t i = 0; i < n; ++i) ASSERT_EQ(make_hot_guid_at(cells, 5, s, 0, &u), HotStatus::ok);
    };
    clock_ids(kFirst, 10000000);      // second 1000: 10M ids
    given_time_ids(12000000);         // 12M draws burnt while the clock stands still:
    clock_ids(kFirst, 10000000);      // 22M past the second's opening draw: all full
    clock_ids(kFirst + 1, 9000000);   // second 1001
    clock_ids(kFirst - 5, 9000000);   // clock 6 s back: still 1001, until its window is full
    given_time_ids(30000000);         // far past 2^24 draws
    clock_ids(kFirst + 1, 1000000);   // 1001 again: full, never a repeat
    clock_ids(kFirst + 2, 5000000);   // a new second opens
    EXPECT_EQ(repeated, 0u);
    EXPECT_EQ(made, 10000000 + kHotIdsPerSecond + 5000000);
    EXPECT_EQ(full, 10000000 + (18000000 - kHotIdsPerSecond) + 1000000);
}

// The opening draw is kept in 64 bits: 2^32 draws after a second opened
// (ids for given times, or failed calls, while the clock stands behind
// it), its window is still full. Kept in 32 bits, the draw would look 5
// past the opening and repeat the counter of that earlier draw.
TEST(HotGuidGenerator, AWindowStaysFullPast2To32Draws) {
    PlainHotGuidCells cells;
    cells.draws.value = 7000;
    const HotStamp s = web01_stamp(1);
    Uuid16 first, u;
    ASSERT_EQ(make_hot_guid_now(cells, 1000, s, 0, &first), HotStatus::ok);
    cells.draws.value += (1ull << 32) + 4;  // as if 2^32 + 4 draws went to ids for given times
    EXPECT_EQ(make_hot_guid_now(cells, 1000, s, 0, &u), HotStatus::second_full);
    EXPECT_EQ(make_hot_guid_now(cells, 990, s, 0, &u), HotStatus::second_full);
    ASSERT_EQ(make_hot_guid_now(cells, 1001, s, 0, &u), HotStatus::ok);  // the next second opens
}
