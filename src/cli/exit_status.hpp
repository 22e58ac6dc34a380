// The command-line tool's exit statuses (locality-uuid(1)) and how a
// command ends on an error, shared by main.cpp and fleet.cpp: 0 ok, 1 bad
// data (fleet: problems found, a claim or scan that failed), 2 bad usage.
#pragma once

#include <cstdio>
#include <string>

namespace locality_cli {

constexpr int kOk = 0;
constexpr int kBadData = 1;
constexpr int kBadUsage = 2;

inline int usage_error(const std::string &message) {
    std::fprintf(stderr, "locality-uuid: %s\nTry 'locality-uuid --help'.\n", message.c_str());
    return kBadUsage;
}

inline int data_error(const std::string &message) {
    std::fprintf(stderr, "locality-uuid: %s\n", message.c_str());
    return kBadData;
}

}  // namespace locality_cli
