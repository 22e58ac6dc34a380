// What a detected MAC address says of its uniqueness (node_id.hpp): the
// server warns unless it is universally administered.
#include <gtest/gtest.h>

#include "node_id.hpp"

using namespace locality;

TEST(ClassifyMac, UniversallyAdministered) {
    const std::uint8_t mac[6] = {0x00, 0x16, 0x3e, 0x12, 0x34, 0x56};
    EXPECT_EQ(classify_mac(mac), MacKind::universal);
    const std::uint8_t intel[6] = {0xa0, 0x99, 0x9b, 0x04, 0x83, 0x37};  // 0xa0: bits 0 and 1 clear
    EXPECT_EQ(classify_mac(intel), MacKind::universal);
}

TEST(ClassifyMac, LocallyAdministered) {
    // Docker's default bridge addresses and the one two clusters shared in the report.
    const std::uint8_t docker[6] = {0x02, 0x42, 0xac, 0x11, 0x00, 0x02};
    const std::uint8_t shared[6] = {0x02, 0xfc, 0x00, 0x00, 0x00, 0x01};
    const std::uint8_t other[6] = {0xfe, 0x54, 0x00, 0x12, 0x34, 0x56};  // 0xfe: bit 1 set, bit 0 clear
    EXPECT_EQ(classify_mac(docker), MacKind::locally_administered);
    EXPECT_EQ(classify_mac(shared), MacKind::locally_administered);
    EXPECT_EQ(classify_mac(other), MacKind::locally_administered);
}

TEST(ClassifyMac, MulticastWinsOverLocal) {
    const std::uint8_t multicast[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0x01};
    const std::uint8_t both[6] = {0x03, 0x00, 0x00, 0x00, 0x00, 0x01};
    EXPECT_EQ(classify_mac(multicast), MacKind::multicast);
    EXPECT_EQ(classify_mac(both), MacKind::multicast);
}

TEST(ClassifyMac, Zero) {
    const std::uint8_t zero[6] = {0, 0, 0, 0, 0, 0};
    EXPECT_EQ(classify_mac(zero), MacKind::zero);
}
