// Making ids with the active counters: the server's (reservations/
// shared_memory.cpp, reserved on disk and in WAL by reservations/
// reservation.cpp) or this backend's own (backend_counters.cpp).
#include "counters/counter_state.hpp"

#include <ctime>

extern "C" {
#include "access/xlog.h"
}

#include "civil_time.hpp"
#include "counters/active_cells.hpp"
#include "counters/generation_errors.hpp"
#include "counters/session_counters.hpp"
#include "identity/lease.hpp"
#include "identity/machine.hpp"
#include "identity/node.hpp"
#include "reservations/dealign.hpp"
#include "reservations/reservation.hpp"
#include "reservations/restore.hpp"
#include "settings.hpp"
#include "wall_clock.hpp"

namespace locality_pg {
namespace {

locality::WindowBaseCache window_bases;

// Runs moved back since this backend last looked (a release,
// release_runs.hpp): its cached blocks of them are of windows that no
// longer hold their slots, and are dropped before the next draw.
uint32 runs_lowered_seen = 0;
void drop_blocks_of_lowered_runs(SharedCounters *shared, SharedCells &cells) {
    const uint32 lowered = pg_atomic_read_u32(&shared->runs_released);
    if (lowered == runs_lowered_seen) return;
    pg_read_barrier();  // the runs as the release left them
    for (auto &run : cells.runs) run.drop();
    runs_lowered_seen = lowered;
}

// What this backend last checked of the node value and machine name
// (settings.hpp's generation; UINT32_MAX: never), and why
// locality_uuid.require_node_id (or a lease record with leases off:
// identity/node.hpp) refuses each kind of id ("" if it does not):
// Locality UUIDs without a node value of a host file, Hot Guids without a
// machine name of one.
uint32 identity_seen = UINT32_MAX;
char refusal_locality[MAXPGPATH + 64] = "";
char refusal_hot_guid[MAXPGPATH + 64] = "";

// After a start or a reload of the node value or machine name: what
// locality_uuid.require_node_id refuses, and whether the binding records
// them (a reload that changed them rebinds; LOG, old and new).
void check_identity(SharedCounters *shared) {
    const uint32 generation = identity_settings_generation;
    refusal_locality[0] = refusal_hot_guid[0] = '\0';
    if (host_files_required().reason != nullptr) {
        char why[MAXPGPATH + 64];
        if (!node_value_from_host_file(why, sizeof why)) strlcpy(refusal_locality, why, sizeof refusal_locality);
        if (!machine_name_from_host_file(why, sizeof why)) strlcpy(refusal_hot_guid, why, sizeof refusal_hot_guid);
    }
    if (rebind_values(shared)) identity_seen = generation;
}

enum class IdKind : uint8 { locality, hot_guid };

// Calls make(locality_cells, hot_guid_cells, reservation) with the active
// storage: the server's shared memory (whose draws must be reserved), or
// this backend's own counters, for an id of `kind`. The kinds differ in
// type, hence a generic callable.
template <class Make>
auto with_active_cells(IdKind kind, Make make) {
    SharedCounters *shared = shared_counters();
    if (shared == nullptr) {
        check_session_counters();
        return make(backend_cells(), backend_hot_cells(), locality::NoReservation{});
    }
    // A standby's copy of the counters can be behind its primary's.
    if (RecoveryInProgress()) report_in_recovery();
    if (pg_atomic_read_u32(&shared->available) == 0) {
        // The state file could not be read at start: read it again (it may
        // have been restored); no draw is taken meanwhile.
        const FreshCounters fresh = fresh_counters();
        if (!restore_late(shared, fresh)) report_unavailable(shared);
    }
    // A move left pending is stored before the counters are published as
    // available (an accept whose move could not be recorded): read after.
    pg_read_barrier();
    // A start that could not read the host identity file: nothing until it
    // can. Reading the file may make a move due: settle_identity stores
    // that before it clears this flag, so it is read first, and the move
    // after it, whoever settled the identity.
    if (pg_atomic_read_u32(&shared->identity_unreadable) != 0) settle_identity(shared);
    pg_read_barrier();
    // The first id after a recovery that replayed another server's WAL (or
    // an accept, or the identity file read at last) moves the counters away
    // from its origin's (reservations/dealign.hpp); no draw before it.
    if (pg_atomic_read_u32(&shared->moves_pending) != 0) settle_moves(shared);
    // A backend's first id, and its first after a reload changed the
    // identity settings: the binding records the values ids carry. (With
    // leases, the callers refuse every id before the lease
    // (report_no_lease), so a backend's first id is after it.)
    if (identity_seen != identity_settings_generation) check_identity(shared);
    const char *refusal = kind == IdKind::hot_guid ? refusal_hot_guid : refusal_locality;
    if (refusal[0] != '\0') report_node_not_assigned(refusal, kind == IdKind::hot_guid);
    pg_read_barrier();  // the counters as restore_late or the move left them
    SharedCells &cells = shared_cells();
    // Fixed for the server's life, except when replay adopts the primary's
    // (reservation.cpp).
    cells.variable_start = pg_atomic_read_u32(&shared->variable_start);
    cells.run_start = pg_atomic_read_u32(&shared->run_start);
    drop_blocks_of_lowered_runs(shared, cells);
    return make(cells, shared_hot_cells(), SharedReservation{shared});
}

// This backend's pid and node value, recomputed only when the node value
// can have changed (a reload of locality_uuid.node_id).
locality::Stamp current_stamp() {
    static int stamp_pid = 0;
    static int stamp_setting = 0;
    static locality::Stamp stamp{};
    // (A lease is the postmaster's for its life, held before any id; a
    // crash restart makes new backends, which read it again.)
    if (stamp_pid != MyProcPid || stamp_setting != setting_node_id) {
        stamp = locality::Stamp{static_cast<uint16>(MyProcPid & 0xFFFF), current_node()};
        stamp_pid = MyProcPid;
        stamp_setting = setting_node_id;
    }
    return stamp;
}

// Waits, interruptibly, until the clock reaches the second after `seconds`
// (at most one second; not at all if the clock stepped back further), and
// never longer than 1.5 s by the monotonic clock: a clock that stands
// still (a paused or held clock) gets the error instead of a wait without
// end.
void wait_for_next_second(int64 seconds) {
    const int64 next_ms = (seconds + 1) * 1000;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int64 now = locality::wall_clock_millis(); now < next_ms && now >= next_ms - 1000;
         now = locality::wall_clock_millis()) {
        CHECK_FOR_INTERRUPTS();
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((t.tv_sec - start.tv_sec) * 1000 + (t.tv_nsec - start.tv_nsec) / 1000000 > 1500) return;
        pg_usleep(Min(next_ms - now, static_cast<int64>(10)) * 1000L);
    }
}

}  // namespace

locality::Uuid16 make_locality_id(bool at_given_time, locality::Mode mode, int64 millis) {
    // With leases, no value but this start's lease's (identity/lease.hpp).
    if (leases_on() && !lease_held()) report_no_lease();
    const locality::Stamp stamp = current_stamp();
    locality::Uuid16 id;
    const locality::GenStatus status = with_active_cells(IdKind::locality, [&](auto &cells, auto &, auto reservation) {
        return at_given_time ? locality::make_id_at(cells, window_bases, mode, millis, stamp, &id, reservation)
                             : locality::make_clock_id(cells, window_bases, mode, millis, stamp, &id, reservation);
    });
    if (status != locality::GenStatus::ok) report_failure(status, millis);
    return id;
}

locality::Uuid16 make_hot_guid(bool at_given_time, int64 seconds, uint32 shard_key) {
    if (leases_on() && !lease_held()) report_no_lease();
    const locality::HotStamp stamp = current_hot_stamp();
    locality::Uuid16 id;
    auto make = [&](int64 at) {
        return with_active_cells(IdKind::hot_guid, [&](auto &, auto &hot_cells, auto reservation) {
            return at_given_time ? locality::make_hot_guid_at(hot_cells, at, stamp, shard_key, &id, reservation)
                                 : locality::make_hot_guid_now(hot_cells, at, stamp, shard_key, &id, reservation);
        });
    };
    locality::HotStatus status = make(seconds);
    // The second is full: wait for the next one and try again; a few times,
    // as after a restart the seconds reserved ahead (at most 2) count as
    // full too. A clock further behind gets the error at once.
    for (int tries = 0; status == locality::HotStatus::second_full && !at_given_time && tries < 3; ++tries) {
        wait_for_next_second(seconds);
        seconds = locality::floor_div(locality::wall_clock_millis(), 1000);
        status = make(seconds);
    }
    if (status != locality::HotStatus::ok) report_hot_failure(status, seconds, counters_are_shared());
    return id;
}

}  // namespace locality_pg
