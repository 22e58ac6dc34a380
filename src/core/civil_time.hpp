// Proleptic Gregorian calendar arithmetic on Unix milliseconds, UTC.
// Used for the sequential-mode window key and for the CLI's ISO-8601 text;
// plain integer arithmetic so it is exact for every date and never touches
// the process time zone.
#pragma once

#include <cstdint>

namespace locality {

struct CivilTime {
    std::int64_t year;
    int month;   // 1-12
    int day;     // 1-31
    int hour;    // 0-23
    int minute;  // 0-59
    int second;  // 0-59
    int millis;  // 0-999
};

// Days since 1970-01-01 of a proleptic Gregorian date.
std::int64_t days_from_civil(std::int64_t year, int month, int day) noexcept;

CivilTime civil_from_millis(std::int64_t unix_millis) noexcept;

// Inverse of civil_from_millis for valid fields.
std::int64_t millis_from_civil(const CivilTime &t) noexcept;

// Floor division, for negative times.
constexpr std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

}  // namespace locality
