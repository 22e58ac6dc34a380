#include "identity/lease_record.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" {
#include "storage/fd.h"  // AllocateFile
}

#include "durable_file.hpp"

namespace locality_pg {
namespace {

//   locality_uuid lease 1
//   lease 42 1767225600 lu-2a 0d6b1c1e-5f0e-4d4b-9a51-3f1f7b0f5c2e db1.example.com:5432/registry
//   lease 7 1764547200 lu-7 - db0.example.com:5432/registry
//   end
// (node value, Unix seconds, machine name, the registry's identity or "-",
// then its address to the end of the line), the most recent first.
constexpr const char *kHeader = "locality_uuid lease 1\n";
constexpr const char *kTempFile = "locality_uuid.lease.tmp";

// The next word of *p (up to a space) into out; false if there is none or
// it does not fit.
bool next_word(const char **p, char *out, size_t size) {
    const size_t len = strcspn(*p, " \n");
    if (len == 0 || len >= size || (*p)[len] != ' ') return false;
    memcpy(out, *p, len);
    out[len] = '\0';
    *p += len + 1;
    return true;
}

// One "lease" line into *e; false if it is not one.
bool parse_entry(const char *line, LeaseEntry *e) {
    memset(e, 0, sizeof *e);
    char word[64], *stop = nullptr;
    const char *p = line;
    if (strncmp(p, "lease ", 6) != 0) return false;
    p += 6;
    if (!next_word(&p, word, sizeof word)) return false;
    const long long node = strtoll(word, &stop, 10);
    if (*stop != '\0' || node < 1 || node > 268435455) return false;
    e->node = static_cast<int32>(node);
    if (!next_word(&p, word, sizeof word)) return false;
    e->at = strtoll(word, &stop, 10);
    if (*stop != '\0') return false;
    if (!next_word(&p, e->machine_name, sizeof e->machine_name)) return false;
    if (!next_word(&p, e->identity, sizeof e->identity)) return false;
    if (strcmp(e->identity, "-") == 0) e->identity[0] = '\0';
    const size_t len = strcspn(p, "\n");
    if (len == 0 || len >= sizeof e->registry || p[len] != '\n') return false;
    memcpy(e->registry, p, len);
    return true;
}

bool same_registry(const LeaseEntry &e, const char *registry, const char *identity) {
    return strcmp(e.registry, registry) == 0 || (identity[0] != '\0' && strcmp(e.identity, identity) == 0);
}

}  // namespace

LeaseRecordRead read_lease_record(LeaseRecord *out) {
    memset(out, 0, sizeof *out);
    FILE *f = AllocateFile(kLeaseRecordFile, "r");
    if (f == nullptr) return errno == ENOENT ? LeaseRecordRead::missing : LeaseRecordRead::io_error;
    char line[512];
    bool header = false, end = false, bad = false;
    while (!end && !bad && fgets(line, sizeof line, f) != nullptr) {
        if (!header)
            bad = !(header = strcmp(line, kHeader) == 0);
        else if (strcmp(line, "end\n") == 0)
            end = true;
        else
            bad = out->count == kLeaseEntries || !parse_entry(line, &out->entries[out->count++]);
    }
    if (!close_after_reading(f)) return LeaseRecordRead::io_error;
    return header && end && !bad ? LeaseRecordRead::ok : LeaseRecordRead::corrupt;
}

const LeaseEntry *highest_lease_for(const LeaseRecord &record, const char *registry, const char *identity) {
    const LeaseEntry *highest = nullptr;
    for (int i = 0; i < record.count; ++i)
        if (same_registry(record.entries[i], registry, identity) &&
            (highest == nullptr || record.entries[i].node > highest->node))
            highest = &record.entries[i];
    return highest;
}

void record_lease(LeaseRecord *record, const LeaseEntry &lease) {
    LeaseRecord next{};
    next.entries[next.count++] = lease;
    for (int i = 0; i < record->count && next.count < kLeaseEntries; ++i)
        if (!same_registry(record->entries[i], lease.registry, lease.identity))
            next.entries[next.count++] = record->entries[i];
    *record = next;
}

// Every entry at its longest: the count, the time, a machine name, an
// identity and an address, with their spaces.
static_assert(sizeof(LeaseEntry::registry) + sizeof(LeaseEntry::identity) + sizeof(LeaseEntry::machine_name) + 48 <
                  4096 / (kLeaseEntries + 1),
              "a record of full entries fits write_lease_record's buffer");

bool write_lease_record(const LeaseRecord &record) {
    char buf[4096];
    int len = snprintf(buf, sizeof buf, "%s", kHeader);
    for (int i = 0; i < record.count && len > 0 && static_cast<size_t>(len) < sizeof buf; ++i) {
        const LeaseEntry &e = record.entries[i];
        len += snprintf(buf + len, sizeof buf - static_cast<size_t>(len), "lease %d %" PRId64 " %s %s %s\n", e.node,
                        static_cast<int64_t>(e.at), e.machine_name, e.identity[0] != '\0' ? e.identity : "-",
                        e.registry);
    }
    if (len > 0 && static_cast<size_t>(len) < sizeof buf)
        len += snprintf(buf + len, sizeof buf - static_cast<size_t>(len), "end\n");
    return write_text_durably(kTempFile, kLeaseRecordFile, buf, len, sizeof buf);
}

}  // namespace locality_pg
