// Text forms used outside PostgreSQL (the CLI, the fuzzers): UUIDs, MAC
// addresses and ISO-8601 times.  Parsers take (pointer, length), accept
// exactly the documented forms and report failure instead of guessing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "uuid16.hpp"

namespace locality {

// 8-4-4-4-12 hex digits, either case; also the 32 digits without hyphens.
bool parse_uuid(const char *text, std::size_t len, Uuid16 *out) noexcept;
// Lowercase 8-4-4-4-12 form plus NUL (37 bytes).
void format_uuid(const Uuid16 &u, char out[37]) noexcept;

// Six hex pairs separated by ':' or '-', or 12 hex digits.
bool parse_mac(const char *text, std::size_t len, std::uint8_t out[6]) noexcept;

// YYYY-MM-DD[(T| )HH:MM[:SS[.ffffff]]][Z|(+|-)HH:MM], years 0001-9999; no
// offset means UTC.  Up to 6 fractional digits (microseconds).
bool parse_iso8601_micros(const char *text, std::size_t len, std::int64_t *unix_micros) noexcept;
// YYYY-MM-DDTHH:MM:SS.ffffffZ (or .fffZ with millis_only) plus NUL.
void format_iso8601_micros(std::int64_t unix_micros, bool millis_only, char out[40]) noexcept;

}  // namespace locality
