// Sequential mode's window base: key text, MD5 value and calendar arithmetic.
#include <gtest/gtest.h>

#include <cstring>
#include <ctime>
#include <random>

#include "civil_time.hpp"
#include "window_base.hpp"

using namespace locality;

namespace {
std::uint32_t window_at(int y, int mo, int d, int h, int mi) {
    return window_of(static_cast<std::uint64_t>(millis_from_civil({y, mo, d, h, mi, 0, 0})));
}
std::uint32_t base_of(std::uint32_t w) {
    std::uint32_t b = 0;
    EXPECT_TRUE(window_base(w, &b));
    return b;
}
}  // namespace

TEST(WindowKey, IsTheFirstElevenCharactersOfTheUtcTime) {
    char key[24];
    EXPECT_EQ(window_key(window_at(2013, 4, 28, 1, 3), key), 11);
    EXPECT_STREQ(key, "20130428010");
    window_key(window_at(2012, 10, 15, 18, 58), key);
    EXPECT_STREQ(key, "20121015185");
    window_key(0, key);
    EXPECT_STREQ(key, "19700101000");
    window_key(window_at(2026, 12, 31, 23, 59), key);
    EXPECT_STREQ(key, "20261231235");
}

TEST(WindowBase, MatchesTheReferenceExample) {
    // f5166777-... was made in window 20130428010: base 0xf5166775.
    EXPECT_EQ(base_of(window_at(2013, 4, 28, 1, 3)), 0xf5166775u);
}

TEST(WindowBase, MatchesIndependentlyComputedDigests) {
    // Python: struct.unpack('<I', hashlib.md5(key).digest()[:4])
    EXPECT_EQ(base_of(window_at(2012, 10, 15, 18, 58)), 0x01b8543fu);  // "20121015185"
    EXPECT_EQ(base_of(0), 0x2d567b87u);                                // "19700101000"
}

TEST(WindowBase, EveryMinuteOfAWindowSharesTheBase) {
    const std::uint32_t w = window_at(2013, 4, 28, 1, 0);
    for (int minute = 0; minute < 10; ++minute)
        EXPECT_EQ(window_at(2013, 4, 28, 1, minute), w);
    EXPECT_EQ(window_at(2013, 4, 28, 1, 10), w + 1);
    EXPECT_NE(base_of(w), base_of(w + 1));
}

TEST(WindowBaseCache, KeepsManyWindowsAndEvictsBySlot) {
    WindowBaseCache cache;
    const std::uint32_t w0 = window_at(2020, 1, 1, 0, 0);
    std::uint32_t b;
    for (std::uint32_t i = 0; i < 200; ++i) {  // alternating windows, then slot collisions
        const std::uint32_t w = w0 + (i * 7) % 100;
        ASSERT_TRUE(cache.get(w, &b));
        ASSERT_EQ(b, base_of(w)) << w;
    }
}

TEST(WindowBaseCache, ComputesOncePerWindow) {
    WindowBaseCache cache;
    std::uint32_t a, b;
    const std::uint32_t w = window_at(2013, 4, 28, 1, 3);
    ASSERT_TRUE(cache.get(w, &a));
    EXPECT_EQ(a, 0xf5166775u);
    ASSERT_TRUE(cache.get(w + 1, &b));
    EXPECT_EQ(b, base_of(w + 1));
    ASSERT_TRUE(cache.get(w, &a));
    EXPECT_EQ(a, 0xf5166775u);
}

TEST(CivilTime, AgreesWithTheCLibraryOverRandomTimes) {
    std::mt19937_64 rng(42);
    // 1582..9999; where time_t has 32 bits (i386 before Debian trixie), the
    // C library's oracle reaches only 1901..2038, so the test stays there.
    constexpr bool wide_time_t = sizeof(time_t) >= 8;
    std::uniform_int_distribution<std::int64_t> secs(wide_time_t ? -12219292800LL : -2147483648LL,
                                                     wide_time_t ? 253402300799LL : 2147483647LL);
    for (int i = 0; i < 200000; ++i) {
        const std::int64_t s = secs(rng);
        const std::int64_t ms = s * 1000 + static_cast<std::int64_t>(rng() % 1000);
        const time_t t = static_cast<time_t>(s);
        struct tm g;
        ASSERT_NE(gmtime_r(&t, &g), nullptr);
        const CivilTime c = civil_from_millis(ms);
        ASSERT_EQ(c.year, g.tm_year + 1900LL) << s;
        ASSERT_EQ(c.month, g.tm_mon + 1) << s;
        ASSERT_EQ(c.day, g.tm_mday) << s;
        ASSERT_EQ(c.hour, g.tm_hour) << s;
        ASSERT_EQ(c.minute, g.tm_min) << s;
        ASSERT_EQ(c.second, g.tm_sec) << s;
        ASSERT_EQ(millis_from_civil(c), ms);
    }
}
