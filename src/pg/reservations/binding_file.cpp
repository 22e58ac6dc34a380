#include "reservations/binding_file.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstdio>

extern "C" {
#include "storage/fd.h"  // AllocateFile
}

#include "generator.hpp"
#include "reservations/state_file.hpp"

namespace locality_pg {
namespace {

//   locality_uuid binding 1
//   host 9f00e1aa0e5c4d7c91e3b2c4d5e6f708 machine-id and host name
//   data_directory /var/lib/postgresql/15/main
//   system_identifier 7301...
//   node 17 file /etc/postgresql/15/main/conf.d/node.conf
//   machine f52bb9 file /etc/postgresql/15/main/conf.d/node.conf
//   since 1767225600
//   run_start 9034211
//   state bound                        (due; moving, then the target:)
//   target 4294967296 2147483648 16777216 9034211   (variable, given-time, Hot Guid, run start)
//   target_run 17 7361425 12582912     (a held run's slot, window + 1, place)
//   end
constexpr const char *kHeader = "locality_uuid binding 1\n";
constexpr const char *kTempFile = "locality_uuid.binding.tmp";

// A line's text after its key, without the newline; "-" stands for empty.
void rest_of(const char *line, size_t key_len, char *out, size_t size) {
    strlcpy(out, line + key_len, size);
    size_t len = strlen(out);
    while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == '\r')) out[--len] = '\0';
    if (strcmp(out, "-") == 0) out[0] = '\0';
}

// A value on one line: a newline in a path becomes '?'.
void one_line(const char *in, char *out, size_t size) {
    strlcpy(out, in[0] != '\0' ? in : "-", size);
    for (char *p = out; *p != '\0'; ++p)
        if (*p == '\n' || *p == '\r') *p = '?';
}

bool starts(const char *line, const char *key) { return strncmp(line, key, strlen(key)) == 0; }

}  // namespace

BindingRead read_binding_file(Binding *b) {
    FILE *f = AllocateFile(kBindingFile, "r");
    if (f == nullptr) return errno == ENOENT ? BindingRead::missing : BindingRead::io_error;
    memset(b, 0, sizeof *b);
    b->node = -1;
    char line[MAXPGPATH + 128];
    bool header = false, end = false, has_target = false;
    while (fgets(line, sizeof line, f) != nullptr) {
        uint64_t u = 0;
        int64_t i = 0;
        int n = 0;
        if (!header) {
            header = strcmp(line, kHeader) == 0;
            if (!header) break;
        } else if (starts(line, "host ")) {
            char hex[40] = "";
            if (sscanf(line, "host %39s %n", hex, &n) < 1) break;
            strlcpy(b->host, strcmp(hex, "-") == 0 ? "" : hex, sizeof b->host);
            rest_of(line, static_cast<size_t>(n), b->host_source, sizeof b->host_source);
        } else if (starts(line, "data_directory ")) {
            rest_of(line, strlen("data_directory "), b->data_directory, sizeof b->data_directory);
        } else if (sscanf(line, "system_identifier %" SCNu64, &u) == 1) {
            b->system_identifier = u;
        } else if (starts(line, "node ")) {
            if (sscanf(line, "node %" SCNd64 " %n", &i, &n) < 1) break;
            b->node = static_cast<int32>(i);
            rest_of(line, static_cast<size_t>(n), b->node_source, sizeof b->node_source);
        } else if (starts(line, "machine ")) {
            char hex[16] = "";
            if (sscanf(line, "machine %15s %n", hex, &n) < 1) break;
            strlcpy(b->machine, strcmp(hex, "-") == 0 ? "" : hex, sizeof b->machine);
            rest_of(line, static_cast<size_t>(n), b->machine_source, sizeof b->machine_source);
        } else if (sscanf(line, "since %" SCNd64, &i) == 1) {
            b->since = i;
        } else if (sscanf(line, "run_start %" SCNu64, &u) == 1) {
            b->run_start = static_cast<uint32>(u & (locality::kRunStartLimit - 1));
        } else if (strcmp(line, "state bound\n") == 0) {
            b->state = BindingState::bound;
        } else if (strcmp(line, "state due\n") == 0) {
            b->state = BindingState::due;
        } else if (strcmp(line, "state moving\n") == 0) {
            b->state = BindingState::moving;
        } else if (starts(line, "target ")) {
            uint64_t v = 0, e = 0, h = 0, r = 0;
            if (sscanf(line, "target %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &v, &e, &h, &r) != 4) break;
            b->target.variable = v;
            b->target.explicit_sequential = e;
            b->target.hot_guid = h;
            b->target.run_start = static_cast<uint32>(r & (locality::kRunStartLimit - 1));
            has_target = true;
        } else if (starts(line, "target_run ")) {
            uint64_t slot = 0, window = 0, place = 0;
            if (sscanf(line, "target_run %" SCNu64 " %" SCNu64 " %" SCNu64, &slot, &window, &place) != 3 ||
                slot >= locality::kRunSlots || window > 0xFFFFFFFFull || place > locality::kRunIds)
                break;
            b->target.runs[slot] = (window << 32) | place;
        } else if (strcmp(line, "end\n") == 0) {
            end = true;
            break;
        } else {
            break;
        }
    }
    if (!close_after_reading(f)) return BindingRead::io_error;
    // A move's record without its target is no record (state bound when
    // the line is missing: files before the state line).
    if (b->state == BindingState::moving && !has_target) return BindingRead::corrupt;
    return header && end ? BindingRead::ok : BindingRead::corrupt;
}

bool write_binding_file(const Binding &b) {
    char host_source[sizeof b.host_source], dir[sizeof b.data_directory], node_source[sizeof b.node_source],
        machine_source[sizeof b.machine_source];
    one_line(b.host_source, host_source, sizeof host_source);
    one_line(b.data_directory, dir, sizeof dir);
    one_line(b.node_source, node_source, sizeof node_source);
    one_line(b.machine_source, machine_source, sizeof machine_source);
    char buf[16384];  // at most 4 paths, 64 runs and a few numbers
    int len = snprintf(buf, sizeof buf,
                       "%shost %s %s\ndata_directory %s\nsystem_identifier %" PRIu64 "\nnode %d %s\n"
                       "machine %s %s\nsince %" PRId64 "\nrun_start %u\nstate %s\n",
                       kHeader, b.host[0] != '\0' ? b.host : "-", host_source, dir,
                       static_cast<uint64_t>(b.system_identifier), b.node, node_source,
                       b.machine[0] != '\0' ? b.machine : "-", machine_source, static_cast<int64_t>(b.since),
                       b.run_start,
                       b.state == BindingState::due ? "due" : b.state == BindingState::moving ? "moving" : "bound");
    if (b.state == BindingState::moving) {
        len += snprintf(buf + len, sizeof buf - static_cast<size_t>(len),
                        "target %" PRIu64 " %" PRIu64 " %" PRIu64 " %u\n", static_cast<uint64_t>(b.target.variable),
                        static_cast<uint64_t>(b.target.explicit_sequential), static_cast<uint64_t>(b.target.hot_guid),
                        b.target.run_start);
        for (uint32 i = 0; i < locality::kRunSlots; ++i)
            if (b.target.runs[i] != 0)
                len += snprintf(buf + len, sizeof buf - static_cast<size_t>(len),
                                "target_run %u %" PRIu64 " %" PRIu64 "\n", i,
                                static_cast<uint64_t>(b.target.runs[i] >> 32),
                                static_cast<uint64_t>(b.target.runs[i] & 0xFFFFFFFF));
    }
    len += snprintf(buf + len, sizeof buf - static_cast<size_t>(len), "end\n");
    return write_text_durably(kTempFile, kBindingFile, buf, len, sizeof buf);
}

}  // namespace locality_pg
