// How often an error that every id meets while a condition lasts (this
// start holds no lease yet) reaches the server log: one per interval,
// server-wide, the ones left out counted and said with the next. The client
// gets each one whole. A pool retrying at 10 calls a second wrote 2,400
// lines a minute before (review leases-in-the-world-1.4).
#pragma once

#include "pg_boundary.hpp"

extern "C" {
#include "port/atomics.h"
}

namespace locality_pg {

// In shared memory, zeroed, then log_quota_init.
struct LogQuota {
    pg_atomic_uint64 last_logged_us;  // of the last one logged (log_quota.cpp's clock)
    pg_atomic_uint32 left_out;        // since then
};

void log_quota_init(LogQuota *quota);

// Called right before raising the error: whether this one goes to the server
// log (true at most once per interval_s, server-wide; then *left_out is how
// many were left out since the last one logged). False: it is counted, and
// the next ERROR this process emits stays out of the server log if it has
// SQLSTATE sqlerrcode and its untranslated message starts with
// message_start (a string that outlives the call). The interval is spent
// when the error is raised: one caught by an exception block, never
// emitted, leaves its interval without a line (the lease worker's own
// WARNING says the registry cannot be reached in any case); an error a
// parallel worker raises is logged by its leader, as PostgreSQL re-raises it.
bool log_quota_take(LogQuota *quota, int interval_s, int sqlerrcode, const char *message_start, uint32 *left_out);

// Installs the emit_log_hook that keeps such an ERROR out of the server
// log (chained; once, in _PG_init of a preloading server).
void install_log_quota_hook();

}  // namespace locality_pg
