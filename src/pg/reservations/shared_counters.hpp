// The shared-memory layout of the server-wide counters (library preloaded).
// counters/counter_state.cpp draws from them; reservations/reservation.cpp
// keeps their reserved marks on disk and in WAL.
#pragma once

#include "pg_boundary.hpp"

#include "binding.hpp"
#include "counter_cells.hpp"
#include "reservations/state_file.hpp"

namespace locality_pg {

// Each counter on a cache line of its own, so backends drawing from
// different counters do not contend for one line.
struct alignas(64) Line {
    pg_atomic_uint64 value;
};

// The Hot Guid draw mark, and beside it on its line the draw from which a
// refill is due (reservation.hpp, hot_refill_step): the draws' common case
// reads that alone.
struct alignas(64) HotMarkLine {
    pg_atomic_uint64 value;
    pg_atomic_uint64 refill_at;
};

struct SharedCounters {
    Line variable, explicit_sequential, hot_draws, hot_second, hot_opened;
    Line runs[locality::kRunSlots];
    // The reserved high-water marks (state_file.hpp): a draw below its mark
    // needs nothing more; the draw that reaches it raises the mark first.
    Line variable_until, explicit_until, hot_seconds_until;
    HotMarkLine hot_until;
    Line run_until[locality::kRunSlots];  // (window + 1) << 32 | ids reserved
    // Held (exclusive) while the marks are raised: the file, the WAL record
    // and the new marks in shared memory. Its release orders the marks for
    // the next holder. Backends whose draw reached the mark wait on `raised`
    // (interruptible; wait event "Extension"), broadcast after each release.
    LWLock *lock;
    ConditionVariable raised;
    pg_atomic_uint32 variable_start;  // set from the file; replay adopts the primary's
    // Bumped, after a write barrier, when runs move back (a release,
    // release_runs.hpp): each backend then drops the run blocks it cached
    // (counters/counter_state.cpp), reading the runs after a read barrier.
    pg_atomic_uint32 runs_released;
    // 1 once the marks are known and trusted (the file was read at start,
    // or there was none, or a superuser accepted it). While 0, no draw is
    // taken: the file could not be read at start (every call tries again,
    // restore_late), or a file that can be read is in doubt.
    pg_atomic_uint32 available;
    uint32 unreadable_errno;  // why, while unavailable: 0 means the file is corrupt
    StateDoubt doubt;         // why a readable file is not used (restore.hpp)
    // What locality_uuid.state holds, as this lifetime last read or wrote it
    // (the postmaster at start, then under the lock): replay rewrites the
    // file only for a record whose marks it does not hold yet.
    ReservedState on_disk;
    bool on_disk_known;
    // This lifetime's crash recovery (its own WAL) wrote the file: it then
    // holds marks of replayed records, and a replayed release is written
    // too (replay.cpp).
    bool replay_wrote_file;
    // The start found this server about to replay another server's WAL (a
    // standby, point-in-time recovery, a start from a backup_label): every
    // record that raises a mark must then reach the file, or replay stops.
    bool replays_another;
    // ... as a standby (standby.signal): its lineage is the newest word on
    // the identities its primary's WAL carried, as a point-in-time
    // restore's or a backup's is not (dealign.cpp).
    bool standby_start;
    // Clock Hot Guid seconds: the file's bound before this start opened an
    // unused second, and the highest bound a replayed record held. The end
    // of recovery closes the current second only if replay went past the
    // file (another server's seconds), never for the server's own WAL.
    uint64 hot_seconds_in_file;
    uint64 hot_seconds_replayed;
    // The seconds bound this start reserved in the file alone when it opened
    // an unused second (0: none): replaying a release never lowers below it.
    uint64 hot_seconds_floor;
    // After a refill's write failed: no backend tries again before this
    // CLOCK_MONOTONIC millisecond (draws below the marks go on; a draw at a
    // mark fails at once with that write's error), so a failing disk costs
    // one attempt per interval, not one per draw (reservation.cpp).
    pg_atomic_uint64 write_retry_at;
    int write_errno;
    bool write_failed_host;  // that write was the host's marks file's (host_marks.hpp), not the state file's
    // The host's marks file at "auto" could not be written and was removed
    // (or never was): not written again in this lifetime. Under the lock.
    bool host_marks_given_up;
    // What the last Hot Guid refill reserved (reservation.hpp,
    // hot_refill_step); under the lock.
    uint64 hot_step;
    // A random token of this start of the server (never 0): in its clean
    // stop and its host's marks file, which then tell a later start's
    // draws from the stopped one's (lineage_witness).
    uint32 lifetime;
    // Where a window's run starts (below 2^24): the binding's, drawn when
    // the counters were bound here (dealign.hpp), so that servers that
    // share a node value by chance do not count through the same places.
    pg_atomic_uint32 run_start;
    // 1 from the start of a server that replays another server's WAL until
    // its first server-wide id after recovery moved the counters past
    // fresh random points (dealign.hpp): its origin may still make ids.
    pg_atomic_uint32 moves_pending;
    // 1 from a start that could not read locality_uuid.host_identity_file
    // until a backend could (settle_identity): server-wide ids fail meanwhile.
    pg_atomic_uint32 identity_unreadable;
    // Where the counters are bound now (binding.hpp; locality_uuid.binding
    // as this lifetime wrote or read it), under the lock after start.
    Binding bound;
    bool bound_known;
    // A move whose target is drawn but not yet applied and written (under
    // the lock), and why it is made, for its log line.
    MoveTarget move_target;
    char move_why[MAXPGPATH + 128];
    // The target a move at this start applied (a copy that moved in the
    // postmaster, or a move completed there), for the crash recovery that
    // follows: a replayed release of the origin's runs never lowers a run
    // below it in the same window (release_runs.hpp). Set by the
    // postmaster before recovery; read by the startup process.
    MoveTarget start_target;
    bool start_moved;
    // The marks this server's own state file held at start (not a server
    // replaying another's WAL): a crash during a copy's first recovery
    // leaves that recovery to be replayed again, with the start's move in
    // the file and no move at the next start; the release it replays is
    // floored by the file as by start_target (release_runs.hpp).
    ReservedState file_at_start;
    bool file_at_start_known;
    // Where each identity this WAL history carried left the counters
    // (lineage.hpp): the moves go by it (dealign.cpp), the state file and
    // a WAL record carry it. Under the lock. Changed by a move or a rebind
    // and not yet in WAL: the next refill logs it before its marks.
    locality::Lineage lineage;
    bool lineage_unlogged;
    // A clean stop (stop.hpp) closed the variable, given-time and Hot Guid
    // marks (0 in shared memory, so any later draw takes the lock and logs
    // a refill, which makes the stop void on every server that replays it);
    // their values meanwhile, which snapshot() reads. The next publish()
    // opens them again. Under the lock.
    bool stop_closed;
    ReservedState stop_marks;
    // How the last drawn move went by the lineage, for its log line ("" if
    // the move applied was not drawn by this lifetime).
    char move_lineage[512];
};

// Called from _PG_init while shared_preload_libraries is being processed
// (reservations/shared_memory.cpp).
void request_shared_counters();

// The server-wide counters, or null when this server has none (no
// preloading, or locality_uuid.shared_counter off).
SharedCounters *shared_counters();

}  // namespace locality_pg
