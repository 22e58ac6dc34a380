// RFC 4122 version-1 tick arithmetic, checked against an independent route:
// ticks built from the calendar (days since 1582-10-15, then seconds, then
// microseconds) and the UUID text built field by field as RFC 4122 section
// 4.1.2 lays it out (the way Python's uuid.UUID(fields=...) does).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>

#include "civil_time.hpp"
#include "test_support.hpp"
#include "uuid_v1.hpp"

using namespace locality;
using namespace locality_test;

namespace {
const std::uint8_t kMac[6] = {0x44, 0x88, 0x99, 0x36, 0x57, 0x32};

// Every v1 time is on or after 1582-10-15 and below 2^60 ticks (about
// 1.15e18), so unsigned 64-bit arithmetic holds it on every target (no
// __int128, which 32-bit targets lack).
std::uint64_t calendar_ticks(std::int64_t unix_micros) {
    const std::int64_t gregorian_day0 = days_from_civil(1582, 10, 15);
    const std::int64_t secs = floor_div(unix_micros, 1000000);
    const std::int64_t micros = unix_micros - secs * 1000000;
    const std::int64_t days = floor_div(secs, 86400);
    const std::int64_t sec_of_day = secs - days * 86400;
    const auto total_secs = static_cast<std::uint64_t>(days - gregorian_day0) * 86400 +
                            static_cast<std::uint64_t>(sec_of_day);
    return total_secs * 10000000 + static_cast<std::uint64_t>(micros) * 10;
}

std::string rfc_fields_text(std::uint64_t ticks, unsigned clock_seq, const std::uint8_t mac[6]) {
    const auto t = static_cast<unsigned long long>(ticks);
    const unsigned long long time_low = t & 0xffffffffull;
    const unsigned long long time_mid = (t >> 32) & 0xffff;
    const unsigned long long time_hi_version = ((t >> 48) & 0x0fff) | (1 << 12);
    const unsigned clock_seq_hi_variant = ((clock_seq >> 8) & 0x3f) | 0x80;
    const unsigned clock_seq_low = clock_seq & 0xff;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%08llx%04llx%04llx%02x%02x%02x%02x%02x%02x%02x%02x", time_low,
                  time_mid, time_hi_version, clock_seq_hi_variant, clock_seq_low, mac[0], mac[1],
                  mac[2], mac[3], mac[4], mac[5]);
    return buf;
}
}  // namespace

TEST(UuidV1, KnownVectors) {
    Uuid16 u{};
    // 1970-01-01 00:00 UTC: ticks 0x01b21dd213814000
    ASSERT_EQ(form_v1(0, 666, kMac, &u), V1Status::ok);
    EXPECT_EQ(hex(u), "138140001dd211b2829a448899365732");
    // The Gregorian epoch itself: all time bits zero.
    ASSERT_EQ(form_v1(kMinV1UnixMicros, 0, kMac, &u), V1Status::ok);
    EXPECT_EQ(hex(u), "00000000000010008000448899365732");
    // The last representable microsecond.
    ASSERT_EQ(form_v1(kMaxV1UnixMicros, 16383, kMac, &u), V1Status::ok);
    EXPECT_EQ(hex(u), "fffffffaffff1fffbfff448899365732");
}

TEST(UuidV1, RejectsOutOfRangeInput) {
    Uuid16 u{};
    EXPECT_EQ(form_v1(0, -1, kMac, &u), V1Status::clock_seq_out_of_range);
    EXPECT_EQ(form_v1(0, 16384, kMac, &u), V1Status::clock_seq_out_of_range);
    EXPECT_EQ(form_v1(0, 2147483647, kMac, &u), V1Status::clock_seq_out_of_range);
    EXPECT_EQ(form_v1(kMinV1UnixMicros - 1, 0, kMac, &u), V1Status::before_gregorian);
    EXPECT_EQ(form_v1(kMaxV1UnixMicros + 1, 0, kMac, &u), V1Status::after_limit);
    EXPECT_EQ(form_v1_nth(0, -1, kMac, &u), V1Status::ordinal_out_of_range);
    EXPECT_EQ(form_v1_nth(0, kV1OrdinalsPerMicro, kMac, &u), V1Status::ordinal_out_of_range);
    // The last microsecond has ticks ...970 to ...975: only 6 sub-ticks fit 60 bits.
    EXPECT_EQ(form_v1_nth(kMaxV1UnixMicros, 5 * 16384, kMac, &u), V1Status::ok);
    EXPECT_EQ(form_v1_nth(kMaxV1UnixMicros, 6 * 16384, kMac, &u), V1Status::after_limit);
}

TEST(UuidV1, LimitIsTheYear5236) {
    const CivilTime t = civil_from_millis(floor_div(kMaxV1UnixMicros, 1000));
    EXPECT_EQ(t.year, 5236);
    EXPECT_EQ(t.month, 3);
    EXPECT_EQ(t.day, 31);
}

TEST(UuidV1, RandomTimesMatchTheCalendarFormulaAndRoundTrip) {
    std::mt19937_64 rng(20261122);
    std::uniform_int_distribution<std::int64_t> micros(kMinV1UnixMicros, kMaxV1UnixMicros);
    for (int i = 0; i < 500000; ++i) {
        const std::int64_t us = micros(rng);
        const unsigned cs = static_cast<unsigned>(rng() % 16384);
        std::uint8_t mac[6];
        for (auto &b : mac) b = static_cast<std::uint8_t>(rng());
        Uuid16 u{};
        ASSERT_EQ(form_v1(us, cs, mac, &u), V1Status::ok);
        const std::uint64_t expected_ticks = calendar_ticks(us);
        ASSERT_EQ(hex(u), rfc_fields_text(expected_ticks, cs, mac)) << us;
        ASSERT_TRUE(is_rfc_v1(u));
        ASSERT_EQ(v1_ticks(u), expected_ticks);
        ASSERT_EQ(unix_micros_from_v1_ticks(v1_ticks(u)), us);
        ASSERT_EQ(v1_clock_seq(u), cs);
    }
}

TEST(UuidV1, ExtractTruncatesSubMicrosecondTicksTowardThePast) {
    const std::uint64_t ticks = calendar_ticks(1) + 9;  // 1970-01-01 00:00:00.0000019
    EXPECT_EQ(unix_micros_from_v1_ticks(ticks), 1);
    EXPECT_EQ(unix_micros_from_v1_ticks(calendar_ticks(-1) + 9), -1);
}

TEST(UuidV1, NthGivesDistinctIdsThatReadBackAsTheSameMicrosecond) {
    std::vector<IdKey> ids;
    for (std::int64_t n = 0; n < kV1OrdinalsPerMicro; ++n) {
        Uuid16 u{};
        ASSERT_EQ(form_v1_nth(1700000000123456, n, kMac, &u), V1Status::ok);
        ASSERT_EQ(unix_micros_from_v1_ticks(v1_ticks(u)), 1700000000123456);
        if (n < 16384) {
            Uuid16 plain{};
            form_v1(1700000000123456, n, kMac, &plain);
            ASSERT_EQ(hex(u), hex(plain));
        }
        ids.push_back(key_of(u));
    }
    std::sort(ids.begin(), ids.end());
    EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
}

TEST(UuidV1, VariantAndVersionChecks) {
    Uuid16 u{};
    form_v1(0, 0, kMac, &u);
    EXPECT_TRUE(is_rfc_v1(u));
    u.bytes[8] = static_cast<std::uint8_t>((u.bytes[8] & 0x3F) | 0xC0);  // Microsoft variant
    EXPECT_FALSE(is_rfc_v1(u));
    form_v1(0, 0, kMac, &u);
    u.bytes[6] = static_cast<std::uint8_t>((u.bytes[6] & 0x0F) | 0x40);  // version 4
    EXPECT_FALSE(is_rfc_v1(u));
}
