// The server-wide counters' place in shared memory (library preloaded): the
// hooks that request it and, at the start of each shared-memory lifetime
// (postmaster start, crash restart), set it up and restore the counters
// past the state file's marks (reservations/start.cpp).
#include "reservations/restore.hpp"
#include "reservations/shared_counters.hpp"

namespace locality_pg {
namespace {

constexpr const char *kLockTranche = "locality_uuid";
constexpr Size kSize = MAXALIGN(sizeof(SharedCounters)) + 64;  // room to align to a cache line

SharedCounters *shared = nullptr;

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
    const FreshCounters fresh = fresh_counters();
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    bool found;
    void *raw = ShmemInitStruct("locality_uuid counters", kSize, &found);
    auto *state = reinterpret_cast<SharedCounters *>(TYPEALIGN(64, reinterpret_cast<uintptr_t>(raw)));
    if (!found) restore_counters(state, &GetNamedLWLockTranche(kLockTranche)[0].lock, fresh);
    LWLockRelease(AddinShmemInitLock);
    shared = state;
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

SharedCounters *shared_counters() { return shared; }

}  // namespace locality_pg
