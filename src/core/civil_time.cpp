#include "civil_time.hpp"

namespace locality {

// Eras of 400 years (146097 days) make the Gregorian cycle exact; months are
// counted from March so the leap day falls at the end of the year.
std::int64_t days_from_civil(std::int64_t year, int month, int day) noexcept {
    year -= month <= 2;
    const std::int64_t era = floor_div(year, 400);
    const std::int64_t yoe = year - era * 400;                          // [0, 399]
    const std::int64_t doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;     // [0, 146096]
    return era * 146097 + doe - 719468;
}

CivilTime civil_from_millis(std::int64_t unix_millis) noexcept {
    CivilTime t{};
    const std::int64_t days = floor_div(unix_millis, 86400000);
    std::int64_t ms_of_day = unix_millis - days * 86400000;
    t.millis = static_cast<int>(ms_of_day % 1000);
    ms_of_day /= 1000;
    t.second = static_cast<int>(ms_of_day % 60);
    t.minute = static_cast<int>((ms_of_day / 60) % 60);
    t.hour = static_cast<int>(ms_of_day / 3600);

    const std::int64_t z = days + 719468;
    const std::int64_t era = floor_div(z, 146097);
    const std::int64_t doe = z - era * 146097;
    const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const std::int64_t mp = (5 * doy + 2) / 153;
    t.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
    t.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
    t.year = yoe + era * 400 + (t.month <= 2);
    return t;
}

std::int64_t millis_from_civil(const CivilTime &t) noexcept {
    return days_from_civil(t.year, t.month, t.day) * 86400000 +
           ((t.hour * 60 + t.minute) * 60 + t.second) * std::int64_t{1000} + t.millis;
}

}  // namespace locality
