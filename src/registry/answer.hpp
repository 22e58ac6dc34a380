// What a registry's answer must be before a host or a server uses it (a
// claim by the CLI, a lease by a server): a node value in range, a machine
// name a configuration file can carry, and machine bytes that are the MD5
// of that name. The registry's own constraints say so; this says so again
// for what will be written into ids. PostgreSQL-free and noexcept, as
// src/core.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hot_guid.hpp"

namespace locality_registry {

constexpr long long kMaxRegistryNode = 268435455;  // 2^28 - 1; the registry hands out 1 and up

// Letters, digits, '.', '_' and '-', 1 to 63, starting with a letter or a
// digit: what the registry's CHECK allows and a configuration file holds
// quoted without escapes.
inline bool valid_machine_name(const char *name, std::size_t len) noexcept {
    if (len == 0 || len > 63) return false;
    for (std::size_t i = 0; i < len; ++i) {
        const char c = name[i];
        const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && (i == 0 || (c != '.' && c != '_' && c != '-'))) return false;
    }
    return true;
}

// Whether (node, name, bytes_hex) may be used; if not, *why says what is wrong.
inline bool answer_holds(long long node, const char *name, const char *bytes_hex, const char **why) noexcept {
    if (node < 1 || node > kMaxRegistryNode) {
        *why = "the node value is out of range (1 to 268435455)";
        return false;
    }
    if (name == nullptr || !valid_machine_name(name, std::strlen(name))) {
        *why = "the machine name cannot be written into a configuration file";
        return false;
    }
    std::uint8_t bytes[3];
    char hex[7];
    if (!locality::hot_guid_machine(name, std::strlen(name), bytes)) {
        *why = "MD5 is unavailable";
        return false;
    }
    locality::format_machine(bytes, hex);
    if (bytes_hex == nullptr || std::strcmp(hex, bytes_hex) != 0) {
        *why = "the machine bytes are not the MD5 of the machine name";
        return false;
    }
    return true;
}

}  // namespace locality_registry
