#include "counter_state.hpp"

#include "machine.hpp"
#include "node.hpp"

namespace locality_pg {
namespace {

// --- shared memory: pg_atomic_* cells, no lock on the generation path -----

struct SharedCounters {
    pg_atomic_uint32 variable;
    pg_atomic_uint64 sequential;
    pg_atomic_uint32 explicit_sequential;
    pg_atomic_uint64 hot_draws;
    pg_atomic_uint64 hot_second;
};

struct PgCell32 {
    pg_atomic_uint32 *atom;
    uint32 fetch_add(uint32 delta) noexcept {
        return pg_atomic_fetch_add_u32(atom, static_cast<int32>(delta));
    }
};

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

using SharedCells = locality::CounterCells<PgCell32, PgCell64>;
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
    RequestAddinShmemSpace(MAXALIGN(sizeof(SharedCounters)));
}

void shmem_startup() {
    if (prev_shmem_startup_hook) prev_shmem_startup_hook();
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    bool found;
    auto *state = static_cast<SharedCounters *>(
        ShmemInitStruct("locality_uuid counters", sizeof(SharedCounters), &found));
    if (!found) {
        // Variable mode starts anywhere; sequential runs start at window 0 so
        // the first id re-bases to base + 1; explicit-time ids start at 0 so
        // every server's backfill of a window shares a prefix.
        pg_atomic_init_u32(&state->variable, strong_random_u32());
        pg_atomic_init_u64(&state->sequential, 0);
        pg_atomic_init_u32(&state->explicit_sequential, 0);
        // Hot Guid counters start anywhere, as .NET's does.
        pg_atomic_init_u64(&state->hot_draws, strong_random_u32());
        pg_atomic_init_u64(&state->hot_second, 0);
    }
    LWLockRelease(AddinShmemInitLock);
    shared_cells = SharedCells{{&state->variable}, {&state->sequential}, {&state->explicit_sequential}};
    shared_hot_cells = SharedHotCells{{&state->hot_draws}, {&state->hot_second}};
    shared_attached = true;
}

// --- per backend ----------------------------------------------------------

locality::PlainCounters local_cells;
locality::PlainHotGuidCells local_hot_cells;
int local_cells_pid = 0;  // the process that seeded local_cells and local_hot_cells

// A preloaded library's statics are copied into every forked backend, so the
// seed is taken lazily in the process that uses it, never in the postmaster.
locality::PlainCounters &backend_cells() {
    if (local_cells_pid != MyProcPid) {
        local_cells.variable.value = strong_random_u32();
        local_cells.sequential.value = 0;
        local_cells.explicit_sequential.value = strong_random_u32();
        local_hot_cells.draws.value = strong_random_u32();
        local_hot_cells.second.value = 0;
        local_cells_pid = MyProcPid;
    }
    return local_cells;
}

locality::PlainHotGuidCells &backend_hot_cells() {
    backend_cells();
    return local_hot_cells;
}

locality::WindowBaseCache window_bases;

// Calls make(locality_cells, hot_guid_cells) with the active storage: the
// server's shared memory, or this backend's own counters. The two kinds
// have different types, hence a generic callable.
template <class Make>
auto with_active_cells(Make make) {
    return shared_attached ? make(shared_cells, shared_hot_cells)
                           : make(backend_cells(), backend_hot_cells());
}

[[noreturn]] void report_failure(locality::GenStatus status, int64 millis) {
    if (status == locality::GenStatus::time_out_of_range)
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("timestamp out of range for a Locality UUID"),
                        errdetail("The id holds milliseconds since 1970-01-01 00:00:00 UTC in 48 "
                                  "bits; got " INT64_FORMAT ".",
                                  millis)));
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                    errmsg("could not compute the sequential window base (MD5 unavailable)")));
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

locality::Uuid16 make_locality_id(bool at_given_time, locality::Mode mode, int64 millis) {
    const locality::Stamp stamp{static_cast<uint16>(MyProcPid & 0xFFFF), current_node()};
    locality::Uuid16 id;
    const locality::GenStatus status = with_active_cells([&](auto &cells, auto &) {
        return at_given_time ? locality::make_id_at(cells, window_bases, mode, millis, stamp, &id)
                             : locality::make_clock_id(cells, window_bases, mode, millis, stamp, &id);
    });
    if (status != locality::GenStatus::ok) report_failure(status, millis);
    return id;
}

locality::Uuid16 make_hot_guid(bool at_given_time, int64 seconds, uint32 shard_key) {
    const locality::HotStamp stamp = current_hot_stamp();
    locality::Uuid16 id;
    const locality::HotStatus status = with_active_cells([&](auto &, auto &hot_cells) {
        return at_given_time ? locality::make_hot_guid_at(hot_cells, seconds, stamp, shard_key, &id)
                             : locality::make_hot_guid_now(hot_cells, seconds, stamp, shard_key, &id);
    });
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
                                  "this second; ids are never repeated.",
                                  shared_attached ? "server" : "backend"),
                        errhint("Retry in the next second.")));
    return id;
}

}  // namespace locality_pg
