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
    g.cells.variable_start = 3488672514u - kVariableStep;
    const Uuid16 u = g.clock(Mode::variable, 1350327498450);
    EXPECT_EQ(hex(u), "20be0ffc7a7fbd537a50013a65ca76d2");
    EXPECT_EQ(counter(g.clock(Mode::variable, 1350327498450), Mode::variable),
              3488672514u + kVariableStep);
}

TEST(VariableMode, FirstHexDigitChangesOnEveryId) {
    Gen g;
    g.cells.variable_start = 0x12345678;
    Uuid16 prev = g.clock(Mode::variable, 1);
    for (int i = 0; i < 100000; ++i) {
        const Uuid16 next = g.clock(Mode::variable, 1);
        ASSERT_NE(prev.bytes[0] >> 4, next.bytes[0] >> 4) << i;
        prev = next;
    }
}

TEST(VariableMode, CounterWrapsModulo2To32AndVisitsEveryValue) {
    Gen g;
    g.cells.variable_start = 0xFFFFFFFFu - 5;
    EXPECT_EQ(counter(g.clock(Mode::variable, 0), Mode::variable),
              static_cast<std::uint32_t>(0xFFFFFFFFull - 5 + kVariableStep));
}

TEST(VariableMode, CounterRepeatsOnlyAfterExactly2To32Ids) {
    // Walks the whole cycle through the generator's own counter rule: the
    // first repeat of the starting counter is the 2^32-th id.
    const std::uint32_t first = variable_counter(0x12345678u, 0);
    std::uint64_t n = 1;
    while (variable_counter(0x12345678u, n) != first) ++n;
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

TEST(SequentialMode, TheFirstIdOfWindowZeroIsBasePlusOne) {
    Gen g;
    std::uint32_t base = 0;
    ASSERT_TRUE(window_base(0, &base));
    EXPECT_EQ(counter(g.clock(Mode::sequential, 0), Mode::sequential), base + 1);
    EXPECT_EQ(counter(g.clock(Mode::sequential, 599999), Mode::sequential), base + 2);
}

TEST(SequentialMode, ClockSteppingBackContinuesThatWindowsRunWithItsRealTime) {
    Gen g;
    const std::int64_t now = utc_millis(2024, 1, 1, 12, 5, 0, 5);
    const Uuid16 a = g.clock(Mode::sequential, now);
    const Uuid16 b = g.clock(Mode::sequential, now + 1);
    g.clock(Mode::sequential, now + 3600000);                // one id an hour ahead
    const Uuid16 c = g.clock(Mode::sequential, now + 2);     // and back
    // c continues the 12:00 window's run after b, and carries its own time.
    EXPECT_EQ(counter(c, Mode::sequential), counter(b, Mode::sequential) + 1);
    EXPECT_EQ(counter(b, Mode::sequential), counter(a, Mode::sequential) + 1);
    EXPECT_EQ(decode_locality(c).millis, static_cast<std::uint64_t>(now + 2));
    // Stepping back into a window never used starts its run at base + 1.
    const Uuid16 d = g.clock(Mode::sequential, now - 1800000);
    std::uint32_t base = 0;
    ASSERT_TRUE(window_base(window_of(static_cast<std::uint64_t>(now - 1800000)), &base));
    EXPECT_EQ(counter(d, Mode::sequential), base + 1);
}

TEST(SequentialMode, AWindow64OrMoreBehindTheNewestRunIsRefused) {
    Gen g;
    const std::int64_t now = utc_millis(2024, 1, 1, 12, 0);
    g.clock(Mode::sequential, now);
    g.clock(Mode::sequential, now + 64 * kWindowMillis);     // takes the same slot
    Uuid16 u{};
    EXPECT_EQ(make_clock_id(g.cells, g.bases, Mode::sequential, now, kStamp, &u), GenStatus::window_too_old);
    // 63 windows back is still held.
    g.clock(Mode::sequential, now + kWindowMillis);
    EXPECT_EQ(make_clock_id(g.cells, g.bases, Mode::sequential, now + kWindowMillis, kStamp, &u), GenStatus::ok);
}

TEST(SequentialMode, AWindowHolds2To31IdsThenRefuses) {
    Gen g;
    const std::int64_t now = utc_millis(2024, 1, 1, 12, 0);
    g.cells.runs[window_of(now) % kRunSlots].value =
        ((static_cast<std::uint64_t>(window_of(now)) + 1) << 32) | (kRunIds - 1);
    Uuid16 u{};
    ASSERT_EQ(make_clock_id(g.cells, g.bases, Mode::sequential, now, kStamp, &u), GenStatus::ok);
    std::uint32_t base = 0;
    ASSERT_TRUE(window_base(window_of(now), &base));
    EXPECT_EQ(counter(u, Mode::sequential), base + kRunIds);  // the last offset, 2^31
    EXPECT_EQ(make_clock_id(g.cells, g.bases, Mode::sequential, now, kStamp, &u), GenStatus::window_full);
    EXPECT_EQ(make_clock_id(g.cells, g.bases, Mode::sequential, now, kStamp, &u), GenStatus::window_full);
}

TEST(SequentialMode, NoIdCarriesATimeLaterThanTheClock) {
    // Clock forward one hour for one id, then back: every id's time is the
    // clock reading it was made with.
    Gen g;
    const std::int64_t t0 = utc_millis(2024, 1, 1, 11, 55);
    for (std::int64_t step = 0; step < 1000; ++step) {
        const std::int64_t now = step == 500 ? t0 + 3600000 : t0 + step;
        EXPECT_EQ(decode_locality(g.clock(Mode::sequential, now)).millis, static_cast<std::uint64_t>(now));
    }
}

TEST(Reservation, EveryDrawPassesThePolicyAndARefusalIssuesNoId) {
    Gen g;
    std::vector<Draw> seen;
    auto record = [&](const Draw &d) { seen.push_back(d); return d.position != 2; };
    Uuid16 u{};
    const std::int64_t now = utc_millis(2024, 1, 1, 12, 0);
    EXPECT_EQ(make_clock_id(g.cells, g.bases, Mode::variable, now, kStamp, &u, record), GenStatus::ok);
    EXPECT_EQ(make_clock_id(g.cells, g.bases, Mode::sequential, now, kStamp, &u, record), GenStatus::ok);
    EXPECT_EQ(make_id_at(g.cells, g.bases, Mode::sequential, now, kStamp, &u, record), GenStatus::ok);
    EXPECT_EQ(make_id_at(g.cells, g.bases, Mode::variable, now, kStamp, &u, record), GenStatus::ok);
    EXPECT_EQ(make_id_at(g.cells, g.bases, Mode::variable, now, kStamp, &u, record), GenStatus::not_reserved);
    ASSERT_EQ(seen.size(), 5u);
    EXPECT_EQ(seen[0].counter, Counter::variable);
    EXPECT_EQ(seen[1].counter, Counter::run);
    EXPECT_EQ(seen[1].window, window_of(static_cast<std::uint64_t>(now)));
    EXPECT_EQ(seen[1].slot, window_of(static_cast<std::uint64_t>(now)) % kRunSlots);
    EXPECT_EQ(seen[2].counter, Counter::explicit_sequential);
    EXPECT_EQ(seen[3].position, 1u);  // the variable counter's second draw
    EXPECT_EQ(seen[4].position, 2u);
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
    g.cells.variable_start = 7;
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
    // counter may equal a sequential one (doc/guarantees.md).
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

TEST(Handover, VariableDrawOfACounterContinuesItsSequence) {
    // The draw that makes a counter, for any start: the next draw makes the
    // counter one step on, so one generator continues another's sequence.
    for (std::uint32_t start : {0u, 1u, 0x12345678u, 0xFFFFFFFFu}) {
        for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{123456789}, std::uint64_t{0xFFFFFFFF}}) {
            const std::uint32_t c = variable_counter(start, n);
            EXPECT_EQ(variable_draw_of(start, c), static_cast<std::uint32_t>(n));
            EXPECT_EQ(variable_counter(start, variable_draw_of(start, c) + 1), c + kVariableStep);
        }
    }
    // Across starts: the draw of another start's counter.
    EXPECT_EQ(variable_counter(7u, variable_draw_of(7u, variable_counter(99u, 5))), variable_counter(99u, 5));
}

TEST(Handover, NextDrawWithLowBitsNeverGoesBack) {
    EXPECT_EQ(next_draw_with(100, 100, 24), 100u);
    EXPECT_EQ(next_draw_with(100, 101, 24), 101u);
    EXPECT_EQ(next_draw_with(100, 99, 24), 99u + (1u << 24));
    EXPECT_EQ(next_draw_with((5ull << 31) + 7, 3, 31), (6ull << 31) + 3);
    EXPECT_EQ(next_draw_with(0xFFFFFFFFull, 0, 32), 0x100000000ull);
}

TEST(SequentialMode, RunsStartAtTheCellsRunStart) {
    // A server's own run start (below 2^24): the first id of each window's
    // run is base + 1 + start, the next ones count up from there.
    Gen g;
    g.cells.run_start = 1000;
    const std::int64_t t = 1367111040038;  // 2013-04-28 01:04:00.038 UTC
    const std::uint32_t base = 0xf5166775u;
    EXPECT_EQ(counter(g.clock(Mode::sequential, t), Mode::sequential), base + 1 + 1000);
    EXPECT_EQ(counter(g.clock(Mode::sequential, t), Mode::sequential), base + 1 + 1001);
    const std::uint32_t next_window = counter(g.clock(Mode::sequential, t + 600000), Mode::sequential);
    WindowBaseCache bases;
    std::uint32_t next_base = 0;
    ASSERT_TRUE(bases.get(window_of(static_cast<std::uint64_t>(t + 600000)), &next_base));
    EXPECT_EQ(next_window, next_base + 1 + 1000);
    // Only its low 24 bits count: a run keeps 2^31 - 2^24 places at least.
    Gen h;
    h.cells.run_start = 0xFF000005u;
    EXPECT_EQ(counter(h.clock(Mode::sequential, t), Mode::sequential), base + 1 + 5);
}
