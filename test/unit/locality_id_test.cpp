// Layout of the Locality UUID: the reference example, field by field.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "generator.hpp"
#include "locality_id.hpp"

using namespace locality;

namespace {

Uuid16 parse(const char *text) {
    Uuid16 u{};
    int n = 0;
    for (const char *p = text; *p; ++p) {
        if (*p == '-') continue;
        unsigned v;
        std::sscanf(p, "%1x", &v);
        u.bytes[n / 2] = static_cast<std::uint8_t>((u.bytes[n / 2] << 4) | v);
        ++n;
    }
    EXPECT_EQ(n, 32);
    return u;
}

std::string text(const Uuid16 &u) {
    char buf[40];
    std::snprintf(buf, sizeof buf,
                  "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                  u.bytes[0], u.bytes[1], u.bytes[2], u.bytes[3], u.bytes[4], u.bytes[5],
                  u.bytes[6], u.bytes[7], u.bytes[8], u.bytes[9], u.bytes[10], u.bytes[11],
                  u.bytes[12], u.bytes[13], u.bytes[14], u.bytes[15]);
    return buf;
}

}  // namespace

TEST(NibbleReverse, ReadsHexDigitsBackwards) {
    EXPECT_EQ(nibble_reverse(0xcff0eb02u), 0x20be0ffcu);
    EXPECT_EQ(nibble_reverse(0x20be0ffcu), 0xcff0eb02u);
    EXPECT_EQ(nibble_reverse(0x00000001u), 0x10000000u);
    EXPECT_EQ(nibble_reverse(0x12345678u), 0x87654321u);
    EXPECT_EQ(nibble_reverse(0u), 0u);
    EXPECT_EQ(nibble_reverse(0xFFFFFFFFu), 0xFFFFFFFFu);
}

TEST(LocalityLayout, DecodesTheReferenceExample) {
    const Uuid16 u = parse("20be0ffc-314a-bd53-7a50-013a65ca76d2");
    ASSERT_TRUE(is_locality(u));
    const LocalityFields f = decode_locality(u);
    EXPECT_EQ(counter_of(f, Mode::variable), 3488672514u);
    EXPECT_EQ(f.pid, 12618);
    EXPECT_EQ(f.node, 0xd537a50u);
    EXPECT_EQ(f.millis, 1350327498450ull);
    std::uint8_t mac[6];
    mac_from_node(f.node, mac);
    EXPECT_EQ(mac[0], 0);
    EXPECT_EQ(mac[1], 0);
    EXPECT_EQ(mac[2], 0x0d);
    EXPECT_EQ(mac[3], 0x53);
    EXPECT_EQ(mac[4], 0x7a);
    EXPECT_EQ(mac[5], 0x50);
}

TEST(LocalityLayout, EncodesTheReferenceExample) {
    const LocalityFields f{nibble_reverse(3488672514u), 12618, 0xd537a50u, 1350327498450ull};
    EXPECT_EQ(text(encode_locality(f)), "20be0ffc-314a-bd53-7a50-013a65ca76d2");
}

TEST(LocalityLayout, SequentialReferenceIdReadsAsWritten) {
    const LocalityFields f = decode_locality(parse("f5166777-7a7f-bd53-7a50-013e4e2afc26"));
    EXPECT_EQ(counter_of(f, Mode::sequential), 0xf5166777u);
    EXPECT_EQ(f.pid, 0x7a7f);
    EXPECT_EQ(f.millis, 0x013e4e2afc26ull);
}

TEST(LocalityLayout, RoundTripsExtremeFields) {
    for (const LocalityFields f : {LocalityFields{0, 0, 0, 0},
                                   LocalityFields{0xFFFFFFFF, 0xFFFF, kNodeMask, kMaxMillis},
                                   LocalityFields{0x80000001, 0x8000, 0x8000001, 1ull << 47}}) {
        const Uuid16 u = encode_locality(f);
        EXPECT_TRUE(is_locality(u));
        const LocalityFields g = decode_locality(u);
        EXPECT_EQ(g.counter_written, f.counter_written);
        EXPECT_EQ(g.pid, f.pid);
        EXPECT_EQ(g.node, f.node);
        EXPECT_EQ(g.millis, f.millis);
    }
}

TEST(LocalityLayout, NodeIsTheLast28BitsOfTheMac) {
    const std::uint8_t mac[6] = {0xc8, 0x2a, 0x14, 0xff, 0xfe, 0x86};
    EXPECT_EQ(node_from_mac(mac), 0x4fffe86u);
    const Uuid16 u = encode_locality({0, 0, node_from_mac(mac), 0});
    EXPECT_EQ(u.bytes[6], 0xB4);
    EXPECT_EQ(u.bytes[7], 0xff);
    EXPECT_EQ(u.bytes[8], 0xfe);
    EXPECT_EQ(u.bytes[9], 0x86);
}

TEST(LocalityLayout, OtherVersionsAreNotLocalityIds) {
    EXPECT_FALSE(is_locality(parse("6b54058a-a413-11e6-b501-a0999b048337")));
    EXPECT_FALSE(is_locality(parse("00000000-0000-0000-0000-000000000000")));
    EXPECT_FALSE(is_locality(parse("8d6d1986-5ab8-41eb-8e9f-3ae007836a71")));
}

// The byte order of the 64-bit halves, checked as bytes in memory: a
// helper that swaps on a big-endian machine (or forgets to swap on a
// little-endian one) fails here whatever the other direction does.
TEST(ByteOrder, HalvesAreStoredBigEndianOnEveryMachine) {
    Uuid16 u{};
    store_be64(u, 0, 0x0102030405060708ull);
    store_be64(u, 8, 0xF1F2F3F4F5F6F7F8ull);
    EXPECT_EQ(text(u), "01020304-0506-0708-f1f2-f3f4f5f6f7f8");
    EXPECT_EQ(load_be64(u, 0), 0x0102030405060708ull);
    EXPECT_EQ(load_be64(u, 8), 0xF1F2F3F4F5F6F7F8ull);
    EXPECT_EQ(load_be64(u, 0), get_be(u, 0, 8));
    EXPECT_EQ(load_be64(u, 8), get_be(u, 8, 8));
    // What the compiler says the byte order is, as this machine lays out
    // an integer: the compile-time branch follows the real order.
    const std::uint32_t one = 1;
    std::uint8_t first;
    std::memcpy(&first, &one, 1);
    EXPECT_EQ(first == 1, __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);
}

// The original library's published run of variable-mode ids (same
// process, node and millisecond): every one decodes to the same fields,
// its counter one prime step after the previous one, and encodes back to
// the same text. Java forced hex digit 7 (counter bits 24-27) to 'f' on
// these ids (README, Compatibility), so the step shows in the low 24 bits.
TEST(LocalityLayout, VariableReferenceRunDecodesAndEncodesExactly) {
    const char *const run[] = {"c8c9cef9-7a7f-bd53-7a50-013e4e2afbde", "14951cfa-7a7f-bd53-7a50-013e4e2afbde",
                               "6f5169fb-7a7f-bd53-7a50-013e4e2afbde", "ba2da6fc-7a7f-bd53-7a50-013e4e2afbde",
                               "06f8f3fc-7a7f-bd53-7a50-013e4e2afbde", "51c441fd-7a7f-bd53-7a50-013e4e2afbde",
                               "ac809efe-7a7f-bd53-7a50-013e4e2afbde", "f75cdbff-7a7f-bd53-7a50-013e4e2afbde"};
    std::uint32_t previous = 0;
    for (int i = 0; i < 8; ++i) {
        const LocalityFields f = decode_locality(parse(run[i]));
        EXPECT_EQ(f.pid, 0x7a7f) << run[i];
        EXPECT_EQ(f.node, 0xd537a50u) << run[i];
        EXPECT_EQ(f.millis, 0x013e4e2afbdeull) << run[i];
        const std::uint32_t counter = counter_of(f, Mode::variable);
        EXPECT_EQ(counter & 0x0F000000u, 0x0F000000u) << run[i];
        if (i > 0) {
            EXPECT_EQ((counter - previous) & 0x00FFFFFFu, kVariableStep & 0x00FFFFFFu) << run[i];
        }
        previous = counter;
        EXPECT_EQ(text(encode_locality(f)), run[i]);
    }
    EXPECT_EQ(previous, 0xffbdc57fu);  // f75cdbff read back to front
}
