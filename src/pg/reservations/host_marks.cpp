#include "reservations/host_marks.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstring>

#include <sys/stat.h>
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

// The pointer file (kHostMarksPointer): the host whose starts wrote it,
// the path in use, and paths of earlier starts' files not known removed
// yet ("left"). At most kLeft of them are kept.
constexpr int kLeft = 4;
struct Pointer {
    char host[64];
    char path[MAXPGPATH];
    char left[kLeft][MAXPGPATH];
    int lefts;
};

// False if there is none, or it cannot be parsed.
bool read_pointer(Pointer *p) {
    *p = Pointer{};
    FILE *f = AllocateFile(kHostMarksPointer, "r");
    if (f == nullptr) return false;
    char line[MAXPGPATH + 16];
    bool header = false, have_host = false;
    while (fgets(line, sizeof line, f) != nullptr) {
        line[strcspn(line, "\n")] = '\0';
        if (!header) {
            header = strcmp(line, "locality_uuid host marks file 1") == 0;
            if (!header) break;
        } else if (strncmp(line, "host ", 5) == 0) {
            have_host = strlcpy(p->host, line + 5, sizeof p->host) < sizeof p->host;
        } else if (strncmp(line, "path ", 5) == 0) {
            strlcpy(p->path, line + 5, sizeof p->path);
        } else if (strncmp(line, "left ", 5) == 0 && p->lefts < kLeft) {
            strlcpy(p->left[p->lefts++], line + 5, MAXPGPATH);
        }
    }
    const bool read = close_after_reading(f);
    return read && header && have_host;
}

// Whether a and b name one file: the same path canonical, or the same
// file system object (another spelling, a symbolic link).
bool same_file(const char *a, const char *b) {
    char ca[MAXPGPATH], cb[MAXPGPATH];
    strlcpy(ca, a, sizeof ca);
    strlcpy(cb, b, sizeof cb);
    canonicalize_path(ca);
    canonicalize_path(cb);
    if (strcmp(ca, cb) == 0) return true;
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// Whether the directory holding path exists (else its volume may be
// missing: the file may come back with it).
bool parent_exists(const char *path) {
    char parent[MAXPGPATH];
    strlcpy(parent, path, sizeof parent);
    get_parent_directory(parent);
    struct stat st;
    return stat(parent[0] != '\0' ? parent : ".", &st) == 0;
}

// An earlier start's file at `old`, no longer the setting's: removed if it
// is this server's (its cluster and data directory: a sibling server on
// this host, whose pointer a base backup brought, keeps its own); false if
// it must be tried again at the next start.
bool remove_left(const char *old) {
    HostMarks h;
    switch (read_host_marks_at(old, &h)) {
    case HostMarksRead::corrupt:
    case HostMarksRead::elsewhere: return true;  // never taken by this server
    case HostMarksRead::missing: return parent_exists(old);
    case HostMarksRead::unreadable:
    case HostMarksRead::ok: break;
    }
    if (unlink(old) != 0 && errno != ENOENT) {
        ereport(WARNING, (errcode_for_file_access(),
                          errmsg("locality_uuid: could not remove \"%s\", the host's marks file of an earlier start: %m",
                                 old),
                          errdetail("locality_uuid.host_marks_file is now \"%s\": the file no longer follows this "
                                    "server's ids; every start tries again.",
                                    host_marks_path()),
                          errhint("Remove it by hand before this server leads again after a failover.")));
        return false;
    }
    if (!sync_directory_of(old)) return false;  // (tried again: the removal may not be durable)
    ereport(LOG, (errmsg("locality_uuid: removed \"%s\", the host's marks file of an earlier start", old),
                  errdetail("locality_uuid.host_marks_file is now \"%s\": the file would no longer follow this "
                            "server's ids, and a history that lost the end of its leadership could take it for "
                            "where they end.",
                            host_marks_path())));
    return true;
}

}  // namespace

void settle_host_marks_at_start() {
    if (PG_VERSION_NUM < 150000) return;
    Binding now;
    current_binding(&now);
    if (now.host[0] == '\0') return;  // this host unknown: its pointer cannot be told from a copy's (kept)
    Pointer was;
    const bool ours = read_pointer(&was) && strcmp(was.host, now.host) == 0;
    const char *candidates[kLeft + 1];
    int count = 0;
    if (ours) {  // (a pointer brought from another host names that host's files)
        if (was.path[0] != '\0') candidates[count++] = was.path;
        for (int i = 0; i < was.lefts; ++i) candidates[count++] = was.left[i];
    }
    char buf[(kLeft + 2) * (MAXPGPATH + 8) + 64];
    int len = snprintf(buf, sizeof buf, "locality_uuid host marks file 1\nhost %s\n", now.host);
    const int bare = len;
    if (host_marks_on()) len += snprintf(buf + len, sizeof buf - len, "path %s\n", host_marks_path());
    for (int i = 0, kept = 0; i < count; ++i) {
        if (host_marks_on() && same_file(candidates[i], host_marks_path())) continue;
        if (!remove_left(candidates[i]) && kept < kLeft) {
            len += snprintf(buf + len, sizeof buf - len, "left %s\n", candidates[i]);
            ++kept;
        }
    }
    if (len == bare) {  // nothing to point at
        if (unlink(kHostMarksPointer) == 0) sync_data_directory();
        return;
    }
    if (!write_text_durably("locality_uuid.host_marks.tmp", kHostMarksPointer, buf, len, sizeof buf))
        ereport(WARNING, (errcode_for_file_access(),
                          errmsg("locality_uuid: could not write \"%s\": %m", kHostMarksPointer),
                          errdetail("A later start with another locality_uuid.host_marks_file will not remove the "
                                    "file this one writes.")));
}

bool host_marks_on() {
    return PG_VERSION_NUM >= 150000 && setting_host_marks_file != nullptr && setting_host_marks_file[0] != '\0';
}

bool host_marks_auto() { return setting_host_marks_file != nullptr && strcmp(setting_host_marks_file, "auto") == 0; }

const char *host_marks_path() {
    if (!host_marks_auto()) return setting_host_marks_file != nullptr ? setting_host_marks_file : "";
    // Beside the data directory: DATA_DIRECTORY.locality_uuid_marks (the
    // data directory's path canonical, without a trailing '/').
    static char beside[MAXPGPATH + 32];
    if (beside[0] == '\0' && DataDir != nullptr) {
        char data[MAXPGPATH];
        strlcpy(data, DataDir, sizeof data);
        canonicalize_path(data);
        snprintf(beside, sizeof beside, "%s.locality_uuid_marks", data);
    }
    return beside;
}

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

HostMarksRead read_host_marks(HostMarks *out) { return read_host_marks_at(host_marks_path(), out); }

HostMarksRead read_host_marks_at(const char *path, HostMarks *out) {
    *out = HostMarks{};
    FILE *f = AllocateFile(path, "r");
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
