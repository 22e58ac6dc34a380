// Small helpers shared by the unit tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "civil_time.hpp"
#include "generator.hpp"

namespace locality_test {

inline std::int64_t utc_millis(int y, int mo, int d, int h, int mi, int s = 0, int ms = 0) {
    return locality::millis_from_civil({y, mo, d, h, mi, s, ms});
}

inline std::string hex(const locality::Uuid16 &u) {
    std::string out;
    char b[3];
    for (int i = 0; i < 16; ++i) {
        std::snprintf(b, sizeof b, "%02x", u.bytes[i]);
        out += b;
    }
    return out;
}

// Both 64-bit halves of an id, for sorting millions of them cheaply.
struct IdKey {
    std::uint64_t hi, lo;
    bool operator<(const IdKey &o) const { return hi != o.hi ? hi < o.hi : lo < o.lo; }
    bool operator==(const IdKey &o) const { return hi == o.hi && lo == o.lo; }
};

inline IdKey key_of(const locality::Uuid16 &u) {
    return {locality::get_be(u, 0, 8), locality::get_be(u, 8, 8)};
}

}  // namespace locality_test
