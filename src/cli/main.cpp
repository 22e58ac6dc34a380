// locality-uuid: the command-line face of the C++ core (no PostgreSQL needed).
//
//   locality-uuid [-n N] [--sequential] [--node-id N]
//   locality-uuid decode [--sequential] ID...
//   locality-uuid v1 --time ISO8601 --clock-seq N --mac MAC
//   locality-uuid v1-time ID...
//
// Exit status: 0 success, 1 bad data (malformed or foreign id, out-of-range
// value), 2 bad usage.
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "generator.hpp"
#include "locality_id.hpp"
#include "node_id.hpp"
#include "text_format.hpp"
#include "uuid_v1.hpp"
#include "wall_clock.hpp"

namespace {

using namespace locality;

constexpr int kBadData = 1;
constexpr int kBadUsage = 2;

const char kHelp[] =
    "Usage:\n"
    "  locality-uuid [-n N] [--sequential] [--node-id N]\n"
    "      Print N (default 1) new Locality UUIDs, variable mode unless --sequential.\n"
    "      --node-id sets the 28-bit node value (default: last 28 bits of the MAC).\n"
    "  locality-uuid decode [--sequential] ID...\n"
    "      Print counter, process id, MAC fragment and timestamp of each id.\n"
    "      --sequential reads the counter as written (sequential-mode ids).\n"
    "  locality-uuid v1 --time ISO8601 --clock-seq N --mac MAC\n"
    "      Print the RFC 4122 version-1 UUID a machine with MAC made at that time\n"
    "      (same as SQL form_uuid_v1). A time without offset is UTC.\n"
    "  locality-uuid v1-time ID...\n"
    "      Print the time of version-1 UUIDs, to the microsecond (uuid_v1_timestamp).\n"
    "  locality-uuid --help\n"
    "Exit status: 0 ok, 1 bad data, 2 bad usage.\n";

int usage_error(const std::string &message) {
    std::fprintf(stderr, "locality-uuid: %s\nTry 'locality-uuid --help'.\n", message.c_str());
    return kBadUsage;
}

int data_error(const std::string &message) {
    std::fprintf(stderr, "locality-uuid: %s\n", message.c_str());
    return kBadData;
}

// A whole decimal number in [min, max]; no sign tricks, no trailing text.
bool parse_number(const char *text, long long min, long long max, long long *out) {
    if (*text == '\0') return false;
    char *end = nullptr;
    errno = 0;
    const long long v = std::strtoll(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max) return false;
    *out = v;
    return true;
}

std::string grouped(unsigned long long v) {
    std::string digits = std::to_string(v), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

int generate(int argc, char **argv) {
    long long count = 1, node_id = -1;
    Mode mode = Mode::variable;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--sequential") {
            mode = Mode::sequential;
        } else if (arg == "-n" || arg == "--node-id") {
            if (i + 1 >= argc) return usage_error(arg + " needs a value");
            const bool is_count = arg == "-n";
            if (!parse_number(argv[++i], 0, is_count ? 1000000000LL : kNodeMask,
                              is_count ? &count : &node_id))
                return data_error(std::string("invalid ") + (is_count ? "count" : "node id") + " '" +
                                  argv[i] + "' (" +
                                  (is_count ? "0 to 1000000000" : "0 to 268435455") + ")");
        } else {
            return usage_error("unknown argument '" + arg + "'");
        }
    }
    std::uint32_t node = 0;
    if (node_id >= 0) {
        node = static_cast<std::uint32_t>(node_id);
    } else {
        const DetectedNode d = detect_node();
        if (d.found) node = node_from_mac(d.mac);
    }
    PlainCounters cells;
    if (getrandom(&cells.variable.value, sizeof cells.variable.value, 0) !=
        static_cast<ssize_t>(sizeof cells.variable.value))
        return data_error("could not read a random counter seed");
    WindowBaseCache bases;
    const Stamp stamp{static_cast<std::uint16_t>(getpid() & 0xFFFF), node};
    char line[38];
    for (long long i = 0; i < count; ++i) {
        Uuid16 u;
        const GenStatus status = make_clock_id(cells, bases, mode, wall_clock_millis(), stamp, &u);
        if (status == GenStatus::hash_failed)
            return data_error("could not compute the sequential window base (MD5 unavailable)");
        if (status != GenStatus::ok)
            return data_error("the system clock is outside the id's 48-bit millisecond range");
        format_uuid(u, line);
        line[36] = '\n';
        std::fwrite(line, 1, 37, stdout);
    }
    return std::fflush(stdout) == 0 ? 0 : data_error("could not write output");
}

int decode(int argc, char **argv) {
    Mode mode = Mode::variable;
    std::vector<const char *> ids;
    for (int i = 2; i < argc; ++i) {
        if (std::strcmp(argv[i], "--sequential") == 0)
            mode = Mode::sequential;
        else
            ids.push_back(argv[i]);
    }
    if (ids.empty()) return usage_error("decode needs at least one id");
    int status = 0;
    for (const char *text : ids) {
        Uuid16 u;
        if (!parse_uuid(text, std::strlen(text), &u)) {
            status = data_error(std::string("'") + text + "' is not a UUID");
            continue;
        }
        char canonical[37];
        format_uuid(u, canonical);
        if (!is_locality(u)) {
            status = data_error(std::string(canonical) + " is version " +
                                "0123456789abcdef"[version_nibble(u)] + ", not a Locality UUID (version b)");
            continue;
        }
        const LocalityFields f = decode_locality(u);
        char iso[40];
        format_iso8601_micros(static_cast<std::int64_t>(f.millis) * 1000, true, iso);
        std::printf("%s\ncounter     : %s\nprocess id  : %s\nMAC address : __:__:_%x:%02x:%02x:%02x\n"
                    "timestamp   : %s (%s)\n",
                    canonical, grouped(counter_of(f, mode)).c_str(), grouped(f.pid).c_str(),
                    f.node >> 24, (f.node >> 16) & 0xFF, (f.node >> 8) & 0xFF, f.node & 0xFF,
                    grouped(f.millis).c_str(), iso);
    }
    return status;
}

int v1_form(int argc, char **argv) {
    const char *time_text = nullptr, *mac_text = nullptr, *seq_text = nullptr;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        const char **slot = arg == "--time" ? &time_text : arg == "--mac" ? &mac_text
                                           : arg == "--clock-seq" ? &seq_text : nullptr;
        if (!slot) return usage_error("unknown argument '" + arg + "'");
        if (i + 1 >= argc) return usage_error(arg + " needs a value");
        *slot = argv[++i];
    }
    if (!time_text || !mac_text || !seq_text) return usage_error("v1 needs --time, --clock-seq and --mac");
    std::int64_t micros;
    if (!parse_iso8601_micros(time_text, std::strlen(time_text), &micros))
        return data_error(std::string("invalid time '") + time_text +
                          "' (ISO 8601, e.g. 2016-11-08T12:38:20.617218Z)");
    long long clock_seq;
    if (!parse_number(seq_text, 0, kMaxClockSeq, &clock_seq))
        return data_error(std::string("invalid clock sequence '") + seq_text + "' (0 to 16383)");
    std::uint8_t mac[6];
    if (!parse_mac(mac_text, std::strlen(mac_text), mac))
        return data_error(std::string("invalid MAC address '") + mac_text + "' (e.g. 44:88:99:36:57:32)");
    Uuid16 u;
    switch (form_v1(micros, clock_seq, mac, &u)) {
        case V1Status::ok:
            break;
        case V1Status::before_gregorian:
            return data_error("time is before 1582-10-15T00:00:00Z, where version 1 UUIDs start");
        default:
            return data_error("time is after 5236-03-31T21:21:00.684697Z, where version 1 UUIDs end");
    }
    char out[37];
    format_uuid(u, out);
    std::printf("%s\n", out);
    return 0;
}

int v1_time(int argc, char **argv) {
    if (argc < 3) return usage_error("v1-time needs at least one id");
    int status = 0;
    for (int i = 2; i < argc; ++i) {
        Uuid16 u;
        if (!parse_uuid(argv[i], std::strlen(argv[i]), &u)) {
            status = data_error(std::string("'") + argv[i] + "' is not a UUID");
            continue;
        }
        if (!is_rfc_v1(u)) {
            status = data_error(std::string(argv[i]) + " is not an RFC 4122 version 1 UUID");
            continue;
        }
        char iso[40];
        format_iso8601_micros(unix_micros_from_v1_ticks(v1_ticks(u)), false, iso);
        std::printf("%s\n", iso);
    }
    return status;
}

}  // namespace

int main(int argc, char **argv) {
    const std::string command = argc > 1 ? argv[1] : "";
    if (command == "--help" || command == "-h") {
        std::fputs(kHelp, stdout);
        return 0;
    }
    if (command == "decode") return decode(argc, argv);
    if (command == "v1") return v1_form(argc, argv);
    if (command == "v1-time") return v1_time(argc, argv);
    return generate(argc, argv);
}
