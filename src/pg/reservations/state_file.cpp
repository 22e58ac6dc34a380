#include "reservations/state_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>

extern "C" {
#include "storage/fd.h"
}

namespace locality_pg {
namespace {

// Text, one value a line, so a DBA can read it:
//   locality_uuid state 1
//   variable_start 2863311530
//   variable 1048576
//   explicit 0
//   hot 3221225472
//   hot_seconds 1767225603        Hot Guids for the clock carry earlier seconds
//   run 12 2891234 1048576        slot, window + 1, ids reserved
//   system_identifier 7301...     informational (older files lack them)
//   timeline 1
//   end
//   lineage node 3 5 E0 E1 A0 A1  (lineage.hpp) active key, clock, where it entered, its arc then
//   slot node 3 5 L0 S0 L1 S1     an identity: key, last active, where it left and its arc, per counter
//                                 (" exact L" after them: where it stopped cleanly, L the
//                                 stopping start's token;
//                                 " exact host": where its host's marks file put it)
//   stopped node T0 T1 L          the active identity stopped cleanly there, by start L (replayed)
//   stop_record 123456            where that stop's WAL record begins
//   lineage machine ...
//   slot machine ...
//   lineage end
// (Readers of 1.4 and earlier stop at "end".)
constexpr const char *kHeader = "locality_uuid state 1";
constexpr const char *kTempFile = "locality_uuid.state.tmp";

int format_state(const ReservedState &s, char *buf, size_t size) {
    int n = snprintf(buf, size, "%s\nvariable_start %" PRIu32 "\nvariable %" PRIu64 "\nexplicit %" PRIu64
                     "\nhot %" PRIu64 "\nhot_seconds %" PRIu64 "\n",
                     kHeader, s.variable_start, static_cast<uint64_t>(s.variable),
                     static_cast<uint64_t>(s.explicit_sequential), static_cast<uint64_t>(s.hot_guid),
                     static_cast<uint64_t>(s.hot_seconds));
    for (uint32 slot = 0; slot < locality::kRunSlots; ++slot)
        if (s.runs[slot] != 0)
            n += snprintf(buf + n, size - n, "run %" PRIu32 " %" PRIu64 " %" PRIu64 "\n", slot,
                          static_cast<uint64_t>(s.runs[slot] >> 32),
                          static_cast<uint64_t>(s.runs[slot] & 0xFFFFFFFF));
    n += snprintf(buf + n, size - n, "system_identifier %" PRIu64 "\ntimeline %" PRIu32 "\nend\n",
                  static_cast<uint64_t>(s.system_identifier), s.timeline);
    return n;
}

int format_table(const char *name, const locality::LineageTable &t, char *buf, size_t size) {
    int n = snprintf(buf, size, "lineage %s %" PRIu32 " %" PRIu32 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                     name, t.active, t.clock, t.entered[0], t.entered[1], t.arc_at_entry[0], t.arc_at_entry[1]);
    for (const locality::LineageSlot &slot : t.slots) {
        if (slot.key == 0) continue;
        n += snprintf(buf + n, size - n, "slot %s %" PRIu32 " %" PRIu32 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64,
                      name, slot.key, slot.used, slot.last[0], slot.span[0], slot.last[1], slot.span[1]);
        if (slot.exact == locality::kExactHostMarks)
            n += snprintf(buf + n, size - n, " exact host");
        else if (slot.exact != 0)
            n += snprintf(buf + n, size - n, " exact %" PRIu32, slot.stopped_lifetime);
        n += snprintf(buf + n, size - n, "\n");
    }
    if (t.stopped != 0)
        n += snprintf(buf + n, size - n, "stopped %s %" PRIu64 " %" PRIu64 " %" PRIu32 "\n", name, t.stopped_at[0],
                      t.stopped_at[1], t.stopped_lifetime);
    return n;
}

int format_lineage(const locality::Lineage &l, char *buf, size_t size) {
    int n = format_table("node", l.node, buf, size);
    n += format_table("machine", l.machine, buf + n, size - n);
    if (l.stop_record != 0) n += snprintf(buf + n, size - n, "stop_record %" PRIu64 "\n", l.stop_record);
    n += snprintf(buf + n, size - n, "lineage end\n");
    return n;
}

// One lineage line into *l; false if it is not one.
bool parse_lineage_line(const char *line, locality::Lineage *l, int *slots_seen) {
    char name[16];
    uint32_t a = 0, b = 0;
    uint64_t v[4] = {};
    locality::LineageTable *t = nullptr;
    if (sscanf(line, "lineage %15s %" SCNu32 " %" SCNu32 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, name, &a, &b,
               &v[0], &v[1], &v[2], &v[3]) == 7) {
        t = strcmp(name, "node") == 0 ? &l->node : strcmp(name, "machine") == 0 ? &l->machine : nullptr;
        if (t == nullptr) return false;
        t->active = a;
        t->clock = b;
        t->entered[0] = v[0];
        t->entered[1] = v[1];
        t->arc_at_entry[0] = v[2];
        t->arc_at_entry[1] = v[3];
        return true;
    }
    int consumed = 0;
    if (sscanf(line, "slot %15s %" SCNu32 " %" SCNu32 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 "%n", name, &a,
               &b, &v[0], &v[1], &v[2], &v[3], &consumed) == 7) {
        const bool node = strcmp(name, "node") == 0;
        t = node ? &l->node : strcmp(name, "machine") == 0 ? &l->machine : nullptr;
        int &seen = slots_seen[node ? 0 : 1];
        if (t == nullptr || a == 0 || seen >= locality::kLineageSlots) return false;
        locality::LineageSlot &slot = t->slots[seen++];
        slot.key = a;
        slot.used = b;
        slot.last[0] = v[0];
        slot.span[0] = v[1];
        slot.last[1] = v[2];
        slot.span[1] = v[3];
        uint32_t lifetime = 0;  // (" exact" alone: a file of before the token, 0)
        if (strcmp(line + consumed, " exact host\n") == 0)
            slot.exact = locality::kExactHostMarks;
        else if (sscanf(line + consumed, " exact %" SCNu32, &lifetime) == 1 || strcmp(line + consumed, " exact\n") == 0)
            slot.exact = locality::kExactStop;
        slot.stopped_lifetime = slot.exact == locality::kExactStop ? lifetime : 0;
        return true;
    }
    if (sscanf(line, "stop_record %" SCNu64, &v[0]) == 1) {
        l->stop_record = v[0];
        return true;
    }
    a = 0;  // (no token: a file of before it)
    if (sscanf(line, "stopped %15s %" SCNu64 " %" SCNu64 " %" SCNu32, name, &v[0], &v[1], &a) >= 3) {
        t = strcmp(name, "node") == 0 ? &l->node : strcmp(name, "machine") == 0 ? &l->machine : nullptr;
        if (t == nullptr) return false;
        t->stopped = 1;
        t->stopped_lifetime = a;
        t->stopped_at[0] = v[0];
        t->stopped_at[1] = v[1];
        return true;
    }
    return false;
}

}  // namespace

bool write_state_file(const ReservedState &state, bool *renamed, const locality::Lineage *lineage) {
    char buf[12288];
    int len = format_state(state, buf, sizeof buf);
    if (lineage != nullptr) len += format_lineage(*lineage, buf + len, sizeof buf - static_cast<size_t>(len));
    return write_durably(kTempFile, kStateFile, buf, static_cast<size_t>(len), renamed);
}

bool mark_state_in_doubt() {
    const int fd = OpenTransientFile(kDoubtFile, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
    if (fd < 0) return false;
    static const char kText[] =
        "locality_uuid.state could not be read at a start; a superuser must accept the file now there\n";
    bool ok = write_all(fd, kText, sizeof kText - 1) && pg_fsync(fd) == 0;
    const int saved = errno;
    if (CloseTransientFile(fd) != 0) ok = false;
    errno = saved;
    return ok && sync_data_directory();
}

bool state_marked_in_doubt() { return access(kDoubtFile, F_OK) == 0; }

void clear_doubt_mark() {
    if (unlink(kDoubtFile) == 0) sync_data_directory();
}

StateRead read_state_file(ReservedState *state, locality::Lineage *lineage) {
    if (lineage != nullptr) *lineage = locality::Lineage{};
    FILE *f = AllocateFile(kStateFile, "r");
    if (f == nullptr) return errno == ENOENT ? StateRead::missing : StateRead::io_error;
    *state = ReservedState{};
    char line[256];
    bool header = false, end = false, start = false;
    while (fgets(line, sizeof line, f) != nullptr) {
        uint64_t a = 0, b = 0, c = 0;
        uint32_t u = 0;
        if (!header) {
            header = strcmp(line, "locality_uuid state 1\n") == 0;
            if (!header) break;
        } else if (sscanf(line, "variable_start %" SCNu32, &u) == 1) {
            state->variable_start = u;
            start = true;
        } else if (sscanf(line, "variable %" SCNu64, &a) == 1) {
            state->variable = a;
        } else if (sscanf(line, "explicit %" SCNu64, &a) == 1) {
            state->explicit_sequential = a;
        } else if (sscanf(line, "hot %" SCNu64, &a) == 1) {
            state->hot_guid = a;
        } else if (sscanf(line, "hot_seconds %" SCNu64, &a) == 1) {
            state->hot_seconds = a;
        } else if (sscanf(line, "run %" SCNu64 " %" SCNu64 " %" SCNu64, &a, &b, &c) == 3 &&
                   a < locality::kRunSlots && b <= 0xFFFFFFFF && c <= 0xFFFFFFFF) {
            state->runs[a] = (b << 32) | c;
        } else if (sscanf(line, "system_identifier %" SCNu64, &a) == 1) {
            state->system_identifier = a;
        } else if (sscanf(line, "timeline %" SCNu32, &u) == 1) {
            state->timeline = u;
        } else if (strcmp(line, "end\n") == 0) {
            end = true;
            break;
        } else {
            break;
        }
    }
    // The lineage after the marks: used only whole ("lineage end"); a part
    // of one, or none (an older library's file), is no lineage.
    if (end && lineage != nullptr) {
        locality::Lineage read{};
        int slots_seen[2] = {0, 0};
        bool whole = false;
        while (fgets(line, sizeof line, f) != nullptr) {
            if (strcmp(line, "lineage end\n") == 0) {
                whole = true;
                break;
            }
            if (!parse_lineage_line(line, &read, slots_seen)) break;
        }
        if (whole) *lineage = read;
    }
    if (!close_after_reading(f)) return StateRead::io_error;
    return header && start && end ? StateRead::ok : StateRead::corrupt;
}

void raise_marks(ReservedState *into, const ReservedState &from) {
    into->variable = Max(into->variable, from.variable);
    into->explicit_sequential = Max(into->explicit_sequential, from.explicit_sequential);
    into->hot_guid = Max(into->hot_guid, from.hot_guid);
    into->hot_seconds = Max(into->hot_seconds, from.hot_seconds);
    // A run's mark is (window + 1) << 32 | ids: the newer window, or more ids of one.
    for (uint32 i = 0; i < locality::kRunSlots; ++i) into->runs[i] = Max(into->runs[i], from.runs[i]);
}

}  // namespace locality_pg
