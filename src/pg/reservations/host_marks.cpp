#include "reservations/host_marks.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstring>

#include <unistd.h>

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

// The pointer file (kHostMarksPointer): the host and the path; false if
// there is none or it cannot be parsed.
bool read_pointer(char *host, size_t host_size, char *path, size_t path_size) {
    FILE *f = AllocateFile(kHostMarksPointer, "r");
    if (f == nullptr) return false;
    char line[MAXPGPATH + 16];
    bool header = false, have_host = false, have_path = false;
    while (fgets(line, sizeof line, f) != nullptr) {
        line[strcspn(line, "\n")] = '\0';
        if (!header) {
            header = strcmp(line, "locality_uuid host marks file 1") == 0;
            if (!header) break;
        } else if (strncmp(line, "host ", 5) == 0) {
            have_host = strlcpy(host, line + 5, host_size) < host_size;
        } else if (strncmp(line, "path ", 5) == 0) {
            have_path = strlcpy(path, line + 5, path_size) < path_size;
        }
    }
    const bool read = close_after_reading(f);
    return read && header && have_host && have_path;
}

}  // namespace

void settle_host_marks_at_start() {
    if (PG_VERSION_NUM < 150000) return;
    Binding now;
    current_binding(&now);
    if (now.host[0] == '\0') return;  // this host unknown: its pointer cannot be told from a copy's
    char host[64], path[MAXPGPATH];
    if (read_pointer(host, sizeof host, path, sizeof path) && strcmp(host, now.host) == 0 &&
        strcmp(path, host_marks_path()) != 0) {
        if (unlink(path) == 0) {
            sync_directory_of(path);
            ereport(LOG, (errmsg("locality_uuid: removed \"%s\", the host's marks file of an earlier start", path),
                          errdetail("locality_uuid.host_marks_file is now \"%s\": the file would no longer follow "
                                    "this server's ids, and a history that lost the end of its leadership could "
                                    "take it for where they end.",
                                    host_marks_path())));
        } else if (errno != ENOENT) {
            ereport(WARNING, (errcode_for_file_access(),
                              errmsg("locality_uuid: could not remove \"%s\", the host's marks file of an earlier "
                                     "start: %m",
                                     path),
                              errdetail("locality_uuid.host_marks_file is now \"%s\": the file no longer follows "
                                        "this server's ids.",
                                        host_marks_path()),
                              errhint("Remove it by hand before this server leads again after a failover.")));
        }
    }
    if (!host_marks_on()) {
        if (unlink(kHostMarksPointer) == 0) sync_data_directory();
        return;
    }
    char buf[MAXPGPATH + 128];
    const int len = snprintf(buf, sizeof buf, "locality_uuid host marks file 1\nhost %s\npath %s\n", now.host,
                             host_marks_path());
    if (!write_text_durably("locality_uuid.host_marks.tmp", kHostMarksPointer, buf, len, sizeof buf))
        ereport(LOG, (errcode_for_file_access(),
                      errmsg("locality_uuid: could not write \"%s\": %m", kHostMarksPointer),
                      errdetail("A later start with another locality_uuid.host_marks_file will not remove \"%s\".",
                                host_marks_path())));
}

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
