// The server-wide counters' place in shared memory (library preloaded): the
// hooks that request it and, at the start of each shared-memory lifetime
// (postmaster start, crash restart), set it up and restore the counters
// past the state file's marks (reservations/start.cpp).
#include "reservations/marks.hpp"
#include "reservations/restore.hpp"
#include "reservations/shared_counters.hpp"

extern "C" {
#include "storage/ipc.h"  // on_shmem_exit
}

#include "identity/lease.hpp"

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

// What the state file held when a crash restart discarded the shared
// memory (the postmaster's, kept across it: on_shmem_exit runs before the
// segment goes). The file is written durably before its marks count, so
// after a crash it holds them still; lower (or unreadable) at the new
// start, it went back with its data directory under the running
// postmaster (a volume swapped or rolled back), and the lease this
// postmaster would keep must not go on over older marks: a new one is
// taken (identity/lease.hpp).
ReservedState file_before_crash;
bool file_before_crash_known = false;

void keep_file_marks(int, Datum) {
    file_before_crash_known = shared != nullptr && shared->on_disk_known;
    if (file_before_crash_known) file_before_crash = shared->on_disk;
}

// The postmaster, after a crash restart made the counters anew.
void check_file_after_crash(const SharedCounters *s) {
    if (!file_before_crash_known) return;
    file_before_crash_known = false;
    if (!s->on_disk_known)
        forget_kept_lease("\"locality_uuid.state\" could not be read at the restart");
    else if (rises_above(file_before_crash, s->on_disk))
        forget_kept_lease("\"locality_uuid.state\" holds lower marks than before the crash: the data directory went "
                          "back");
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
    if (!IsUnderPostmaster && !found) {
        check_file_after_crash(state);
        on_shmem_exit(keep_file_marks, 0);
    }
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
