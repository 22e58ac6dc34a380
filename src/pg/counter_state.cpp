#include "counter_state.hpp"

#include <cerrno>

extern "C" {
#include "access/xlog.h"
}

#include "block_cell.hpp"
#include "civil_time.hpp"
#include "machine.hpp"
#include "node.hpp"
#include "reservation.hpp"
#include "settings.hpp"
#include "shared_counters.hpp"
#include "state_file.hpp"
#include "wall_clock.hpp"

namespace locality_pg {
namespace {

// --- shared memory: pg_atomic_* cells, no lock on the generation path -----

SharedCounters *shared = nullptr;
constexpr const char *kLockTranche = "locality_uuid";

struct PgCell64 {
    pg_atomic_uint64 *atom;
    uint64 fetch_add(uint64 delta) noexcept {
        return pg_atomic_fetch_add_u64(atom, static_cast<int64>(delta));
    }
    uint64 load() const noexcept { return pg_atomic_read_u64(atom); }
    bool compare_exchange(uint64 &expected, uint64 desired) noexcept {
        return pg_atomic_compare_exchange_u64(atom, &expected, desired);
    }
};

// Each backend takes draws of the shared counters in blocks (block_cell.hpp).
using BlockCell64 = locality::BlockCell<PgCell64>;

using SharedCells = locality::CounterCells<BlockCell64>;
using SharedHotCells = locality::HotGuidCells<PgCell64>;

SharedCells shared_cells{};
SharedHotCells shared_hot_cells{};
bool shared_attached = false;

#if PG_VERSION_NUM >= 150000
shmem_request_hook_type prev_shmem_request_hook = nullptr;
#endif
shmem_startup_hook_type prev_shmem_startup_hook = nullptr;

uint32 strong_random_u32() {
    uint32 v;
    if (!pg_strong_random(&v, sizeof v))
        ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                        errmsg("could not generate a random counter seed")));
    return v;
}

void shmem_request() {
#if PG_VERSION_NUM >= 150000
    if (prev_shmem_request_hook) prev_shmem_request_hook();
#endif
    RequestAddinShmemSpace(MAXALIGN(sizeof(SharedCounters)) + 64);
    RequestNamedLWLockTranche(kLockTranche, 1);
}

// --- start of a shared-memory lifetime (postmaster start, crash restart) ---

void shmem_startup() {
    if (prev_shmem_startup_hook) prev_shmem_startup_hook();
    // Drawn before taking the lock: pg_strong_random may block.
    const FreshCounters fresh{strong_random_u32(), strong_random_u32(), strong_random_u32()};
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    bool found;
    void *raw = ShmemInitStruct("locality_uuid counters", MAXALIGN(sizeof(SharedCounters)) + 64, &found);
    auto *state = reinterpret_cast<SharedCounters *>(TYPEALIGN(64, reinterpret_cast<uintptr_t>(raw)));
    if (!found) restore_counters(state, &GetNamedLWLockTranche(kLockTranche)[0].lock, fresh);
    LWLockRelease(AddinShmemInitLock);
    shared = state;
    shared_cells.variable = BlockCell64{{&state->variable.value}};
    shared_cells.explicit_sequential = BlockCell64{{&state->explicit_sequential.value}};
    for (uint32 i = 0; i < locality::kRunSlots; ++i)
        shared_cells.runs[i] = BlockCell64{{&state->runs[i].value}, true};
    shared_hot_cells = SharedHotCells{{&state->hot_draws.value}, {&state->hot_second.value}};
    shared_attached = true;
}

// --- per backend ----------------------------------------------------------

locality::PlainCounters local_cells;
locality::PlainHotGuidCells local_hot_cells;
int local_cells_pid = 0;  // the process that seeded local_cells and local_hot_cells

// A preloaded library's statics are copied into every forked backend, so the
// seed is taken lazily in the process that uses it, never in the postmaster.
void seed_backend_cells() {
    if (local_cells_pid == MyProcPid) return;
    local_cells = locality::PlainCounters{};
    local_cells.variable_start = strong_random_u32();
    local_cells.explicit_sequential.value = strong_random_u32();
    local_hot_cells = locality::PlainHotGuidCells{};
    local_hot_cells.draws.value = strong_random_u32();
    local_cells_pid = MyProcPid;
}

locality::WindowBaseCache window_bases;

// A server in recovery replays the primary's reservations but may be behind
// them: ids from its copy of the counters could repeat the primary's.
[[noreturn]] void report_in_recovery() {
    ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                    errmsg("cannot make server-wide ids during recovery"),
                    errdetail("This server is a standby or is recovering: its counters can be "
                              "behind the primary's, and its ids could repeat ids made there."),
                    errhint("Make ids on the primary. Reading and decoding ids works here.")));
}

// The state file could not be read at start: try again (it may have been
// restored), else fail; no draw is taken meanwhile.
void restore_or_report() {
    const FreshCounters fresh{strong_random_u32(), strong_random_u32(), strong_random_u32()};
    if (restore_late(shared, fresh)) return;
    const int read_errno = shared->unreadable_errno;  // 0: the file is corrupt
    errno = read_errno;
    ereport(ERROR, (read_errno != 0 ? errcode_for_file_access() : errcode(ERRCODE_DATA_CORRUPTED),
                    read_errno != 0 ? errmsg("could not read \"%s\": %m", kStateFile)
                               : errmsg("\"%s\" in the data directory is corrupt", kStateFile),
                    errdetail("The file holds the reserved marks of the server-wide counters; ids "
                              "made without them could repeat ids made before."),
                    errhint("Restore the file, or delete it after giving this server a new "
                            "locality_uuid.node_id and locality_uuid.machine_name. Ids are made "
                            "again as soon as it can be read, without a restart.")));
}

// Calls make(locality_cells, hot_guid_cells, reservation) with the active
// storage: the server's shared memory (whose draws must be reserved on
// disk), or this backend's own counters. The kinds differ in type, hence a
// generic callable.
template <class Make>
auto with_active_cells(Make make) {
    if (shared_attached) {
        if (RecoveryInProgress()) report_in_recovery();
        if (pg_atomic_read_u32(&shared->available) == 0) restore_or_report();
        pg_read_barrier();  // the counters as restore_late left them
        // Fixed for the server's life, except when replay adopts the
        // primary's (reservation.cpp).
        shared_cells.variable_start = pg_atomic_read_u32(&shared->variable_start);
        return make(shared_cells, shared_hot_cells, SharedReservation{shared});
    }
    seed_backend_cells();
    return make(local_cells, local_hot_cells, locality::NoReservation{});
}

[[noreturn]] void report_not_reserved() {
    errno = reservation_errno();
    ereport(ERROR, (errcode_for_file_access(),
                    errmsg("could not reserve ids in \"%s\": %m", kStateFile),
                    errdetail("The server-wide counters persist their reserved marks before "
                              "an id beyond them is made."),
                    errhint("Free space in the data directory's file system, or make the file "
                            "writable; ids are made again as soon as it can be written.")));
}

[[noreturn]] void report_failure(locality::GenStatus status, int64 millis) {
    switch (status) {
        case locality::GenStatus::time_out_of_range:
            ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                            errmsg("timestamp out of range for a Locality UUID"),
                            errdetail("The id holds milliseconds since 1970-01-01 00:00:00 UTC in 48 "
                                      "bits; got " INT64_FORMAT ".",
                                      millis)));
            break;
        case locality::GenStatus::window_too_old:
            ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                            errmsg("the clock is 64 or more sequential windows behind the newest run"),
                            errdetail("A sequential id for " INT64_FORMAT " ms would restart a run "
                                      "that is no longer known, and could repeat ids.",
                                      millis),
                            errhint("Sequential ids resume when the clock catches up (10 hours 40 "
                                    "minutes from the newest run); variable-mode ids still work.")));
            break;
        case locality::GenStatus::window_full:
            ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                            errmsg("2147483648 sequential ids in one 10-minute window"),
                            errhint("The next window starts a new run.")));
            break;
        case locality::GenStatus::not_reserved:
            report_not_reserved();
        default:
            ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                            errmsg("could not compute the sequential window base (MD5 unavailable)")));
    }
    pg_unreachable();
}

// This backend's pid and node value, recomputed only when the node value
// can have changed (a reload of locality_uuid.node_id).
locality::Stamp current_stamp() {
    static int stamp_pid = 0;
    static int stamp_setting = 0;
    static locality::Stamp stamp{};
    if (stamp_pid != MyProcPid || stamp_setting != setting_node_id) {
        stamp = locality::Stamp{static_cast<uint16>(MyProcPid & 0xFFFF), current_node()};
        stamp_pid = MyProcPid;
        stamp_setting = setting_node_id;
    }
    return stamp;
}

}  // namespace

void request_shared_counters() {
#if PG_VERSION_NUM >= 150000
    prev_shmem_request_hook = shmem_request_hook;
    shmem_request_hook = shmem_request;
#else
    shmem_request();
#endif
    prev_shmem_startup_hook = shmem_startup_hook;
    shmem_startup_hook = shmem_startup;
}

bool counters_are_shared() { return shared_attached; }

SharedCounters *shared_counters() { return shared_attached ? shared : nullptr; }

locality::Uuid16 make_locality_id(bool at_given_time, locality::Mode mode, int64 millis) {
    const locality::Stamp stamp = current_stamp();
    locality::Uuid16 id;
    const locality::GenStatus status = with_active_cells([&](auto &cells, auto &, auto reservation) {
        return at_given_time ? locality::make_id_at(cells, window_bases, mode, millis, stamp, &id, reservation)
                             : locality::make_clock_id(cells, window_bases, mode, millis, stamp, &id, reservation);
    });
    if (status != locality::GenStatus::ok) report_failure(status, millis);
    return id;
}

locality::Uuid16 make_hot_guid(bool at_given_time, int64 seconds, uint32 shard_key) {
    const locality::HotStamp stamp = current_hot_stamp();
    locality::Uuid16 id;
    auto make = [&](int64 at) {
        return with_active_cells([&](auto &, auto &hot_cells, auto reservation) {
            return at_given_time ? locality::make_hot_guid_at(hot_cells, at, stamp, shard_key, &id, reservation)
                                 : locality::make_hot_guid_now(hot_cells, at, stamp, shard_key, &id, reservation);
        });
    };
    locality::HotStatus status = make(seconds);
    if (status == locality::HotStatus::second_full) {
        // Wait for the next second (at most one), then try once more.
        const int64 next_ms = (seconds + 1) * 1000;
        for (int64 now = locality::wall_clock_millis(); now < next_ms && now >= next_ms - 1000;
             now = locality::wall_clock_millis()) {
            CHECK_FOR_INTERRUPTS();
            pg_usleep(Min(next_ms - now, static_cast<int64>(10)) * 1000L);
        }
        seconds = locality::floor_div(locality::wall_clock_millis(), 1000);
        status = make(seconds);
    }
    if (status == locality::HotStatus::time_out_of_range)
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("timestamp out of range for a Hot Guid"),
                        errdetail("A Hot Guid holds whole seconds from 1970-01-01 00:00:00 UTC to "
                                  "2106-02-07 06:28:15 UTC; got " INT64_FORMAT ".",
                                  seconds)));
    if (status == locality::HotStatus::second_full)
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("more than %u Hot Guids in one second",
                               static_cast<unsigned>(locality::kHotIdsPerSecond)),
                        errdetail("The 24-bit counter of this %s's generator has no value left for "
                                  "this second, also after waiting for the next; ids are never "
                                  "repeated.",
                                  shared_attached ? "server" : "backend"),
                        errhint("Retry later.")));
    if (status == locality::HotStatus::not_reserved) report_not_reserved();
    return id;
}

}  // namespace locality_pg
