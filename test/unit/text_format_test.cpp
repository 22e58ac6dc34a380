// The CLI's text forms: UUIDs as PostgreSQL and .NET write them.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "text_format.hpp"

using namespace locality;

namespace {

// The canonical text of `text` parsed, or "" when it does not parse.
std::string reparsed(const char *text) {
    Uuid16 u{};
    if (!parse_uuid(text, std::strlen(text), &u)) return "";
    char out[37];
    format_uuid(u, out);
    return out;
}

const char kReference[] = "20be0ffc-314a-bd53-7a50-013a65ca76d2";

}  // namespace

TEST(ParseUuid, ReadsEveryFormPostgresAndDotNetWrite) {
    EXPECT_EQ(reparsed("20be0ffc-314a-bd53-7a50-013a65ca76d2"), kReference);
    EXPECT_EQ(reparsed("20BE0FFC-314A-BD53-7A50-013A65CA76D2"), kReference);
    EXPECT_EQ(reparsed("20be0ffc314abd537a50013a65ca76d2"), kReference);
    EXPECT_EQ(reparsed("{20be0ffc-314a-bd53-7a50-013a65ca76d2}"), kReference);  // .NET "B"
    EXPECT_EQ(reparsed("{20be0ffc314abd537a50013a65ca76d2}"), kReference);
}

TEST(ParseUuid, RefusesWhatIsNotOneUuid) {
    for (const char *bad : {"", "{}", "{20be0ffc-314a-bd53-7a50-013a65ca76d2", "20be0ffc-314a-bd53-7a50-013a65ca76d2}",
                            "{{20be0ffc-314a-bd53-7a50-013a65ca76d2}}", "(20be0ffc-314a-bd53-7a50-013a65ca76d2)",
                            "20be0ffc-314a-bd53-7a50-013a65ca76d", "20be0ffc_314a-bd53-7a50-013a65ca76d2",
                            "g0be0ffc-314a-bd53-7a50-013a65ca76d2", " 20be0ffc-314a-bd53-7a50-013a65ca76d2"})
        EXPECT_EQ(reparsed(bad), "") << bad;
}
