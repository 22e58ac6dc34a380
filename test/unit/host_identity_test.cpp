// The host identity of a binding (src/core/host_identity.hpp): the first
// line of a file, trimmed, and its digest.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "host_identity.hpp"

namespace {

std::string temp_file(const char *content) {
    char path[] = "/tmp/host_identity_testXXXXXX";
    const int fd = mkstemp(path);
    EXPECT_GE(fd, 0);
    std::FILE *f = fdopen(fd, "w");
    std::fputs(content, f);
    std::fclose(f);
    return path;
}

}  // namespace

TEST(HostIdentity, FirstLineTrimmed) {
    const std::string path = temp_file("  \t4c4c4544-0042-3510-8052-b4c04f564433 \r\nsecond line\n");
    char out[64];
    ASSERT_TRUE(locality::read_first_line(path.c_str(), out, sizeof out));
    EXPECT_STREQ(out, "4c4c4544-0042-3510-8052-b4c04f564433");
    std::remove(path.c_str());
}

TEST(HostIdentity, EmptyOrMissingIsNoIdentity) {
    const std::string path = temp_file(" \n");
    char out[64];
    EXPECT_FALSE(locality::read_first_line(path.c_str(), out, sizeof out));
    std::remove(path.c_str());
    EXPECT_FALSE(locality::read_first_line("/nonexistent/host-id", out, sizeof out));
    EXPECT_FALSE(locality::read_first_line(path.c_str(), out, 0));
}

TEST(HostIdentity, LongLineIsCutToTheBuffer) {
    const std::string path = temp_file("abcdefghijklmnop\n");
    char out[8];
    ASSERT_TRUE(locality::read_first_line(path.c_str(), out, sizeof out));
    EXPECT_STREQ(out, "abcdefg");
    std::remove(path.c_str());
}

TEST(HostIdentity, DigestIsTheMd5InHex) {
    char out[33];
    ASSERT_TRUE(locality::identity_digest("abc", 3, out));
    EXPECT_STREQ(out, "900150983cd24fb0d6963f7d28e17f72");  // RFC 1321's test suite
    ASSERT_TRUE(locality::identity_digest("", 0, out));
    EXPECT_STREQ(out, "d41d8cd98f00b204e9800998ecf8427e");
}
