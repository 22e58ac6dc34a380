// Text forms used outside PostgreSQL (the CLI, the fuzzers): UUIDs, MAC
// addresses and ISO-8601 times.  Parsers take (pointer, length), accept
// exactly the documented forms and report failure instead of guessing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "uuid16.hpp"

namespace locality {

// 8-4-4-4-12 hex digits, either case; also the 32 digits without hyphens;
// either one in braces.
bool parse_uuid(const char *text, std::size_t len, Uuid16 *out) noexcept;
// Lowercase 8-4-4-4-12 form plus NUL (37 bytes).
void format_uuid(const Uuid16 &u, char out[37]) noexcept;

// Six hex pairs separated by ':' or '-', or 12 hex digits.
bool parse_mac(const char *text, std::size_t len, std::uint8_t out[6]) noexcept;

// YYYY-MM-DD[(T| )HH:MM[:SS[.fffffffff]]][Z|(+|-)HH:MM], years 0001-9999; no
// offset means UTC.  Up to 9 fractional digits (.NET's round-trip format
// writes 7), rounded to microseconds exactly as PostgreSQL reads a
// timestamptz, so the CLI and SQL agree on every id made from the text.
bool parse_iso8601_micros(const char *text, std::size_t len, std::int64_t *unix_micros) noexcept;
// The same for version-1 UUIDs, whose resolution is 100 ns: the
// microseconds truncated and the seventh fractional digit (tenths of a
// microsecond) apart; further digits are dropped.
bool parse_iso8601_ticks(const char *text, std::size_t len, std::int64_t *unix_micros, int *tenth) noexcept;
// YYYY-MM-DDTHH:MM:SS.ffffffZ (or .fffZ with millis_only) plus NUL.
void format_iso8601_micros(std::int64_t unix_micros, bool millis_only, char out[40]) noexcept;

}  // namespace locality
