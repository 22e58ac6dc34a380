// Fuzzes the text parsers (UUID, MAC, ISO-8601).  Whatever parses must
// format back to text that parses to the same value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "text_format.hpp"

using namespace locality;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    if (size == 0) return 0;
    const char *text = reinterpret_cast<const char *>(data + 1);
    const std::size_t len = size - 1;
    switch (data[0] % 3) {
        case 0: {
            Uuid16 u, again;
            if (!parse_uuid(text, len, &u)) break;
            char out[37];
            format_uuid(u, out);
            if (!parse_uuid(out, 36, &again) || std::memcmp(u.bytes, again.bytes, 16) != 0) std::abort();
            break;
        }
        case 1: {
            std::uint8_t mac[6];
            if (!parse_mac(text, len, mac)) break;
            break;
        }
        default: {
            std::int64_t micros, again;
            if (!parse_iso8601_micros(text, len, &micros)) break;
            char out[40];
            format_iso8601_micros(micros, false, out);
            // An offset can move the time outside years 1-9999, which the
            // parser does not accept; everything else must round-trip.
            if (parse_iso8601_micros(out, std::strlen(out), &again) && again != micros) std::abort();
            if (out[0] != '-' && std::strncmp(out, "0000", 4) != 0 && std::strlen(out) == 27 &&
                !parse_iso8601_micros(out, 27, &again))
                std::abort();
            break;
        }
    }
    return 0;
}
