#include "identity/lease_record.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstdio>

extern "C" {
#include "storage/fd.h"  // AllocateFile
}

#include "durable_file.hpp"

namespace locality_pg {
namespace {

//   locality_uuid lease 1
//   registry db1.example.com:5432/registry
//   node 42
//   machine lu-2a
//   at 1767225600
//   end
constexpr const char *kHeader = "locality_uuid lease 1\n";
constexpr const char *kTempFile = "locality_uuid.lease.tmp";

// The line's value after "key ", without its newline; false if the line is
// not that key's or the value does not fit.
bool value_of(const char *line, const char *key, char *out, size_t size) {
    const size_t key_len = strlen(key);
    if (strncmp(line, key, key_len) != 0 || line[key_len] != ' ') return false;
    const char *value = line + key_len + 1;
    size_t len = strcspn(value, "\n");
    if (len == 0 || len >= size || value[len] != '\n') return false;
    memcpy(out, value, len);
    out[len] = '\0';
    return true;
}

}  // namespace

LeaseRecordRead read_lease_record(LeaseRecord *out) {
    memset(out, 0, sizeof *out);
    FILE *f = AllocateFile(kLeaseRecordFile, "r");
    if (f == nullptr) return errno == ENOENT ? LeaseRecordRead::missing : LeaseRecordRead::io_error;
    char line[256], number[32];
    bool header = false, registry = false, node = false, machine = false, at = false, end = false;
    while (!end && fgets(line, sizeof line, f) != nullptr) {
        char *stop = nullptr;
        if (!header) {
            header = strcmp(line, kHeader) == 0;
            if (!header) break;
        } else if (value_of(line, "registry", out->registry, sizeof out->registry)) {
            registry = true;
        } else if (value_of(line, "node", number, sizeof number)) {
            const long long v = strtoll(number, &stop, 10);
            if (*stop != '\0' || v < 1 || v > 268435455) break;
            out->node = static_cast<int32>(v);
            node = true;
        } else if (value_of(line, "machine", out->machine_name, sizeof out->machine_name)) {
            machine = true;
        } else if (value_of(line, "at", number, sizeof number)) {
            out->at = strtoll(number, &stop, 10);
            if (*stop != '\0') break;
            at = true;
        } else {
            end = strcmp(line, "end\n") == 0;
            if (!end) break;
        }
    }
    if (!close_after_reading(f)) return LeaseRecordRead::io_error;
    return header && registry && node && machine && at && end ? LeaseRecordRead::ok : LeaseRecordRead::corrupt;
}

bool write_lease_record(const LeaseRecord &record) {
    char buf[512];
    const int len = snprintf(buf, sizeof buf, "%sregistry %s\nnode %d\nmachine %s\nat %" PRId64 "\nend\n", kHeader,
                             record.registry, record.node, record.machine_name, static_cast<int64_t>(record.at));
    if (len < 0 || static_cast<size_t>(len) >= sizeof buf) {
        errno = ENAMETOOLONG;
        return false;
    }
    return write_durably(kTempFile, kLeaseRecordFile, buf, static_cast<size_t>(len));
}

}  // namespace locality_pg
