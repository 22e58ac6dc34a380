// Counter rules of both modes, with an injected clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "generator.hpp"
#include "test_support.hpp"

using namespace locality;
using namespace locality_test;

namespace {
const Stamp kStamp{0x7a7f, 0xd537a50};

struct Gen {
    PlainCounters cells;
    WindowBaseCache bases;
    Uuid16 clock(Mode m, std::int64_t now) {
        Uuid16 u{};
        EXPECT_EQ(make_clock_id(cells, bases, m, now, kStamp, &u), GenStatus::ok);
        return u;
    }
    Uuid16 at(Mode m, std::int64_t t) {
        Uuid16 u{};
        EXPECT_EQ(make_id_at(cells, bases, m, t, kStamp, &u), GenStatus::ok);
        return u;
    }
};

std::uint32_t counter(const Uuid16 &u, Mode m) { return counter_of(decode_locality(u), m); }
}  // namespace

TEST(VariableMode, AdvancesByThePrimeAndStoresReversed) {
    Gen g;
    g.cells.variable.value = 3488672514u - kVariableStep;
    const Uuid16 u = g.clock(Mode::variable, 1350327498450);
    EXPECT_EQ(hex(u), "20be0ffc7a7fbd537a50013a65ca76d2");
    EXPECT_EQ(counter(g.clock(Mode::variable, 1350327498450), Mode::variable),
              3488672514u + kVariableStep);
}

TEST(VariableMode, FirstHexDigitChangesOnEveryId) {
    Gen g;
    g.cells.variable.value = 0x12345678;
    Uuid16 prev = g.clock(Mode::variable, 1);
    for (int i = 0; i < 100000; ++i) {
        const Uuid16 next = g.clock(Mode::variable, 1);
        ASSERT_NE(prev.bytes[0] >> 4, next.bytes[0] >> 4) << i;
        prev = next;
    }
}

TEST(VariableMode, CounterWrapsModulo2To32AndVisitsEveryValue) {
    Gen g;
    g.cells.variable.value = 0xFFFFFFFFu - 5;
    EXPECT_EQ(counter(g.clock(Mode::variable, 0), Mode::variable),
              static_cast<std::uint32_t>(0xFFFFFFFFull - 5 + kVariableStep));
}

TEST(VariableMode, CounterRepeatsOnlyAfterExactly2To32Ids) {
    // Walks the whole cycle through the generator's own counter rule: the
    // first repeat of the starting counter is the 2^32-th id.
    PlainCell32 cell;
    cell.value = 0x12345678u;
    const std::uint32_t start = next_variable_counter(cell);
    std::uint64_t n = 1;
    while (next_variable_counter(cell) != start) ++n;
    EXPECT_EQ(n, 1ull << 32);
}

TEST(SequentialMode, StartsAtWindowBasePlusOneAndCountsUp) {
    Gen g;
    const std::int64_t t = utc_millis(2013, 4, 28, 1, 4, 0, 38);  // 0x013e4e2afc26
    EXPECT_EQ(hex(g.clock(Mode::sequential, t)), "f51667767a7fbd537a50013e4e2afc26");
    EXPECT_EQ(hex(g.clock(Mode::sequential, t)), "f51667777a7fbd537a50013e4e2afc26");
    for (std::uint32_t i = 3; i < 1000; ++i)
        ASSERT_EQ(counter(g.clock(Mode::sequential, t + i), Mode::sequential), 0xf5166775u + i);
}

TEST(SequentialMode, RebasesWhenTheWindowRollsOver) {
    Gen g;
    const std::int64_t last = utc_millis(2013, 4, 28, 1, 9, 59, 999);
    g.clock(Mode::sequential, last);
    g.clock(Mode::sequential, last);
    const Uuid16 next = g.clock(Mode::sequential, last + 1);  // 01:10:00.000
    std::uint32_t base = 0;
    ASSERT_TRUE(window_base(window_of(last + 1), &base));
    EXPECT_EQ(counter(next, Mode::sequential), base + 1);
    EXPECT_EQ(decode_locality(next).millis, static_cast<std::uint64_t>(last + 1));
}

TEST(SequentialMode, ClockSteppingBackKeepsTheNewestRunAndClampsTime) {
    Gen g;
    const std::int64_t later = utc_millis(2024, 1, 1, 12, 10, 0, 5);
    const Uuid16 a = g.clock(Mode::sequential, later);
    const Uuid16 b = g.clock(Mode::sequential, later - 3600000);  // clock stepped back 1 h
    EXPECT_EQ(counter(b, Mode::sequential), counter(a, Mode::sequential) + 1);
    EXPECT_EQ(decode_locality(b).millis, window_start_millis(window_of(later)));
}

TEST(SequentialMode, ClockSteppingBackNeverRepeatsAnId) {
    // A clock that runs forward, jumps back across windows, and runs again.
    Gen g;
    std::vector<IdKey> ids;
    const std::int64_t t0 = utc_millis(2024, 1, 1, 11, 55);
    for (std::int64_t pass = 0; pass < 3; ++pass)
        for (std::int64_t step = 0; step < 20000; ++step)
            for (Mode m : {Mode::sequential, Mode::variable})
                ids.push_back(key_of(g.clock(m, t0 + step * 50)));  // 0..1000 s, 2 windows
    std::sort(ids.begin(), ids.end());
    EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
}

TEST(ExplicitTime, VariableSharesTheClockCounter) {
    Gen g;
    g.cells.variable.value = 7;
    const Uuid16 a = g.clock(Mode::variable, 1000);
    const Uuid16 b = g.at(Mode::variable, 5);
    EXPECT_EQ(counter(b, Mode::variable), counter(a, Mode::variable) + kVariableStep);
    EXPECT_EQ(decode_locality(b).millis, 5u);
}

TEST(ExplicitTime, SequentialUsesTheWindowOfTheGivenTimeInTheUpperHalf) {
    Gen g;
    const std::int64_t t = utc_millis(2013, 4, 28, 1, 3, 27, 270);
    EXPECT_EQ(counter(g.at(Mode::sequential, t), Mode::sequential), 0xf5166775u + 0x80000001u);
    EXPECT_EQ(counter(g.at(Mode::sequential, t), Mode::sequential), 0xf5166775u + 0x80000002u);
    // clock ids of the same window stay in the lower half
    EXPECT_EQ(counter(g.clock(Mode::sequential, t), Mode::sequential), 0xf5166776u);
}

TEST(ExplicitTime, ManyRowsSharingOneMillisecondGetDistinctIdsWithinAMode) {
    // Uniqueness is per mode: the id has no mode bit, so a reversed variable
    // counter may equal a sequential one (README, "Guarantees").
    Gen g;
    std::vector<IdKey> sequential, variable;
    for (int i = 0; i < 200000; ++i) {
        sequential.push_back(key_of(g.at(Mode::sequential, 1700000000000)));
        sequential.push_back(key_of(g.clock(Mode::sequential, 1700000000000)));
        variable.push_back(key_of(g.at(Mode::variable, 1700000000000)));
        variable.push_back(key_of(g.clock(Mode::variable, 1700000000000)));
    }
    for (auto *ids : {&sequential, &variable}) {
        std::sort(ids->begin(), ids->end());
        EXPECT_EQ(std::adjacent_find(ids->begin(), ids->end()), ids->end());
    }
}

TEST(Generator, RejectsTimesOutsideThe48BitField) {
    Gen g;
    Uuid16 u{};
    for (Mode m : {Mode::variable, Mode::sequential}) {
        EXPECT_EQ(make_clock_id(g.cells, g.bases, m, -1, kStamp, &u), GenStatus::time_out_of_range);
        EXPECT_EQ(make_id_at(g.cells, g.bases, m, 1LL << 48, kStamp, &u), GenStatus::time_out_of_range);
        EXPECT_EQ(make_id_at(g.cells, g.bases, m, (1LL << 48) - 1, kStamp, &u), GenStatus::ok);
        EXPECT_EQ(make_id_at(g.cells, g.bases, m, 0, kStamp, &u), GenStatus::ok);
    }
}
