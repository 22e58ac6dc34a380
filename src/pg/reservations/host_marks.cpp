#include "reservations/host_marks.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstring>

extern "C" {
#include "access/xlog.h"  // GetSystemIdentifier
#include "storage/fd.h"     // AllocateFile
}

#include "durable_file.hpp"
#include "settings.hpp"

// The file, text like the state file:
//   locality_uuid host marks 1
//   system_identifier 7301234567890123456
//   data_directory /var/lib/postgresql/15/main   (the rest of the line)
//   lifetime 2718281828                          the token of the server start that wrote it
//   node 7102 5 4198400 2097152                  key, entry clock, variable and given-time marks
//   machine 654321 6 1048576                     key, entry clock, Hot Guid draw mark
//   end
// (key 0: no identity was active in that table.)
namespace locality_pg {
namespace {

// The entry clock of the identity active in t (0: none).
uint32 active_used(const locality::LineageTable &t) {
    const locality::LineageSlot *s = locality::lineage_find(t, t.active);
    return s != nullptr ? s->used : 0;
}

}  // namespace

bool host_marks_on() {
    return PG_VERSION_NUM >= 150000 && setting_host_marks_file != nullptr && setting_host_marks_file[0] != '\0';
}

const char *host_marks_path() { return setting_host_marks_file != nullptr ? setting_host_marks_file : ""; }

bool write_host_marks(const ReservedState &marks, const locality::Lineage &l, uint32 lifetime) {
    const uint32 node_used = active_used(l.node), machine_used = active_used(l.machine);
    const uint32 node_key = node_used != 0 ? l.node.active : 0;
    const uint32 machine_key = machine_used != 0 ? l.machine.active : 0;
    char buf[MAXPGPATH + 512];
    const int len = snprintf(buf, sizeof buf,
                             "locality_uuid host marks 1\nsystem_identifier %" PRIu64 "\ndata_directory %s\nlifetime %" PRIu32 "\n"
                             "node %" PRIu32 " %" PRIu32 " %" PRIu64 " %" PRIu64 "\n"
                             "machine %" PRIu32 " %" PRIu32 " %" PRIu64 "\nend\n",
                             static_cast<uint64_t>(GetSystemIdentifier()), DataDir, lifetime, node_key, node_used,
                             static_cast<uint64_t>(marks.variable), static_cast<uint64_t>(marks.explicit_sequential),
                             machine_key, machine_used, static_cast<uint64_t>(marks.hot_guid));
    // (A temporary name of this process's own: two servers given one path
    // by mistake do not rename each other's half-written file.)
    char temp[MAXPGPATH + 24];
    if (snprintf(temp, sizeof temp, "%s.%d.tmp", host_marks_path(), MyProcPid) >= static_cast<int>(sizeof temp)) {
        errno = ENAMETOOLONG;
        return false;
    }
    return write_text_durably(temp, host_marks_path(), buf, len, sizeof buf);
}

HostMarksRead read_host_marks(HostMarks *out) {
    *out = HostMarks{};
    FILE *f = AllocateFile(host_marks_path(), "r");
    if (f == nullptr) return errno == ENOENT ? HostMarksRead::missing : HostMarksRead::unreadable;
    char line[MAXPGPATH + 64];
    bool header = false, end = false, ours_system = false, ours_directory = false, node = false, machine = false;
    while (fgets(line, sizeof line, f) != nullptr) {
        uint64_t a = 0, b = 0;
        uint32_t k = 0, u = 0;
        if (!header) {
            header = strcmp(line, "locality_uuid host marks 1\n") == 0;
            if (!header) break;
        } else if (sscanf(line, "system_identifier %" SCNu64, &a) == 1) {
            ours_system = a == GetSystemIdentifier();
        } else if (strncmp(line, "data_directory ", 15) == 0) {
            line[strcspn(line, "\n")] = '\0';
            ours_directory = strcmp(line + 15, DataDir) == 0;
        } else if (sscanf(line, "lifetime %" SCNu32, &u) == 1) {
            out->lifetime = u;
        } else if (sscanf(line, "node %" SCNu32 " %" SCNu32 " %" SCNu64 " %" SCNu64, &k, &u, &a, &b) == 4) {
            out->key[0] = k;
            out->used[0] = u;
            out->marks[0][0] = a;
            out->marks[0][1] = b;
            node = true;
        } else if (sscanf(line, "machine %" SCNu32 " %" SCNu32 " %" SCNu64, &k, &u, &a) == 3) {
            out->key[1] = k;
            out->used[1] = u;
            out->marks[1][0] = a;
            machine = true;
        } else if (strcmp(line, "end\n") == 0) {
            end = true;
            break;
        } else {
            break;
        }
    }
    if (!close_after_reading(f)) return HostMarksRead::unreadable;
    if (!(header && end && node && machine)) {
        *out = HostMarks{};
        return HostMarksRead::corrupt;
    }
    if (!ours_system || !ours_directory) {
        *out = HostMarks{};
        return HostMarksRead::elsewhere;
    }
    return HostMarksRead::ok;
}

}  // namespace locality_pg
