#include "window_base.hpp"

#include <openssl/evp.h>

#include <cstdio>

#include "civil_time.hpp"

namespace locality {

int window_key(std::uint32_t window, char out[24]) noexcept {
    const CivilTime t = civil_from_millis(static_cast<std::int64_t>(window_start_millis(window)));
    // The original library formats yyyyMMddHHmm and keeps 11 characters; a
    // 5-digit year (after 9999) shifts that cut, and so do we, to stay
    // byte-compatible with it.
    char full[32];
    std::snprintf(full, sizeof full, "%04lld%02d%02d%02d%02d", static_cast<long long>(t.year),
                  t.month, t.day, t.hour, t.minute);
    int n = 0;
    for (; n < 11 && full[n] != '\0'; ++n) out[n] = full[n];
    out[n] = '\0';
    return n;
}

namespace {

// MD5 here defines the id format, not security. On an OpenSSL 3 whose
// configuration asks for FIPS algorithms by default (fips=yes), EVP_md5()
// finds nothing; "-fips" drops that default from the query, so the
// default provider's MD5 serves. Fetched once per process (the fetch takes
// a lock and allocates) and kept for its lifetime.
const EVP_MD *md5() noexcept {
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
    static EVP_MD *const fetched = EVP_MD_fetch(nullptr, "MD5", "-fips");
    return fetched;
#else
    return EVP_md5();
#endif
}

}  // namespace

bool window_base(std::uint32_t window, std::uint32_t *base) noexcept {
    char key[24];
    const int len = window_key(window, key);
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int digest_len = 0;
    const EVP_MD *algorithm = md5();
    if (algorithm == nullptr ||
        EVP_Digest(key, static_cast<size_t>(len), digest, &digest_len, algorithm, nullptr) != 1 ||
        digest_len < 4)
        return false;
    *base = static_cast<std::uint32_t>(digest[0]) | (static_cast<std::uint32_t>(digest[1]) << 8) |
            (static_cast<std::uint32_t>(digest[2]) << 16) |
            (static_cast<std::uint32_t>(digest[3]) << 24);
    return true;
}

}  // namespace locality
