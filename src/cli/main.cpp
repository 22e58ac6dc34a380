// locality-uuid: the command-line face of the C++ core (the id commands need
// no server; the fleet commands, fleet.cpp, talk to servers through libpq).
//
//   locality-uuid [-n N] [--sequential] [--node-id N]
//   locality-uuid decode [--sequential] [--json] ID...
//   locality-uuid v1 --time ISO8601 --clock-seq N --mac MAC
//   locality-uuid v1-time [--json] ID...
//   locality-uuid hot --shard-key N [-n N] [--time ISO8601] [--machine-name NAME]
//   locality-uuid hot-decode [--json] ID...
//   locality-uuid node claim --registry DSN ... --write FILE   (fleet.cpp)
//   locality-uuid fleet audit|scan ...                        (fleet.cpp)
//   locality-uuid --version | --help
//
// IDs: arguments, or standard input (one a line) for '-'. Exit status: 0
// success, 1 bad data (malformed or foreign id, out-of-range value), 2 bad
// usage.
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include "civil_time.hpp"
#include "exit_status.hpp"
#include "fleet.hpp"
#include "json_text.hpp"
#include "generator.hpp"
#include "hot_guid.hpp"
#include "hot_guid_generator.hpp"
#include "locality_id.hpp"
#include "node_id.hpp"
#include "text_format.hpp"
#include "uuid_v1.hpp"
#include "wall_clock.hpp"

// The build passes the extension's version (locality_uuid.control).
#ifndef LOCALITY_UUID_VERSION
#error "LOCALITY_UUID_VERSION must be defined by the build"
#endif

namespace {

using namespace locality;
using locality_cli::data_error;
using locality_cli::json_escaped;
using locality_cli::kBadData;
using locality_cli::kBadUsage;
using locality_cli::usage_error;

// The help, a section per command: `locality-uuid --help` prints them
// all, `locality-uuid COMMAND ... --help` that command's (doc/locality-uuid.1
// says the same).
struct HelpSection {
    const char *command;  // as typed: "decode", "node claim"; "" the generator
    const char *text;
};

const HelpSection kHelpSections[] = {
    {"",
     "  locality-uuid [-n N] [--sequential] [--node-id N]\n"
     "      Print N (default 1) new Locality UUIDs, variable mode unless --sequential.\n"
     "      --node-id sets the 28-bit node value (default: last 28 bits of the MAC).\n"
     "      Unique within one run; runs keep no state, so two runs with one node value\n"
     "      differ only by process id and by chance (each draws its own starts).\n"},
    {"decode",
     "  locality-uuid decode [--sequential] [--json] ID...\n"
     "      Print counter, process id, MAC fragment and timestamp of each id.\n"
     "      --sequential reads the counter as written (sequential-mode ids).\n"
     "      --json prints one JSON object a line instead.\n"
     "      IDs: hyphenated, 32 digits, or in braces; '-' reads them from standard\n"
     "      input, one a line.\n"},
    {"v1",
     "  locality-uuid v1 --time ISO8601 --clock-seq N --mac MAC\n"
     "      Print the RFC 4122 version-1 UUID a machine with MAC made at that time\n"
     "      (same as SQL form_uuid_v1; a seventh fractional digit is the 100 ns tick).\n"
     "      Times: ISO 8601, up to 9 fractional digits; without offset, UTC.\n"},
    {"v1-time",
     "  locality-uuid v1-time [--json] ID...\n"
     "      Print the time of version-1 UUIDs, to the microsecond (uuid_v1_timestamp).\n"},
    {"hot",
     "  locality-uuid hot --shard-key N [-n N] [--time ISO8601] [--machine-name NAME]\n"
     "      Print N (default 1) new Hot Guids carrying shard key N (0 to 4294967295), for\n"
     "      the current second or the given time (whole seconds, 1970 to 2106-02-07T06:28:15Z).\n"
     "      The machine name defaults to the host name up to its first '.' (as .NET's).\n"},
    {"hot-decode",
     "  locality-uuid hot-decode [--json] ID...\n"
     "      Print shard key, time, counter, process id and machine bytes of each Hot Guid.\n"},
    {"node claim",
     "  locality-uuid node claim --registry DSN [--registry-owner ROLE]\n"
     "                           [--host-id ID | --host-identity-file FILE]\n"
     "                           [--data-directory DIR] [--node-id N [--machine-name NAME]]\n"
     "                           --write FILE [--json]\n"
     "      Claim this host's node value and Hot Guid machine name from the registry\n"
     "      (created if missing, as the connecting role) and write them to FILE\n"
     "      (doc/fleets.md); then reload the server, or restart it when the file sets\n"
     "      host_identity_file (--host-identity-file). Again on the same host and data\n"
     "      directory: the same claim. --node-id adopts a value the server already has\n"
     "      (refused if the registry has or had it), with its --machine-name.\n"
     "      --registry-owner: the role that owns the registry, when it is not the\n"
     "      connecting role (a provisioner granted EXECUTE on its claim functions\n"
     "      and holders()).\n"
     "  locality-uuid node claim --registry DSN [--registry-owner ROLE] --host-id LABEL\n"
     "                           --block N --write-dir DIR [--data-directory DIR] [--json]\n"
     "      Claim N consecutive values for ordinals 0..N-1 (a StatefulSet); write\n"
     "      DIR/ordinal-I.conf and DIR/ordinal-I.host-id for each.\n"},
    {"fleet registry",
     "  locality-uuid fleet registry --registry DSN [--registry-owner ROLE] [--past N] [--json]\n"
     "      Create the registry (as the connecting role) or update it to this version,\n"
     "      check it can be trusted, and print what it holds: rows, leases, node values\n"
     "      drawn and machine bytes used (doc/fleets.md, \"Leases\").\n"
     "      --past N: first move its node values past N (never back), as its owner:\n"
     "      after it was restored or failed over, N above every value the fleet holds.\n"},
    {"fleet audit",
     "  locality-uuid fleet audit --registry DSN [--registry-owner ROLE] --targets FILE [--json]\n"
     "      Read every server's values, sources and binding (one libpq conninfo a line)\n"
     "      and list shared, unregistered or copied values, each with a fix; exit 1 if\n"
     "      any. The registry must be the connecting role's, or --registry-owner's.\n"},
    {"fleet scan",
     "  locality-uuid fleet scan --dsn DSN --table T --column C [--sample PCT]\n"
     "                           [--registry DSN [--registry-owner ROLE]] [--json]\n"
     "      Node values in a table's Locality UUIDs with their time ranges, and with\n"
     "      --registry who claimed each; exit 1 if one is not in the registry.\n"},
    {"--version",
     "  locality-uuid --version\n"
     "      Print the version (the extension's it was built with).\n"
     "  locality-uuid --help, locality-uuid COMMAND --help\n"
     "      Print this help, or one command's.\n"},
};

const char kHelpEnd[] =
    "Exit status: 0 ok, 1 bad data (fleet: problems found), 2 bad usage. Manual: man locality-uuid.\n";

// Prints the sections whose command starts with `command` (all for "");
// false if none does.
bool print_help(const std::string &command) {
    std::string out;
    for (const HelpSection &h : kHelpSections) {
        const std::string c = h.command;
        if (command.empty() || c == command || c.rfind(command + " ", 0) == 0 ||
            (command == "generate" && c.empty()))
            out += h.text;
    }
    if (out.empty()) return false;
    std::fputs("Usage:\n", stdout);
    std::fputs(out.c_str(), stdout);
    std::fputs(kHelpEnd, stdout);
    return true;
}

// The command a --help anywhere after it asks about: "node claim",
// "fleet", "decode", ... ("" for the generator's own options).
std::string help_topic(int argc, char **argv) {
    const std::string first = argc > 1 ? argv[1] : "";
    if (first == "node" || first == "fleet") {
        const std::string sub = argc > 2 && argv[2][0] != '-' ? argv[2] : "";
        return sub.empty() ? first : first + " " + sub;
    }
    if (first.empty() || first[0] == '-') return "generate";
    return first;
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

// One id per line, as fast as stdout takes it (generation prints millions).
void print_uuid(const Uuid16 &u) {
    char line[38];
    format_uuid(u, line);
    line[36] = '\n';
    std::fwrite(line, 1, 37, stdout);
}

int finish_output() { return std::fflush(stdout) == 0 ? 0 : data_error("could not write output"); }

// As the server's start does: a node value from a MAC that other machines
// may share (or from none) is said on standard error.
void warn_about_node(const DetectedNode &d, std::uint32_t node) {
    if (!d.found) {
        std::fprintf(stderr, "locality-uuid: warning: no MAC address found: node value 0; pass --node-id\n");
        return;
    }
    const MacKind kind = classify_mac(d.mac);
    if (kind == MacKind::universal) return;
    std::fprintf(stderr,
                 "locality-uuid: warning: node value %u comes from %s MAC address "
                 "%02x:%02x:%02x:%02x:%02x:%02x of interface \"%s\", which other machines may share; "
                 "pass --node-id\n",
                 node, kind == MacKind::multicast ? "multicast" : "locally administered", d.mac[0], d.mac[1],
                 d.mac[2], d.mac[3], d.mac[4], d.mac[5], d.interface_name);
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
        warn_about_node(d, node);
    }
    PlainCounters cells;
    // A random variable-mode start, and a run start of this run's own
    // (below 2^24), as a backend without preloading has.
    std::uint32_t seed[2];
    if (getrandom(seed, sizeof seed, 0) != static_cast<ssize_t>(sizeof seed))
        return data_error("could not read a random counter seed");
    cells.variable_start = seed[0];
    cells.run_start = seed[1] & (kRunStartLimit - 1);
    WindowBaseCache bases;
    const Stamp stamp{static_cast<std::uint16_t>(getpid() & 0xFFFF), node};
    for (long long i = 0; i < count; ++i) {
        Uuid16 u;
        const GenStatus status = make_clock_id(cells, bases, mode, wall_clock_millis(), stamp, &u);
        if (status == GenStatus::hash_failed)
            return data_error("could not compute the sequential window base (MD5 unavailable)");
        if (status != GenStatus::ok)
            return data_error("the system clock is outside the id's 48-bit millisecond range");
        print_uuid(u);
    }
    return finish_output();
}

// The ids and flags of a reading command (decode, v1-time, hot-decode).
struct IdInput {
    bool sequential = false;  // decode only
    bool json = false;
    std::vector<std::string> ids;
};

// Reads argv[2..] into `in`: the flags, then ids; '-' reads ids from
// standard input (one a line; blank lines and surrounding blanks are
// skipped). Only when asked: a tool in a `while read` loop, under cron or
// ssh must not swallow its caller's input. Returns 0, or the usage error.
int read_ids(int argc, char **argv, const char *command, bool sequential_allowed, IdInput *in) {
    bool from_stdin = false;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--sequential" && sequential_allowed)
            in->sequential = true;
        else if (arg == "--json")
            in->json = true;
        else if (arg == "-")
            from_stdin = true;
        else if (arg.size() > 1 && arg[0] == '-')
            return usage_error("unknown argument '" + arg + "'");
        else
            in->ids.push_back(arg);
    }
    if (in->ids.empty() && !from_stdin) return usage_error(std::string(command) + " needs at least one id");
    if (from_stdin) {
        std::string line;
        while (std::getline(std::cin, line)) {
            const std::size_t first = line.find_first_not_of(" \t\r");
            if (first == std::string::npos) continue;
            const std::size_t last = line.find_last_not_of(" \t\r");
            in->ids.push_back(line.substr(first, last - first + 1));
        }
        if (in->ids.empty()) return usage_error(std::string(command) + " read no id from standard input");
    }
    return 0;
}

// Hands each id of `in` to `show` (which returns 0 or a data error, the
// message written by `fail`); a malformed one is reported and the others
// still shown. With --json a failure is also a line of its own on standard
// output, {"input": ..., "error": ...}, so that output lines stay one per
// input. Returns the last non-zero status.
template <class Show>
int for_each_id(const IdInput &in, Show show) {
    int status = 0;
    for (const std::string &text : in.ids) {
        std::string message;
        auto fail = [&](const std::string &m) {
            message = m;
            return data_error(m);
        };
        Uuid16 u;
        const int result = parse_uuid(text.data(), text.size(), &u) ? show(u, text.c_str(), fail)
                                                                    : fail("'" + text + "' is not a UUID");
        if (result != 0) {
            status = result;
            if (in.json)
                std::printf("{\"input\":\"%s\",\"error\":\"%s\"}\n", json_escaped(text).c_str(),
                            json_escaped(message).c_str());
        }
    }
    return status;
}

int decode(int argc, char **argv) {
    IdInput in;
    if (const int rc = read_ids(argc, argv, "decode", true, &in)) return rc;
    const Mode mode = in.sequential ? Mode::sequential : Mode::variable;
    const int status = for_each_id(in, [&](const Uuid16 &u, const char *, auto fail) {
        char canonical[37];
        format_uuid(u, canonical);
        if (!is_locality(u))
            return fail(std::string(canonical) + " is version " + "0123456789abcdef"[version_nibble(u)] +
                        ", not a Locality UUID (version b)");
        const LocalityFields f = decode_locality(u);
        char iso[40];
        format_iso8601_micros(static_cast<std::int64_t>(f.millis) * 1000, true, iso);
        if (in.json)
            std::printf("{\"id\":\"%s\",\"counter\":%" PRIu32 ",\"pid\":%u,\"node\":%" PRIu32
                        ",\"mac_fragment\":\"__:__:_%x:%02x:%02x:%02x\",\"millis\":%" PRIu64 ",\"time\":\"%s\"}\n",
                        canonical, counter_of(f, mode), static_cast<unsigned>(f.pid), f.node, f.node >> 24,
                        (f.node >> 16) & 0xFF, (f.node >> 8) & 0xFF, f.node & 0xFF,
                        static_cast<std::uint64_t>(f.millis), iso);
        else
            std::printf("%s\ncounter     : %s\nprocess id  : %s\nMAC address : __:__:_%x:%02x:%02x:%02x\n"
                        "timestamp   : %s (%s)\n",
                        canonical, grouped(counter_of(f, mode)).c_str(), grouped(f.pid).c_str(), f.node >> 24,
                        (f.node >> 16) & 0xFF, (f.node >> 8) & 0xFF, f.node & 0xFF, grouped(f.millis).c_str(), iso);
        return 0;
    });
    const int flushed = finish_output();
    return status != 0 ? status : flushed;
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
    int tenth;
    if (!parse_iso8601_ticks(time_text, std::strlen(time_text), &micros, &tenth))
        return data_error(std::string("invalid time '") + time_text +
                          "' (ISO 8601, e.g. 2016-11-08T12:38:20.6172183Z)");
    long long clock_seq;
    if (!parse_number(seq_text, 0, kMaxClockSeq, &clock_seq))
        return data_error(std::string("invalid clock sequence '") + seq_text + "' (0 to 16383)");
    std::uint8_t mac[6];
    if (!parse_mac(mac_text, std::strlen(mac_text), mac))
        return data_error(std::string("invalid MAC address '") + mac_text + "' (e.g. 44:88:99:36:57:32)");
    // The seventh fractional digit is the tick within the microsecond: the
    // ordinal form_v1_nth gives tick * 16384 + clock sequence.
    Uuid16 u;
    switch (form_v1_nth(micros, tenth * (kMaxClockSeq + 1) + clock_seq, mac, &u)) {
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
    IdInput in;
    if (const int rc = read_ids(argc, argv, "v1-time", false, &in)) return rc;
    const int status = for_each_id(in, [&](const Uuid16 &u, const char *text, auto fail) {
        if (!is_rfc_v1(u)) return fail(std::string(text) + " is not an RFC 4122 version 1 UUID");
        char iso[40], canonical[37];
        format_iso8601_micros(unix_micros_from_v1_ticks(v1_ticks(u)), false, iso);
        format_uuid(u, canonical);
        if (in.json)
            std::printf("{\"id\":\"%s\",\"time\":\"%s\"}\n", canonical, iso);
        else
            std::printf("%s\n", iso);
        return 0;
    });
    const int flushed = finish_output();
    return status != 0 ? status : flushed;
}

// Sleeps until the wall clock reaches its next second (at most one).
void wait_for_next_second() {
    const std::int64_t now = wall_clock_millis();
    const std::int64_t wait = 1000 - (now - floor_div(now, 1000) * 1000);
    struct timespec ts = {static_cast<time_t>(wait / 1000), static_cast<long>(wait % 1000) * 1000000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

int hot_generate(int argc, char **argv) {
    long long count = 1, shard_key = -1;
    const char *time_text = nullptr, *machine_text = nullptr;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (i + 1 >= argc) return usage_error(arg + " needs a value");
        const char *value = argv[++i];
        if (arg == "-n") {
            if (!parse_number(value, 0, 1000000000LL, &count))
                return data_error(std::string("invalid count '") + value + "' (0 to 1000000000)");
        } else if (arg == "--shard-key") {
            if (!parse_number(value, 0, 4294967295LL, &shard_key))
                return data_error(std::string("invalid shard key '") + value + "' (0 to 4294967295)");
        } else if (arg == "--time") {
            time_text = value;
        } else if (arg == "--machine-name") {
            machine_text = value;
        } else {
            return usage_error("unknown argument '" + arg + "'");
        }
    }
    if (shard_key < 0) return usage_error("hot needs --shard-key");
    std::int64_t at_seconds = 0;
    if (time_text) {
        std::int64_t micros;
        if (!parse_iso8601_micros(time_text, std::strlen(time_text), &micros))
            return data_error(std::string("invalid time '") + time_text + "' (ISO 8601, e.g. 2022-02-06T00:00:00Z)");
        at_seconds = floor_div(micros, 1000000);
    }
    char host[256];
    if (!machine_text) {
        if (!host_machine_name(host)) return data_error("could not read the host name");
        machine_text = host;
    }
    HotStamp stamp{};
    stamp.pid = static_cast<std::uint16_t>(getpid() & 0xFFFF);
    if (!hot_guid_machine(machine_text, std::strlen(machine_text), stamp.machine))
        return data_error("could not compute the machine bytes (MD5 unavailable)");
    PlainHotGuidCells cells;
    std::uint32_t seed;
    if (getrandom(&seed, sizeof seed, 0) != static_cast<ssize_t>(sizeof seed))
        return data_error("could not read a random counter seed");
    cells.draws.value = seed;
    for (long long i = 0; i < count; ++i) {
        // Ids for one given time repeat after 2^24 draws: refuse instead.
        if (time_text && i == static_cast<long long>(kHotCounterSpace))
            return data_error("more than 16777216 Hot Guids for one given time would repeat");
        Uuid16 u;
        auto make = [&]() {
            return time_text ? make_hot_guid_at(cells, at_seconds, stamp, static_cast<std::uint32_t>(shard_key), &u)
                             : make_hot_guid_now(cells, floor_div(wall_clock_millis(), 1000), stamp,
                                                 static_cast<std::uint32_t>(shard_key), &u);
        };
        HotStatus status = make();
        // As hot_guid(key) in SQL: a full second waits for the next one, a
        // few times, and fails only if the clock has not moved on.
        for (int tries = 0; status == HotStatus::second_full && tries < 3; ++tries) {
            wait_for_next_second();
            status = make();
        }
        if (status == HotStatus::time_out_of_range)
            return data_error("time is outside a Hot Guid's seconds (1970-01-01T00:00:00Z to 2106-02-07T06:28:15Z)");
        if (status == HotStatus::second_full)
            return data_error("more than 16711680 Hot Guids in one second");
        print_uuid(u);
    }
    return finish_output();
}

int hot_decode(int argc, char **argv) {
    IdInput in;
    if (const int rc = read_ids(argc, argv, "hot-decode", false, &in)) return rc;
    const int status = for_each_id(in, [&](const Uuid16 &u, const char *, auto) {
        const HotGuidFields f = decode_hot_guid(u);
        char canonical[37], iso[40], machine[7];
        format_uuid(u, canonical);
        format_iso8601_micros(static_cast<std::int64_t>(f.seconds) * 1000000, false, iso);
        format_machine(f.machine, machine);
        if (in.json)
            std::printf("{\"id\":\"%s\",\"shard_key\":%u,\"seconds\":%u,\"time\":\"%.19sZ\",\"counter\":%u,"
                        "\"pid\":%u,\"machine\":\"%s\"}\n",
                        canonical, f.shard_key, f.seconds, iso, f.counter, f.pid, machine);
        else
            std::printf("%s\nshard key   : %u\ntimestamp   : %u (%.19sZ)\ncounter     : %u\n"
                        "process id  : %u\nmachine     : %s\n",
                        canonical, f.shard_key, f.seconds, iso, f.counter, f.pid, machine);
        return 0;
    });
    const int flushed = finish_output();
    return status != 0 ? status : flushed;
}

}  // namespace

int main(int argc, char **argv) {
    const std::string command = argc > 1 ? argv[1] : "";
    if (command == "--help" || command == "-h") {
        print_help("");
        return 0;
    }
    if (command == "--version" || command == "-V") {
        std::printf("locality-uuid %s\n", LOCALITY_UUID_VERSION);
        return 0;
    }
    // COMMAND ... --help: that command's help, whatever else is given.
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg != "--help" && arg != "-h") continue;
        const std::string topic = help_topic(argc, argv);
        if (print_help(topic)) return 0;
        return usage_error("no command '" + topic + "'");
    }
    if (command == "decode") return decode(argc, argv);
    if (command == "v1") return v1_form(argc, argv);
    if (command == "v1-time") return v1_time(argc, argv);
    if (command == "hot") return hot_generate(argc, argv);
    if (command == "hot-decode") return hot_decode(argc, argv);
    if (command == "node") return locality_cli::node_command(argc, argv);
    if (command == "fleet") return locality_cli::fleet_command(argc, argv);
    return generate(argc, argv);
}
