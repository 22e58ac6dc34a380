// Text as the body of a JSON string (the CLI's --json output): quotes,
// backslashes and control characters escaped, since an input line or a
// path may hold anything.
#pragma once

#include <cstdio>
#include <string>

namespace locality_cli {

inline std::string json_escaped(const std::string &text) {
    std::string out;
    for (const unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            char esc[8];
            std::snprintf(esc, sizeof esc, "\\u%04x", c);
            out += esc;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

}  // namespace locality_cli
