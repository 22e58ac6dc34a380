// Moving the counters of a copy past fresh random points, and binding them
// where the server runs (dealign.hpp).
//
// Every move goes through the same four steps, so that it is made once:
//   1. its target is drawn (each counter and held run past its mark by a
//      random distance, and a run start away from the origin's);
//   2. the binding file records "moving" with that target, durably: from
//      here on a crash or a failed write completes this move, with this
//      target, never draws another (two moves from one mark could add up
//      to land near where the first started);
//   3. the target is applied in shared memory, and the state file written;
//   4. the binding file records "bound".
// No server-wide id is made before step 3's file write: the moved marks
// equal the counters, so every first draw refills (file, then WAL).
#include "reservations/dealign.hpp"
#include "reservations/stop.hpp"

#include <cerrno>
#include <cstdlib>

extern "C" {
#include "access/xlog.h"  // GetSystemIdentifier
}

#include "generator.hpp"
#include "counters/generation_errors.hpp"
#include "identity/lease.hpp"
#include "reservations/binding_file.hpp"
#include "reservations/host_marks.hpp"
#include "settings.hpp"
#include "reservations/marks.hpp"
#include "reservations/reservation.hpp"
#include "reservations/restore_steps.hpp"

namespace locality_pg {
namespace {

// moves_pending: nothing to do; a move is due before the first id (its
// target not drawn yet); a move's target is drawn (s->move_target) but not
// yet recorded, applied and written.
constexpr uint32 kNoMove = 0;
constexpr uint32 kMoveDue = 1;
constexpr uint32 kMoveDrawn = 2;

// What the start decided (the postmaster, between check_binding_at_start
// and bind_after_start).
enum class StartAction : uint8 { none, bind, rebind, moved, completed, deferred };
struct StartDecision {
    BindingRead read;  // of locality_uuid.binding
    bool before_known;
    Binding before;
    StartAction action;
    char why[MAXPGPATH + 128];
    // WARNING for what may be a copy; LOG for what is known to be this
    // server's own doing (an upgrade from a library that bound nothing, a
    // host identity changed through the settings, a recovery's due move).
    int level;
};
StartDecision at_start;

// The binding before an accept's move, for its log line (under the lock).
Binding accepted_before;
bool accepted_before_known;

constexpr size_t kDescribed = 6 * MAXPGPATH;

// This server's binding now, in `state`, with run start and target.
void binding_here(Binding *b, BindingState state, uint32 run_start, const MoveTarget *target) {
    current_binding(b);
    b->state = state;
    b->run_start = run_start;
    if (target != nullptr) b->target = *target;
}

// Writes b; on failure logs it (what happens next in `then`) and returns false.
bool write_binding_or_log(const Binding &b, const char *then) {
    if (write_binding_file(b)) return true;
    ereport(LOG, (errcode_for_file_access(), errmsg("locality_uuid: could not write \"%s\": %m", kBindingFile),
                  errdetail("%s", then)));
    return false;
}

void log_binding(int level, const char *message, const char *why, const Binding *before, const Binding &now) {
    char *was = static_cast<char *>(palloc(kDescribed));
    char *is = static_cast<char *>(palloc(kDescribed));
    if (before != nullptr)
        describe_binding(*before, was, kDescribed);
    else
        strlcpy(was, "unknown", kDescribed);
    describe_binding(now, is, kDescribed);
    // The copy's HINT only where a copy is what the move may be about
    // (WARNING); a move graded LOG says what it is in its message.
    if (why != nullptr && level >= WARNING)
        ereport(level, (errmsg("locality_uuid: %s: %s", message, why),
                        errdetail("Bound before: %s. Bound now: %s, run start %u.", was, is, now.run_start),
                        errhint("A copy and its origin continue from unrelated places; give each server its own "
                                "locality_uuid.node_id and locality_uuid.machine_name (README, \"Node identity\").")));
    else if (why != nullptr)
        ereport(level, (errmsg("locality_uuid: %s: %s", message, why),
                        errdetail("Bound before: %s. Bound now: %s, run start %u.", was, is, now.run_start)));
    else
        ereport(level, (errmsg("locality_uuid: %s", message),
                        errdetail("Bound before: %s. Bound now: %s, run start %u.", was, is, now.run_start)));
    pfree(was);
    pfree(is);
}

// The lineage keys (lineage.hpp) of this server's node value and machine
// bytes now (0: unknown, as before a start's lease), from its binding now
// if the caller has it (current_binding), else read here.
void identity_keys(uint32 *node_key, uint32 *machine_key, const Binding *known_now = nullptr) {
    *node_key = *machine_key = 0;
    if (leases_on() && !lease_held()) return;  // this start's values are not known yet
    Binding read;
    if (known_now == nullptr) current_binding(&read);
    const Binding &now = known_now != nullptr ? *known_now : read;
    *node_key = locality::lineage_key(now.node);
    *machine_key = now.machine[0] != '\0' ? locality::lineage_key(strtol(now.machine, nullptr, 16)) : 0;
}

// Where the lineage's counters stand: each counter or its reserved mark,
// the higher (node: variable, given-time; machine: Hot Guid draws).
void lineage_positions(SharedCounters *s, uint64 *node, uint64 *machine) {
    const ReservedState marks = snapshot(s);
    node[0] = Max(pg_atomic_read_u64(&s->variable.value), marks.variable);
    node[1] = Max(pg_atomic_read_u64(&s->explicit_sequential.value), marks.explicit_sequential);
    machine[0] = Max(pg_atomic_read_u64(&s->hot_draws.value), marks.hot_guid);
}

// The identity making ids is now this server's values, without a move (the
// lineage's own record of it; the counters stay).
void rebind_lineage(SharedCounters *s, const Binding *known_now = nullptr) {
    uint32 node_key, machine_key;
    identity_keys(&node_key, &machine_key, known_now);
    if (node_key == s->lineage.node.active && machine_key == s->lineage.machine.active) return;
    uint64 node[locality::kLineageCounters], machine[locality::kLineageCounters] = {};
    lineage_positions(s, node, machine);
    // A replayed clean stop is taken only by a move that confirmed it
    // (draw_target): here the identity leaves at its marks.
    forget_stop(&s->lineage);
    locality::lineage_rebind(s->lineage.node, locality::kNodeCycles, node_key, node);
    locality::lineage_rebind(s->lineage.machine, locality::kMachineCycles, machine_key, machine);
    s->lineage_unlogged = true;
}

// How a move to key went (the rule lineage_move took), for its log line;
// `host`: what its host's marks file said of it ("" if nothing to say).
void describe_lineage_move(const locality::LineageMoveTaken &taken, uint32 key, const char *what, const char *host,
                           char *out, size_t size) {
    switch (taken.rule) {
    case locality::LineageRule::unknown:
        snprintf(out, size, "%s unknown: a random distance", what);
        break;
    case locality::LineageRule::copy:
        snprintf(out, size, "%s %u the active one (a copy): a random distance off its own arc", what, key - 1);
        break;
    case locality::LineageRule::returning:
        if (taken.exact == locality::kExactStop)
            snprintf(out, size, "%s %u stopped cleanly in this history: where it stopped, at " UINT64_FORMAT, what,
                     key - 1, static_cast<uint64>(taken.left_at));
        else if (taken.exact == locality::kExactHostMarks)
            snprintf(out, size, "%s %u made ids in this history before: at its host's marks, " UINT64_FORMAT " (%s)",
                     what, key - 1, static_cast<uint64>(taken.left_at), host);
        else
            snprintf(out, size, "%s %u made ids in this history before: above where it left, at " UINT64_FORMAT "%s%s%s",
                     what, key - 1, static_cast<uint64>(taken.left_at), host[0] != '\0' ? " (" : "", host,
                     host[0] != '\0' ? ")" : "");
        break;
    case locality::LineageRule::returning_untrusted:
        snprintf(out, size, "%s %u made ids in a history this one may not know all of (not a standby's, or "
                 "before PostgreSQL 15): a random distance", what, key - 1);
        break;
    case locality::LineageRule::new_identity:
        snprintf(out, size, "%s %u new to this history: a random distance", what, key - 1);
        break;
    }
}

// What this host's marks file (host_marks.hpp) says of the identities
// about to return, keys[0] (node) and keys[1] (machine): taken into the
// lineage where it is of their last leadership and not behind this
// history's word (lineage_witness); why not, or where this history had
// them leave, in notes[i] for the move's log line.
constexpr size_t kHostNote = 112;
void witness_host_marks(SharedCounters *s, const uint32 *keys, char (*notes)[kHostNote]) {
    locality::LineageTable *tables[2] = {&s->lineage.node, &s->lineage.machine};
    const locality::LineageCycles *cycles[2] = {&locality::kNodeCycles, &locality::kMachineCycles};
    HostMarks h;
    const HostMarksRead read = read_host_marks(&h);
    const int read_errno = errno;
    for (int i = 0; i < 2; ++i) {
        notes[i][0] = '\0';
        const locality::LineageSlot *slot =
            keys[i] != tables[i]->active ? locality::lineage_find(*tables[i], keys[i]) : nullptr;
        // Not a return, or one exact by the file already; a clean stop is
        // looked at only in a readable file (a later start's draws).
        if (slot == nullptr || slot->exact == locality::kExactHostMarks ||
            (slot->exact == locality::kExactStop && read != HostMarksRead::ok))
            continue;
        const uint64 left = slot->last[0];
        switch (read) {
        case HostMarksRead::missing: strlcpy(notes[i], "its host's marks file does not exist", kHostNote); continue;
        case HostMarksRead::unreadable:
            snprintf(notes[i], kHostNote, "its host's marks file could not be read: %s", strerror(read_errno));
            continue;
        case HostMarksRead::corrupt: strlcpy(notes[i], "its host's marks file is corrupt", kHostNote); continue;
        case HostMarksRead::elsewhere:
            strlcpy(notes[i], "its host's marks file is another cluster's or data directory's", kHostNote);
            continue;
        case HostMarksRead::ok: break;
        }
        if (h.key[i] != keys[i]) {
            strlcpy(notes[i], "its host's marks file is another identity's", kHostNote);
            continue;
        }
        switch (locality::lineage_witness(*tables[i], *cycles[i], keys[i], h.used[i], h.lifetime, h.marks[i])) {
        case locality::LineageWitness::taken:
            snprintf(notes[i], kHostNote, "this history had it leave at " UINT64_FORMAT, left);
            break;
        case locality::LineageWitness::taken_after_stop:
            snprintf(notes[i], kHostNote, "it stopped cleanly at " UINT64_FORMAT ", then drew in a later start",
                     left);
            break;
        case locality::LineageWitness::raised:
            snprintf(notes[i], kHostNote,
                     "raised from " UINT64_FORMAT " to its host's marks, of another leadership", left);
            break;
        case locality::LineageWitness::behind:
            snprintf(notes[i], kHostNote, "its host's marks file, at " UINT64_FORMAT ", is behind this history",
                     static_cast<uint64>(h.marks[i][0]));
            break;
        case locality::LineageWitness::not_returning:
        case locality::LineageWitness::already_exact: break;
        }
    }
}

// Step 1: the target of a move from where s stands, drawn away from the
// run start `origin_start` (the one the counters were bound with). The
// variable, given-time and Hot Guid counters go by the lineage
// (lineage.hpp): just above where this server's identity left them if it
// made ids in this history before, at a random distance otherwise; the
// lineage records the move at once (it is drawn once, and applied as
// drawn: a crash completes this target). `returns_trusted`: the lineage is
// the newest word on the identities it knows (the end of a standby's
// recovery, 15+); otherwise a known identity moves at random, as a new one.
MoveTarget draw_target(SharedCounters *s, const FreshCounters &fresh, uint32 origin_start, bool returns_trusted) {
    const ReservedState marks = snapshot(s);
    MoveTarget t{};
    uint32 node_key, machine_key;
    identity_keys(&node_key, &machine_key);
    uint64 node[locality::kLineageCounters], machine[locality::kLineageCounters] = {};
    lineage_positions(s, node, machine);
    const uint64 node_random[locality::kLineageCounters] = {fresh.lineage[0], fresh.lineage[1]};
    const uint64 machine_random[locality::kLineageCounters] = {fresh.lineage[2], 0};
    // Before PostgreSQL 15 the lineage reaches a standby only in the state
    // file of its base backup: too old to place a returning identity by.
    const bool trust_returns = PG_VERSION_NUM >= 150000 && returns_trusted;
    // A clean stop the lineage holds (replayed): exact only if confirmed by
    // the WAL after it (stop.hpp); else the identity leaves at its marks.
    if (s->lineage.node.stopped != 0 || s->lineage.machine.stopped != 0) {
        if (!trust_returns || !stop_confirmed(s->lineage.stop_record)) forget_stop(&s->lineage);
        s->lineage.stop_record = 0;
    }
    // A returning identity's lost tail, from its host's marks file.
    char host_notes[2][kHostNote] = {"", ""};
    const uint32 keys[2] = {node_key, machine_key};
    if (trust_returns && host_marks_on()) witness_host_marks(s, keys, host_notes);
    uint64 node_target[locality::kLineageCounters], machine_target[locality::kLineageCounters] = {};
    const locality::LineageMoveTaken node_taken = locality::lineage_move(
        s->lineage.node, locality::kNodeCycles, node_key, node, node_random, node_target, trust_returns);
    const locality::LineageMoveTaken machine_taken = locality::lineage_move(
        s->lineage.machine, locality::kMachineCycles, machine_key, machine, machine_random, machine_target,
        trust_returns);
    char node_how[254], machine_how[254];  // (both and "; " fit move_lineage)
    describe_lineage_move(node_taken, node_key, "node value", host_notes[0], node_how, sizeof node_how);
    describe_lineage_move(machine_taken, machine_key, "machine bytes", host_notes[1], machine_how,
                          sizeof machine_how);
    snprintf(s->move_lineage, sizeof s->move_lineage, "%s; %s", node_how, machine_how);
    s->lineage_unlogged = true;
    t.variable = node_target[0];
    t.explicit_sequential = node_target[1];
    t.hot_guid = machine_target[0];
    for (uint32 i = 0; i < locality::kRunSlots; ++i) {
        const uint64 from = Max(pg_atomic_read_u64(&s->runs[i].value), marks.runs[i]);
        if ((from >> 32) == 0) continue;  // no window's run: it starts at the run start
        const uint64 place = Min((from & 0xFFFFFFFF) + fresh.run_jump, static_cast<uint64>(locality::kRunIds));
        t.runs[i] = ((from >> 32) << 32) | place;
    }
    // A run start a quarter of 2^24 or more from the origin's: the two runs
    // of a window stand 2^22 places apart or more.
    t.run_start = (origin_start + (1U << 22) + fresh.run_start % (1U << 23)) & (locality::kRunStartLimit - 1);
    return t;
}

// Without a state file, the record is all that is known of where the
// counters stood: they start there, not at fresh random points above it
// (a copy that moves on from those would stand as near its origin as
// chance puts it, for Hot Guids within 2^24 draws one time in 40 at
// 200,000 ids a side). The postmaster at start: nothing generates.
void start_at_target(SharedCounters *s, const MoveTarget &t) {
    pg_atomic_write_u64(&s->variable.value, t.variable);
    pg_atomic_write_u64(&s->explicit_sequential.value, t.explicit_sequential);
    pg_atomic_write_u64(&s->hot_draws.value, t.hot_guid);
    ReservedState marks = snapshot(s);
    marks.variable = t.variable;
    marks.explicit_sequential = t.explicit_sequential;
    marks.hot_guid = t.hot_guid;
    publish(s, marks);
}

// Step 3 in shared memory: every counter and mark raised to the target
// (raising never repeats an id, so applying a target twice is applying it
// once), the clock Hot Guid second handled, the run start taken. Nothing
// may generate meanwhile.
void apply_target(SharedCounters *s, const MoveTarget &t) {
    ReservedState marks = snapshot(s);
    // A second opened for a clock behind the reserved seconds (at start or
    // at the end of recovery: its window starts at the draw mark) holds no
    // id yet: it opens again from the moved draw. Any other newest second
    // may hold the origin's ids: it counts as full.
    const uint64 hot_second = pg_atomic_read_u64(&s->hot_second.value);
    const bool opened_unused = hot_second != 0 && pg_atomic_read_u64(&s->hot_opened.value) == marks.hot_guid;
    const uint64 from[3] = {pg_atomic_read_u64(&s->variable.value), pg_atomic_read_u64(&s->explicit_sequential.value),
                            pg_atomic_read_u64(&s->hot_draws.value)};
    marks.variable = Max(marks.variable, t.variable);
    marks.explicit_sequential = Max(marks.explicit_sequential, t.explicit_sequential);
    marks.hot_guid = Max(marks.hot_guid, t.hot_guid);
    // The moved identity's Hot Guid refills grow from the first again: a
    // leadership's unused tail is about its own draws (reservation.hpp).
    s->hot_step = 0;
    raise_counter(&s->variable.value, marks.variable);
    raise_counter(&s->explicit_sequential.value, marks.explicit_sequential);
    raise_counter(&s->hot_draws.value, marks.hot_guid);
    for (uint32 i = 0; i < locality::kRunSlots; ++i) {
        if (t.runs[i] == 0) continue;
        marks.runs[i] = Max(marks.runs[i], t.runs[i]);
        raise_counter(&s->runs[i].value, marks.runs[i]);
    }
    publish(s, marks);
    if (opened_unused)
        open_hot_second(s, (hot_second >> 32) - 1, pg_atomic_read_u64(&s->hot_seconds_until.value));
    else
        close_hot_seconds(s);
    pg_atomic_write_u32(&s->run_start, t.run_start);
    // Where each counter stood and goes on from: what the server's own
    // marks (its file, the WAL it replayed) held shows in "from".
    ereport(LOG, (errmsg("locality_uuid: counters moved: variable from " UINT64_FORMAT " to " UINT64_FORMAT
                         ", given-time from " UINT64_FORMAT " to " UINT64_FORMAT ", Hot Guid from " UINT64_FORMAT
                         " to " UINT64_FORMAT ", run start %u",
                         from[0], static_cast<uint64>(pg_atomic_read_u64(&s->variable.value)), from[1],
                         static_cast<uint64>(pg_atomic_read_u64(&s->explicit_sequential.value)), from[2],
                         static_cast<uint64>(pg_atomic_read_u64(&s->hot_draws.value)), t.run_start),
                  s->move_lineage[0] != '\0' ? errdetail("By the lineage: %s.", s->move_lineage) : 0));
    s->move_lineage[0] = '\0';
}

// Why the counters must move at a start that replays nothing ("" if not),
// and how loudly (*level). Whatever cannot be known (no binding file
// beside a state file: a copy, or a server that ran a library before the
// binding) counts as elsewhere: a move costs next to nothing, a missed one
// repeats ids. A host identity file that cannot be read is not "elsewhere"
// but unknown: the place is then judged by data directory and system
// identifier alone, and the host waits for the file (settle_identity).
void why_move(const Binding &stored, BindingRead read, const Binding &now, const ReservedState &saved,
              bool restored, char *why, size_t size, int *level) {
    why[0] = '\0';
    *level = WARNING;
    if (!restored) return;  // fresh counters: nothing to move away from
    const uint64 ours = GetSystemIdentifier();
    const bool host_unknown = now.host[0] == '\0' && host_identity_unreadable();
    if (saved.system_identifier != 0 && saved.system_identifier != ours) {
        snprintf(why, size, "\"%s\" was written by another cluster (system identifier " UINT64_FORMAT ")",
                 kStateFile, static_cast<uint64>(saved.system_identifier));
    } else if (read == BindingRead::corrupt || read == BindingRead::io_error) {
        snprintf(why, size, "\"%s\" could not be read", kBindingFile);
    } else if (read == BindingRead::missing) {
        // This cluster's state file without a binding: the first start of
        // 1.3 on a file of 1.2 (which bound nothing), or a binding file
        // removed. A copy made under 1.2 looks the same, hence the move;
        // nothing here suggests one, hence LOG.
        snprintf(why, size,
                 "first start with a binding: \"%s\" is this cluster's, and no \"%s\" is beside it (a library "
                 "before 1.3 bound nothing, or the file was removed); moved once, as a copy made before would be",
                 kStateFile, kBindingFile);
        *level = LOG;
    } else if (stored.state == BindingState::due) {
        snprintf(why, size, "recovery replayed another server's WAL before this start");
        *level = LOG;
    } else if (now.host[0] == '\0' && !host_unknown) {
        snprintf(why, size, "this host's identity cannot be read (%s)", now.host_source);
    } else if (host_unknown ? !(stored.system_identifier == now.system_identifier &&
                                 strcmp(stored.data_directory, now.data_directory) == 0)
                            : !same_place(stored, now)) {
        const bool other_system = stored.system_identifier != now.system_identifier;
        const bool other_directory = strcmp(stored.data_directory, now.data_directory) != 0;
        if (!other_system && !other_directory && strcmp(stored.host_source, now.host_source) != 0) {
            // Same cluster, same directory, the identity read from another
            // source: the settings changed (locality_uuid.host_identity_file
            // set or changed). A clone whose operator changed it looks the
            // same: moved, but said as what it most likely is.
            // (Cut at size if the two sources are that long: a log line.)
            if (snprintf(why, size, "the host identity now comes from %s (it came from %s): moved once, as for "
                         "another host", now.host_source, stored.host_source) < 0)
                why[0] = '\0';
            *level = LOG;
        } else {
            snprintf(why, size, "the counters were bound elsewhere; this server started %s",
                     other_system ? "with another system identifier"
                     : other_directory ? "in another data directory"
                                       : "on another host");
        }
    }
}

// Draws a move from where s stands (away from s's run start, the one the
// counters were bound with), records it in the binding file, and applies
// it; if the record cannot be written, leaves it drawn for the first id
// (settle_moves: ids fail until it can be written) and returns false.
// Nothing generates meanwhile: the postmaster at start, or the lock's
// holder before the counters are published as available.
bool move_now(SharedCounters *s, const FreshCounters &fresh, const char *why) {
    s->move_target = draw_target(s, fresh, pg_atomic_read_u32(&s->run_start), /* returns_trusted */ false);
    strlcpy(s->move_why, why, sizeof s->move_why);
    Binding moving;
    binding_here(&moving, BindingState::moving, s->move_target.run_start, &s->move_target);
    if (!write_binding_or_log(moving, "Server-wide ids wait until the move is recorded there.")) {
        pg_atomic_write_u32(&s->moves_pending, kMoveDrawn);
        return false;
    }
    apply_target(s, s->move_target);
    // What the file says now: not bound (a rebind leaves it alone).
    s->bound = moving;
    s->bound_known = true;
    return true;
}

// Once the state file holds a move applied by move_now: the binding file
// says bound (if it cannot, it keeps saying "moving", and the next start
// here completes the same move), and the move is logged.
void finish_move(SharedCounters *s, const Binding *before, const char *why, int level) {
    Binding now;
    binding_here(&now, BindingState::bound, pg_atomic_read_u32(&s->run_start), nullptr);
    if (write_binding_or_log(now, "It says \"moving\": the next start here completes the same move.")) {
        s->bound = now;
        s->bound_known = true;
    }
    log_binding(level, "server-wide counters moved past fresh random points", why, before, now);
}

}  // namespace

void read_binding_at_start(SharedCounters *s) {
    at_start = StartDecision{};
    at_start.read = read_binding_file(&at_start.before);
    at_start.before_known = at_start.read == BindingRead::ok;
    s->bound_known = at_start.before_known;
    if (s->bound_known) s->bound = at_start.before;
    // The run start the counters were bound with (for a binding due to
    // move, the origin's): a move draws its own away from it. Libraries
    // before the binding started every run at 0.
    pg_atomic_write_u32(&s->run_start, at_start.before_known ? at_start.before.run_start : 0);
    if (!s->replays_another) return;
    // Its origin may make ids until this server ends recovery: the move
    // waits for its first id then, whatever the file (in doubt, unreadable)
    // holds meanwhile; and the binding file says so, for a restart after
    // the promotion but before that id.
    pg_atomic_write_u32(&s->moves_pending, kMoveDue);
    strlcpy(s->move_why, "recovery replayed another server's WAL", sizeof s->move_why);
    Binding due;
    binding_here(&due, BindingState::due, pg_atomic_read_u32(&s->run_start), nullptr);
    write_binding_or_log(due, "A restart before the first id after recovery may then not move the counters.");
}

void check_binding_at_start(SharedCounters *s, const ReservedState &saved, bool restored,
                            const FreshCounters &fresh) {
    if (s->replays_another) return;
    const Binding &stored = at_start.before;
    Binding now;
    current_binding(&now);
    const bool same_cluster = saved.system_identifier == 0 || saved.system_identifier == GetSystemIdentifier();
    if (at_start.before_known && stored.state == BindingState::moving) {
        // A move that a crash or a failed write interrupted: completed with
        // its recorded target where it was made. Anywhere else (a copy of
        // a directory whose move never finished) the target is applied,
        // raising only, and the copy moves on its own below.
        if (!restored) start_at_target(s, stored.target);
        apply_target(s, stored.target);
        s->start_target = stored.target;
        s->start_moved = true;
        // The lineage the file holds may predate the move (it was written
        // with the state file): this identity from the target on.
        rebind_lineage(s);
        if (same_place(stored, now) && same_cluster) {
            strlcpy(at_start.why, "completing the move recorded before the last stop", sizeof at_start.why);
            s->bound = stored;  // "moving" until the file holds it
            at_start.action = StartAction::completed;
            return;
        }
    }
    why_move(stored, at_start.read, now, saved, restored, at_start.why, sizeof at_start.why, &at_start.level);
    // A host identity file that cannot be read, and nothing else to move
    // for: server-wide ids wait until it can be read (settle_identity),
    // then the start's decision is made with it.
    if (at_start.why[0] == '\0' && host_identity_unreadable()) {
        pg_atomic_write_u32(&s->identity_unreadable, 1);
        at_start.action = StartAction::none;
        ereport(WARNING, (errmsg("locality_uuid: could not read the host identity file \"%s\": server-wide ids wait "
                                 "until it can be read",
                                 setting_host_identity_file),
                          errdetail("The server-wide counters are bound to the host identity it holds; without it "
                                    "this start cannot tell this host from another, and moving the counters at "
                                    "every such start would bring them nearer their own earlier ids."),
                          errhint("Make the file readable by the server (its first line is the host identity); "
                                  "ids are made again without a restart.")));
        return;
    }
    // The origin completes that same target at its next start: a copy that
    // stands on it (even without a state file of its own) moves on.
    if (at_start.why[0] == '\0' && at_start.before_known && stored.state == BindingState::moving)
        strlcpy(at_start.why, "a move recorded elsewhere was never completed here", sizeof at_start.why);
    // With leases every start carries values no other start had: a copy's
    // ids cannot meet its origin's whatever its counters, and the move is
    // a second fence, not news (no HINT to give it values of its own).
    if (at_start.why[0] != '\0' && leases_on()) at_start.level = LOG;
    if (at_start.why[0] == '\0') {
        at_start.action = !at_start.before_known || stored.state != BindingState::bound ? StartAction::bind
                          // (With leases the values are this start's lease, taken later:
                          // bound at the first id, rebind_values.)
                          : !leases_on() && !same_values(stored, now)                 ? StartAction::rebind
                                                                                      : StartAction::none;
        if (!at_start.before_known) pg_atomic_write_u32(&s->run_start, fresh.run_start);  // a start of its own
        // The lineage's identity: this server's (a new cluster, a file of
        // a library before the lineage, new values; nothing if the same).
        rebind_lineage(s);
        return;
    }
    at_start.action = move_now(s, fresh, at_start.why) ? StartAction::moved : StartAction::deferred;
    if (at_start.action == StartAction::moved) {
        // A floor the start's own move sets for a release replayed after
        // it (the move above may have raised a completed move's further).
        for (uint32 i = 0; i < locality::kRunSlots; ++i)
            s->start_target.runs[i] = Max(s->start_target.runs[i], s->move_target.runs[i]);
        s->start_moved = true;
    }
}

bool start_moved_counters() {
    return at_start.action == StartAction::moved || at_start.action == StartAction::completed;
}

void bind_after_start(SharedCounters *s, bool marks_written) {
    if (s->replays_another) return;
    Binding now;
    switch (at_start.action) {
        case StartAction::none:
        case StartAction::deferred:
            return;
        case StartAction::moved:
        case StartAction::completed:
            // Bound only once the file holds the moved marks; until then the
            // binding says "moving", and the next start completes the move.
            if (!marks_written) return;
            finish_move(s, at_start.before_known ? &at_start.before : nullptr, at_start.why,
                        at_start.action == StartAction::moved ? at_start.level : LOG);
            return;
        case StartAction::bind:
        case StartAction::rebind:
            binding_here(&now, BindingState::bound, pg_atomic_read_u32(&s->run_start), nullptr);
            write_binding_or_log(now, "The next start writes it again.");
            s->bound = now;
            s->bound_known = true;
            log_binding(LOG,
                        at_start.action == StartAction::bind
                            ? "server-wide counters bound here"
                            : "the node value, the machine name or where they come from changed",
                        nullptr, at_start.action == StartAction::rebind ? &at_start.before : nullptr, now);
            return;
    }
}

void settle_moves(SharedCounters *s) {
    const FreshCounters fresh = fresh_counters();  // before the lock: it may block
    acquire_counters_lock(s);
    const uint32 pending = pg_atomic_read_u32(&s->moves_pending);
    if (pending == kNoMove) {
        release_counters_lock(s);
        return;
    }
    if (pending == kMoveDue) {
        // Drawn once: however often the steps below fail, this target.
        // (After a standby's recovery its lineage is its primary's newest.)
        s->move_target = draw_target(s, fresh, pg_atomic_read_u32(&s->run_start), s->standby_start);
        pg_atomic_write_u32(&s->moves_pending, kMoveDrawn);
    }
    const Binding before = s->bound;
    const bool before_known = s->bound_known;
    Binding moving;
    binding_here(&moving, BindingState::moving, s->move_target.run_start, &s->move_target);
    ReservedState marks;
    uint64 opens_second = 0;
    bool recorded = write_binding_file(moving);
    if (recorded) {
        s->bound = moving;  // not bound: a rebind leaves it alone
        s->bound_known = true;
        apply_target(s, s->move_target);
        marks = snapshot(s);
        stamp_cluster(&marks);
        // A clock behind the seconds the origin reserved, with no second
        // open for it (before PostgreSQL 15 no end-of-recovery step opens
        // one): the first second no id can carry yet opens from the moved
        // draw, as at a start, rather than clock Hot Guids failing until
        // the clock catches up.
        opens_second = unused_hot_second(s, &marks);
    }
    if (!recorded || !write_marks(s, marks)) {
        const int saved_errno = errno;
        release_counters_lock(s);
        errno = saved_errno;
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("could not reserve ids in \"%s\": %m", recorded ? kStateFile : kBindingFile),
                        errdetail("Before its first id this server's counters move past fresh random points (%s), "
                                  "which the binding file and then the state file must hold.",
                                  s->move_why),
                        errhint("Free space in the data directory's file system, or make the files "
                                "writable; ids are made again as soon as they can be written.")));
    }
    if (opens_second != 0) open_hot_second(s, opens_second, marks.hot_seconds);
    finish_move(s, before_known && before.state == BindingState::bound ? &before : nullptr, s->move_why, LOG);
    pg_write_barrier();  // the moved counters before the flag (with_active_cells reads it first)
    pg_atomic_write_u32(&s->moves_pending, kNoMove);
    release_counters_lock(s);
}

void settle_identity(SharedCounters *s) {
    Binding now;
    current_binding(&now);
    if (now.host[0] == '\0') report_identity_unreadable();
    acquire_counters_lock(s);
    if (pg_atomic_read_u32(&s->identity_unreadable) == 0) {
        release_counters_lock(s);
        return;
    }
    const bool other_host =
        s->bound_known && s->bound.state == BindingState::bound && s->bound.host[0] != '\0' &&
        strcmp(s->bound.host, now.host) != 0;
    // A move recorded but never completed (binding "moving"): the start
    // applied its target, and could not tell whether this is the host that
    // recorded it, which completes that same target at its own next start.
    // Moved on from it here too: one move more where it was recorded costs
    // nothing, a copy left on the target repeats its origin's ids. (A move
    // still due after a recovery of another server's WAL: the same.)
    const bool unfinished = s->bound_known && s->bound.state != BindingState::bound;
    if (other_host || unfinished) {
        // The start's move, made before the first id (with_active_cells
        // reads moves_pending only after this flag is cleared).
        snprintf(s->move_why, sizeof s->move_why, "%s (read once its host identity file could be)",
                 other_host ? "the counters were bound elsewhere; this server started on another host"
                 : s->bound.state == BindingState::moving
                     ? "a move recorded before this start was never completed here"
                     : "recovery replayed another server's WAL before this start");
        if (pg_atomic_read_u32(&s->moves_pending) == kNoMove) pg_atomic_write_u32(&s->moves_pending, kMoveDue);
    } else {
        // This host: bound here (again, with the identity the file holds).
        const bool first = !s->bound_known;
        Binding here;
        binding_here(&here, BindingState::bound, pg_atomic_read_u32(&s->run_start), nullptr);
        write_binding_or_log(here, "The next start writes it again.");
        s->bound = here;
        s->bound_known = true;
        rebind_lineage(s);
        log_binding(LOG, first ? "server-wide counters bound here" : "host identity file read: counters stay bound here",
                    nullptr, first ? nullptr : &at_start.before, here);
    }
    pg_write_barrier();  // a move made due before the flag (with_active_cells reads it after)
    pg_atomic_write_u32(&s->identity_unreadable, 0);
    release_counters_lock(s);
}

bool binding_found_at_start() { return at_start.read != BindingRead::missing; }

bool move_accepted(SharedCounters *s, const FreshCounters &fresh) {
    accepted_before = s->bound;
    accepted_before_known = s->bound_known && s->bound.state == BindingState::bound;
    // A move already drawn (a start that could not record its own) keeps
    // its target: the first id records it.
    if (pg_atomic_read_u32(&s->moves_pending) == kMoveDrawn) return false;
    pg_atomic_write_u32(&s->moves_pending, kNoMove);  // this move serves a due one too
    return move_now(s, fresh, "a superuser accepted the state file");
}

void bind_accepted(SharedCounters *s, bool moved, bool marks_written) {
    if (moved && marks_written)
        finish_move(s, accepted_before_known ? &accepted_before : nullptr, "a superuser accepted the state file", LOG);
}

bool rebind_values(SharedCounters *s) {
    Binding now;
    current_binding(&now);
    // Never a wait behind a refill's fsync for this: the next id looks again.
    if (!LWLockConditionalAcquire(s->lock, LW_EXCLUSIVE)) return false;
    // Only values are rebound here, on a binding that stands: the place is
    // the moves' business.
    if (s->bound_known && s->bound.state == BindingState::bound &&
        pg_atomic_read_u32(&s->moves_pending) == kNoMove && !same_values(s->bound, now)) {
        const Binding before = s->bound;
        Binding values = before;
        values.node = now.node;
        strlcpy(values.node_source, now.node_source, sizeof values.node_source);
        strlcpy(values.machine, now.machine, sizeof values.machine);
        strlcpy(values.machine_source, now.machine_source, sizeof values.machine_source);
        values.since = now.since;
        write_binding_or_log(values, "The next start writes it again.");
        s->bound = values;
        rebind_lineage(s, &now);  // recorded with the next refill
        log_binding(LOG,
                    leases_on() ? "server-wide counters bound to this start's lease (locality_uuid.registry)"
                                : "the node value, the machine name or where they come from changed",
                    nullptr, &before, values);
    }
    release_counters_lock(s);
    return true;
}

bool bound_since(SharedCounters *s, int64 *since) {
    acquire_counters_lock(s);
    const bool known = s->bound_known && s->bound.state == BindingState::bound &&
                       pg_atomic_read_u32(&s->moves_pending) == kNoMove;
    *since = s->bound.since;
    release_counters_lock(s);
    return known;
}

}  // namespace locality_pg
