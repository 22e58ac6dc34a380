#include "host_identity.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "md5.hpp"

namespace locality {

bool read_first_line(const char *path, char *out, std::size_t size) noexcept {
    if (size == 0) return false;
    std::FILE *f = std::fopen(path, "r");
    if (f == nullptr) return false;
    const bool got = std::fgets(out, static_cast<int>(size), f) != nullptr;
    std::fclose(f);
    if (!got) return false;
    std::size_t len = std::strlen(out);
    while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == '\r' || out[len - 1] == ' ' || out[len - 1] == '\t'))
        out[--len] = '\0';
    std::size_t lead = 0;
    while (out[lead] == ' ' || out[lead] == '\t') ++lead;
    if (lead > 0) std::memmove(out, out + lead, len - lead + 1);
    return out[0] != '\0';
}

bool identity_digest(const char *text, std::size_t len, char (&out)[33]) noexcept {
    std::uint8_t digest[16];
    if (!md5_digest(text, len, digest)) return false;
    for (int i = 0; i < 16; ++i) std::snprintf(out + 2 * i, 3, "%02x", digest[i]);
    return true;
}

}  // namespace locality
