// What tells one host from another, for the binding of a server's counters
// (src/pg/binding.hpp): the digest of a text that identifies the host, by
// default its machine id and host name. Core: no PostgreSQL, no
// allocation; files are read with plain stdio.
#pragma once

#include <cstddef>

namespace locality {

// The first line of a file, without surrounding blanks, into out; false if
// the file cannot be read or that line is empty.
bool read_first_line(const char *path, char *out, std::size_t size) noexcept;

// 32 hex digits: the MD5 of text (only an identity, not a secret: the
// machine id, which machine-id(5) asks to keep confidential, is not shown).
// False only if MD5 is unavailable.
bool identity_digest(const char *text, std::size_t len, char (&out)[33]) noexcept;

}  // namespace locality
