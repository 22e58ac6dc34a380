#include "md5.hpp"

#include <openssl/evp.h>

namespace locality {
namespace {

// On an OpenSSL 3 whose configuration asks for FIPS algorithms by default
// (fips=yes), EVP_md5() finds nothing; "-fips" drops that default from the
// query, so the default provider's MD5 serves. Fetched once per process
// (the fetch takes a lock and allocates) and kept for its lifetime.
const EVP_MD *md5() noexcept {
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
    static EVP_MD *const fetched = EVP_MD_fetch(nullptr, "MD5", "-fips");
    return fetched;
#else
    return EVP_md5();
#endif
}

}  // namespace

bool md5_digest(const void *data, std::size_t len, std::uint8_t out[16]) noexcept {
    const EVP_MD *algorithm = md5();
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int digest_len = 0;
    if (algorithm == nullptr || EVP_Digest(data, len, digest, &digest_len, algorithm, nullptr) != 1 ||
        digest_len != 16)
        return false;
    for (int i = 0; i < 16; ++i) out[i] = digest[i];
    return true;
}

}  // namespace locality
