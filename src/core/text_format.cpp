#include "text_format.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "civil_time.hpp"

namespace locality {
namespace {

int hex_value(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Reads exactly `count` decimal digits at text[*pos].
bool digits(const char *text, std::size_t len, std::size_t *pos, int count, int *value) noexcept {
    int v = 0;
    for (int i = 0; i < count; ++i, ++*pos) {
        if (*pos >= len || text[*pos] < '0' || text[*pos] > '9') return false;
        v = v * 10 + (text[*pos] - '0');
    }
    *value = v;
    return true;
}

bool take(const char *text, std::size_t len, std::size_t *pos, char c) noexcept {
    if (*pos < len && text[*pos] == c) {
        ++*pos;
        return true;
    }
    return false;
}

int days_in_month(std::int64_t year, int month) noexcept {
    static const int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 && leap ? 29 : kDays[month - 1];
}

}  // namespace

bool parse_uuid(const char *text, std::size_t len, Uuid16 *out) noexcept {
    // Braces, as .NET's "B" format and PostgreSQL's input allow.
    if (len >= 2 && text[0] == '{' && text[len - 1] == '}') {
        ++text;
        len -= 2;
    }
    const bool hyphenated = len == 36;
    if (!hyphenated && len != 32) return false;
    int nibbles = 0;
    for (std::size_t i = 0; i < len; ++i) {
        if (hyphenated && (i == 8 || i == 13 || i == 18 || i == 23)) {
            if (text[i] != '-') return false;
            continue;
        }
        const int v = hex_value(text[i]);
        if (v < 0) return false;
        std::uint8_t &b = out->bytes[nibbles / 2];
        b = static_cast<std::uint8_t>(nibbles % 2 ? (b << 4) | v : v);
        ++nibbles;
    }
    return nibbles == 32;
}

void format_uuid(const Uuid16 &u, char out[37]) noexcept {
    static const char kHex[] = "0123456789abcdef";
    int o = 0;
    for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) out[o++] = '-';
        out[o++] = kHex[u.bytes[i] >> 4];
        out[o++] = kHex[u.bytes[i] & 0xF];
    }
    out[o] = '\0';
}

bool parse_mac(const char *text, std::size_t len, std::uint8_t out[6]) noexcept {
    const bool separated = len == 17;
    if (!separated && len != 12) return false;
    const char sep = separated ? text[2] : '\0';
    if (separated && sep != ':' && sep != '-') return false;
    std::size_t pos = 0;
    for (int i = 0; i < 6; ++i) {
        if (separated && i > 0 && text[pos++] != sep) return false;
        const int hi = hex_value(text[pos]);
        const int lo = hex_value(text[pos + 1]);
        if (hi < 0 || lo < 0) return false;
        out[i] = static_cast<std::uint8_t>(hi * 16 + lo);
        pos += 2;
    }
    return pos == len;
}

namespace {

// The parts of an ISO-8601 time: whole seconds since the Unix epoch (UTC)
// and the fractional digits as written (at most 9).
struct ParsedTime {
    std::int64_t unix_seconds;
    char fraction[10];  // digits, NUL-terminated; empty when none
};

bool parse_iso8601(const char *text, std::size_t len, ParsedTime *out) noexcept {
    std::size_t pos = 0;
    int year, month, day, hour = 0, minute = 0, second = 0, n = 0;
    if (!digits(text, len, &pos, 4, &year) || !take(text, len, &pos, '-') ||
        !digits(text, len, &pos, 2, &month) || !take(text, len, &pos, '-') ||
        !digits(text, len, &pos, 2, &day))
        return false;
    if (year < 1 || month < 1 || month > 12 || day < 1 || day > days_in_month(year, month))
        return false;
    if (take(text, len, &pos, 'T') || take(text, len, &pos, ' ')) {
        if (!digits(text, len, &pos, 2, &hour) || !take(text, len, &pos, ':') ||
            !digits(text, len, &pos, 2, &minute))
            return false;
        if (take(text, len, &pos, ':')) {
            if (!digits(text, len, &pos, 2, &second)) return false;
            if (take(text, len, &pos, '.')) {
                while (pos < len && text[pos] >= '0' && text[pos] <= '9') {
                    if (n == 9) return false;
                    out->fraction[n++] = text[pos++];
                }
                if (n == 0) return false;
            }
        }
        if (hour > 23 || minute > 59 || second > 59) return false;
    }
    out->fraction[n] = '\0';
    int offset_minutes = 0;
    if (pos < len && (text[pos] == '+' || text[pos] == '-')) {
        const int sign = text[pos++] == '-' ? -1 : 1;
        int oh, om;
        if (!digits(text, len, &pos, 2, &oh) || !take(text, len, &pos, ':') ||
            !digits(text, len, &pos, 2, &om) || oh > 23 || om > 59)
            return false;
        offset_minutes = sign * (oh * 60 + om);
    } else {
        take(text, len, &pos, 'Z');
    }
    if (pos != len) return false;
    out->unix_seconds = millis_from_civil({year, month, day, hour, minute, second, 0}) / 1000 -
                        std::int64_t{offset_minutes} * 60;
    return true;
}

}  // namespace

bool parse_iso8601_micros(const char *text, std::size_t len, std::int64_t *unix_micros) noexcept {
    ParsedTime t;
    if (!parse_iso8601(text, len, &t)) return false;
    // PostgreSQL: fsec = rint(strtod(".digits") * 1000000), in the C locale.
    char fraction[11] = ".";
    std::strcat(fraction, t.fraction);
    const double micros = t.fraction[0] != '\0' ? std::rint(std::strtod(fraction, nullptr) * 1000000.0) : 0.0;
    *unix_micros = t.unix_seconds * 1000000 + static_cast<std::int64_t>(micros);
    return true;
}

bool parse_iso8601_ticks(const char *text, std::size_t len, std::int64_t *unix_micros, int *tenth) noexcept {
    ParsedTime t;
    if (!parse_iso8601(text, len, &t)) return false;
    const std::size_t n = std::strlen(t.fraction);
    std::int64_t micros = 0;
    for (std::size_t i = 0; i < 6; ++i) micros = micros * 10 + (i < n ? t.fraction[i] - '0' : 0);
    *tenth = n > 6 ? t.fraction[6] - '0' : 0;
    *unix_micros = t.unix_seconds * 1000000 + micros;
    return true;
}

void format_iso8601_micros(std::int64_t unix_micros, bool millis_only, char out[40]) noexcept {
    const std::int64_t millis = floor_div(unix_micros, 1000);
    const CivilTime t = civil_from_millis(millis);
    const long long sub = millis_only ? t.millis : (unix_micros - floor_div(unix_micros, 1000000) * 1000000);
    std::snprintf(out, 40, millis_only ? "%04lld-%02d-%02dT%02d:%02d:%02d.%03lldZ"
                                       : "%04lld-%02d-%02dT%02d:%02d:%02d.%06lldZ",
                  static_cast<long long>(t.year), t.month, t.day, t.hour, t.minute, t.second, sub);
}

}  // namespace locality
