// MD5 through OpenSSL's EVP interface. Here MD5 defines id formats (the
// sequential window base, the Hot Guid machine bytes), not security, so it
// must keep working where OpenSSL 3 is configured for FIPS algorithms.
#pragma once

#include <cstddef>
#include <cstdint>

namespace locality {

// The 16-byte digest of data; false only if no MD5 implementation is
// available.
bool md5_digest(const void *data, std::size_t len, std::uint8_t out[16]) noexcept;

}  // namespace locality
