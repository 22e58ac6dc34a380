#include "hot_guid.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "md5.hpp"

namespace locality {

bool hot_guid_machine(const char *name, std::size_t len, std::uint8_t out[3]) noexcept {
    std::uint8_t digest[16];
    if (!md5_digest(name, len, digest)) return false;
    out[0] = digest[0];
    out[1] = digest[1];
    out[2] = digest[2];
    return true;
}

std::size_t machine_name_length(const char *host_name, std::size_t len) noexcept {
    for (std::size_t i = 0; i < len; ++i)
        if (host_name[i] == '.' || host_name[i] == '\0') return i;
    return len;
}

bool host_machine_name(char (&out)[256]) noexcept {
    if (gethostname(out, sizeof out) != 0) return false;
    out[sizeof out - 1] = '\0';
    out[machine_name_length(out, std::strlen(out))] = '\0';
    return true;
}

void format_machine(const std::uint8_t machine[3], char (&out)[7]) noexcept {
    std::snprintf(out, sizeof out, "%02x%02x%02x", machine[0], machine[1], machine[2]);
}

}  // namespace locality
