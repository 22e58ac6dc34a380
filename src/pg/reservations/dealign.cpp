// Moving the counters of a copy past fresh random points, and binding them
// where the server runs (dealign.hpp).
#include "reservations/dealign.hpp"

#include <cerrno>

extern "C" {
#include "access/xlog.h"  // GetSystemIdentifier
}

#include "generator.hpp"
#include "reservations/binding_file.hpp"
#include "reservations/marks.hpp"
#include "reservations/reservation.hpp"
#include "reservations/restore_steps.hpp"

namespace locality_pg {
namespace {

// moves_pending: nothing to do; the move is still to be made; the counters
// moved but the file does not hold them yet (a move is made once however
// often the write fails, or every failing call would skip more of a run).
constexpr uint32 kNoMove = 0;
constexpr uint32 kMoveDue = 1;
constexpr uint32 kMoveUnwritten = 2;

// What the start decided (the postmaster, between check_binding_at_start
// and bind_after_start).
struct StartDecision {
    BindingRead read;  // of locality_uuid.binding
    bool moved;
    bool bind;  // the binding file is to be written (moved, new, re-keyed)
    bool before_known;
    Binding before;
    char why[MAXPGPATH + 128];
};
StartDecision at_start;

constexpr size_t kDescribed = 6 * MAXPGPATH;

// Writes this server's binding now, with s's run start, and logs what
// happened: a move (why), a new binding, or new values.
void bind_here(SharedCounters *s, const Binding *before, const char *why, bool moved, int moved_level) {
    Binding now;
    current_binding(&now);
    now.run_start = pg_atomic_read_u32(&s->run_start);
    const bool written = write_binding_file(now);
    const int saved_errno = errno;
    s->bound = now;
    s->bound_known = true;
    char *was = static_cast<char *>(palloc(kDescribed));
    char *is = static_cast<char *>(palloc(kDescribed));
    if (before != nullptr)
        describe_binding(*before, was, kDescribed);
    else
        strlcpy(was, "unknown", kDescribed);
    describe_binding(now, is, kDescribed);
    if (moved)
        ereport(moved_level,
                (errmsg("locality_uuid: server-wide counters moved past fresh random points: %s", why),
                 errdetail("Bound before: %s. Bound now: %s, run start %u.", was, is, now.run_start),
                 errhint("A copy and its origin continue from unrelated places; give each server its own "
                         "locality_uuid.node_id and locality_uuid.machine_name (README, \"Node identity\").")));
    else if (before == nullptr)
        ereport(LOG, (errmsg("locality_uuid: server-wide counters bound here"),
                      errdetail("Bound now: %s, run start %u.", is, now.run_start)));
    else
        ereport(LOG, (errmsg("locality_uuid: the node value, the machine name or where they come from changed"),
                      errdetail("Bound before: %s. Bound now: %s.", was, is)));
    pfree(was);
    pfree(is);
    if (!written) {
        errno = saved_errno;
        ereport(LOG, (errcode_for_file_access(), errmsg("locality_uuid: could not write \"%s\": %m", kBindingFile),
                      errdetail("The next start finds the old binding and moves the counters again.")));
    }
}

// Why the counters must move at this start ("" if not).
void why_move(const Binding &stored, BindingRead read, const Binding &now, const ReservedState &saved,
              bool restored, char *why, size_t size) {
    why[0] = '\0';
    if (!restored) return;  // fresh counters: nothing to move away from
    const uint64 ours = GetSystemIdentifier();
    if (saved.system_identifier != 0 && saved.system_identifier != ours) {
        snprintf(why, size, "\"%s\" was written by another cluster (system identifier " UINT64_FORMAT ")",
                 kStateFile, static_cast<uint64>(saved.system_identifier));
    } else if (read == BindingRead::corrupt || read == BindingRead::io_error) {
        snprintf(why, size, "\"%s\" could not be read", kBindingFile);
    } else if (read == BindingRead::ok && !same_place(stored, now)) {
        const char *what = stored.system_identifier != 0 && now.system_identifier != 0 &&
                                   stored.system_identifier != now.system_identifier
                               ? "with another system identifier"
                           : stored.data_directory[0] != '\0' && now.data_directory[0] != '\0' &&
                                   strcmp(stored.data_directory, now.data_directory) != 0
                               ? "in another data directory"
                               : "on another host";
        snprintf(why, size, "the counters were bound elsewhere; this server started %s", what);
    }
}

}  // namespace

void move_counters_on(SharedCounters *s, const FreshCounters &fresh) {
    ReservedState marks = snapshot(s);
    // A second opened for a clock behind the reserved seconds (at start or
    // at the end of recovery: its window starts at the draw mark) holds no
    // id yet: it opens again from the moved draw. Any other newest second
    // may hold the origin's ids: it counts as full.
    const uint64 hot_second = pg_atomic_read_u64(&s->hot_second.value);
    const bool opened_unused = hot_second != 0 && pg_atomic_read_u64(&s->hot_opened.value) == marks.hot_guid;
    uint64 from[3];
    auto move = [](pg_atomic_uint64 *counter, uint64 *mark, uint64 jump, uint64 *was) {
        *was = Max(pg_atomic_read_u64(counter), *mark);
        *mark = *was + jump;
        raise_counter(counter, *mark);
    };
    move(&s->variable.value, &marks.variable, fresh.variable_jump, &from[0]);
    move(&s->explicit_sequential.value, &marks.explicit_sequential, fresh.explicit_jump, &from[1]);
    move(&s->hot_draws.value, &marks.hot_guid, fresh.hot_jump, &from[2]);
    for (uint32 i = 0; i < locality::kRunSlots; ++i) {
        const uint64 from = Max(pg_atomic_read_u64(&s->runs[i].value), marks.runs[i]);
        if ((from >> 32) == 0) continue;  // no window's run: it starts at the run start
        const uint64 place = Min((from & 0xFFFFFFFF) + fresh.run_jump, static_cast<uint64>(locality::kRunIds));
        marks.runs[i] = ((from >> 32) << 32) | place;
        raise_counter(&s->runs[i].value, marks.runs[i]);
    }
    publish(s, marks);
    // A run start of its own, a quarter of 2^24 or more from the one its
    // counters were bound with (the origin's, whose later windows start
    // there): the two runs of a window stand 2^22 places apart or more.
    const uint32 origin_start = pg_atomic_read_u32(&s->run_start);
    const uint32 run_start = (origin_start + (1U << 22) + fresh.run_start % (1U << 23)) & (locality::kRunStartLimit - 1);
    if (opened_unused)
        open_hot_second(s, (hot_second >> 32) - 1, pg_atomic_read_u64(&s->hot_seconds_until.value));
    else
        close_hot_seconds(s);
    pg_atomic_write_u32(&s->run_start, run_start);
    // Where each counter stood and goes on from: what the server's own
    // marks (its file, the WAL it replayed) held shows in "from".
    ereport(LOG, (errmsg("locality_uuid: counters moved: variable from " UINT64_FORMAT " to " UINT64_FORMAT
                         ", given-time from " UINT64_FORMAT " to " UINT64_FORMAT ", Hot Guid from " UINT64_FORMAT
                         " to " UINT64_FORMAT ", each held run by %u places, run start from %u to %u",
                         from[0], static_cast<uint64>(marks.variable), from[1],
                         static_cast<uint64>(marks.explicit_sequential), from[2],
                         static_cast<uint64>(marks.hot_guid), fresh.run_jump, origin_start, run_start)));
}

void read_binding_at_start(SharedCounters *s) {
    at_start = StartDecision{};
    at_start.read = read_binding_file(&at_start.before);
    at_start.before_known = at_start.read == BindingRead::ok;
    s->bound_known = at_start.before_known;
    if (s->bound_known) s->bound = at_start.before;
    // The run start the counters were bound with: a move draws its own
    // away from it. Libraries before the binding started every run at 0.
    pg_atomic_write_u32(&s->run_start, at_start.before_known ? at_start.before.run_start : 0);
    // Its origin may make ids until this server ends recovery: the move
    // waits for its first id then (settle_after_recovery), whatever the
    // file (in doubt, unreadable) holds meanwhile.
    if (s->replays_another) pg_atomic_write_u32(&s->moves_pending, kMoveDue);
}

void check_binding_at_start(SharedCounters *s, const ReservedState &saved, bool restored,
                            const FreshCounters &fresh) {
    if (s->replays_another) return;
    const Binding &stored = at_start.before;
    Binding now;
    current_binding(&now);
    why_move(stored, at_start.read, now, saved, restored, at_start.why, sizeof at_start.why);
    at_start.moved = at_start.why[0] != '\0';
    if (at_start.moved)
        move_counters_on(s, fresh);
    else if (!at_start.before_known)
        pg_atomic_write_u32(&s->run_start, fresh.run_start);  // bound for the first time: a start of its own
    at_start.bind = at_start.moved || !at_start.before_known || !same_values(stored, now);
}

bool start_moved_counters() { return at_start.moved; }

void bind_after_start(SharedCounters *s, bool marks_written) {
    if (s->replays_another || !at_start.bind) return;
    if (at_start.moved && !marks_written) {
        // Bound here only once the file holds the moved marks: the next
        // start moves them again.
        ereport(WARNING, (errmsg("locality_uuid: server-wide counters moved past fresh random points: %s",
                                 at_start.why),
                          errdetail("The state file could not be written; the binding stays as it was.")));
        return;
    }
    bind_here(s, at_start.before_known ? &at_start.before : nullptr, at_start.why, at_start.moved, WARNING);
}

void settle_after_recovery(SharedCounters *s) {
    const FreshCounters fresh = fresh_counters();  // before the lock: it may block
    acquire_counters_lock(s);
    const uint32 pending = pg_atomic_read_u32(&s->moves_pending);
    if (pending == kNoMove) {
        release_counters_lock(s);
        return;
    }
    if (pending == kMoveDue) {
        move_counters_on(s, fresh);
        pg_atomic_write_u32(&s->moves_pending, kMoveUnwritten);
    }
    ReservedState marks = snapshot(s);
    stamp_cluster(&marks);
    if (!write_marks(s, marks)) {
        const int saved_errno = errno;
        release_counters_lock(s);
        errno = saved_errno;
        ereport(ERROR, (errcode_for_file_access(), errmsg("could not reserve ids in \"%s\": %m", kStateFile),
                        errdetail("After recovery the server-wide counters move past fresh random points, "
                                  "which the file must hold before the first id."),
                        errhint("Free space in the data directory's file system, or make the file "
                                "writable; ids are made again as soon as it can be written.")));
    }
    const Binding before = s->bound;
    const bool before_known = s->bound_known;
    bind_here(s, before_known ? &before : nullptr, "recovery replayed another server's WAL", true, LOG);
    pg_write_barrier();  // the moved counters before the flag (with_active_cells reads it first)
    pg_atomic_write_u32(&s->moves_pending, kNoMove);
    release_counters_lock(s);
}

void bind_accepted(SharedCounters *s) {
    const Binding before = s->bound;
    const bool before_known = s->bound_known;
    bind_here(s, before_known ? &before : nullptr, "a superuser accepted the state file", true, LOG);
}

bool rebind_values(SharedCounters *s) {
    Binding now;
    current_binding(&now);
    // Never a wait behind a refill's fsync for this: the next id looks again.
    if (!LWLockConditionalAcquire(s->lock, LW_EXCLUSIVE)) return false;
    if (!s->bound_known || !same_values(s->bound, now)) {
        const Binding before = s->bound;
        const bool before_known = s->bound_known;
        bind_here(s, before_known ? &before : nullptr, "", false, LOG);
    }
    release_counters_lock(s);
    return true;
}

bool bound_since(SharedCounters *s, int64 *since) {
    acquire_counters_lock(s);
    const bool known = s->bound_known;
    *since = s->bound.since;
    release_counters_lock(s);
    return known;
}

}  // namespace locality_pg
