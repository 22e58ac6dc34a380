// The system clock, read at generation time (not a transaction's start time).
#pragma once

#include <cstdint>
#include <ctime>

namespace locality {

inline std::int64_t wall_clock_millis() noexcept {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

}  // namespace locality
