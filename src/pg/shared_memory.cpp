// The server-wide counters' place in shared memory (library preloaded): the
// hooks that request and set it up at the start of each shared-memory
// lifetime (postmaster start, crash restart), and each backend's views.
#include "active_cells.hpp"
#include "counter_state.hpp"
#include "reservation.hpp"
#include "restore.hpp"

namespace locality_pg {
namespace {

constexpr const char *kLockTranche = "locality_uuid";
constexpr Size kSize = MAXALIGN(sizeof(SharedCounters)) + 64;  // room to align to a cache line

SharedCounters *shared = nullptr;
SharedCells cells{};
SharedHotCells hot_cells{};
bool attached = false;

#if PG_VERSION_NUM >= 150000
shmem_request_hook_type prev_shmem_request_hook = nullptr;
#endif
shmem_startup_hook_type prev_shmem_startup_hook = nullptr;

void shmem_request() {
#if PG_VERSION_NUM >= 150000
    if (prev_shmem_request_hook) prev_shmem_request_hook();
#endif
    RequestAddinShmemSpace(kSize);
    RequestNamedLWLockTranche(kLockTranche, 1);
}

void shmem_startup() {
    if (prev_shmem_startup_hook) prev_shmem_startup_hook();
    // Drawn before taking the lock: pg_strong_random may block.
    const FreshCounters fresh{strong_random_u32(), strong_random_u32(), strong_random_u32()};
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    bool found;
    void *raw = ShmemInitStruct("locality_uuid counters", kSize, &found);
    auto *state = reinterpret_cast<SharedCounters *>(TYPEALIGN(64, reinterpret_cast<uintptr_t>(raw)));
    if (!found) restore_counters(state, &GetNamedLWLockTranche(kLockTranche)[0].lock, fresh);
    LWLockRelease(AddinShmemInitLock);
    shared = state;
    cells.variable = {{&state->variable.value}};
    cells.explicit_sequential = {{&state->explicit_sequential.value}};
    for (uint32 i = 0; i < locality::kRunSlots; ++i) cells.runs[i] = {{&state->runs[i].value}, true};
    hot_cells = SharedHotCells{{&state->hot_draws.value}, {&state->hot_second.value}, {&state->hot_opened.value}};
    attached = true;
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

bool counters_are_shared() { return attached; }

SharedCounters *shared_counters() { return attached ? shared : nullptr; }

SharedCells &shared_cells() { return cells; }

SharedHotCells &shared_hot_cells() { return hot_cells; }

}  // namespace locality_pg
