// The server-wide counters at the start of a shared-memory lifetime
// (restored from locality_uuid.state: start.cpp), after a failed start
// (read again: start.cpp), with a file in doubt (accept.cpp), and during
// replay of the reservation records (raised past them: replay.cpp). The
// invariant that makes file and WAL complete is in reservation.hpp.
#pragma once

#include "pg_boundary.hpp"

#include "reservations/shared_counters.hpp"
#include "reservations/state_file.hpp"

namespace locality_pg {

// Fresh values for counters that start without a file (a new cluster, or
// one made by pg_upgrade): random, so two such servers do not start alike;
// and the random distances and run start of a move (dealign.hpp).
struct FreshCounters {
    uint32 variable_start;
    uint32 explicit_sequential;
    uint32 hot_guid;
    uint32 run_start;          // below 2^24
    uint64 variable_jump;      // in [2^30, 3 * 2^30): the variable counter's 2^32 cycle
    uint64 explicit_jump;      // in [2^29, 3 * 2^29): the given-time index's 2^31 cycle
    uint64 hot_jump;           // in [2^22, 3 * 2^22): the Hot Guid counter field's 2^24
    uint32 run_jump;           // in [2^23, 2^24): places of a window's 2^31
    uint32 lineage[3];         // for a move by the lineage: variable, given-time, Hot Guid (lineage.hpp)
};

// Values from pg_strong_random() (which may block: draw them before taking
// a lock).
FreshCounters fresh_counters();

// At the start of a shared-memory lifetime (postmaster start, crash
// restart): starts every counter of s past the marks of the state file, or
// at the fresh values if there is none yet, and writes the file back. A
// file that cannot be read leaves s unavailable (logged, never FATAL: the
// server serves everything else); a file that cannot be written is logged,
// and the first refill tries again.
void restore_counters(SharedCounters *s, LWLock *lock, const FreshCounters &fresh);

// For a backend that found s unavailable: tries to read the file again
// (it may have been restored, or deleted by the operator), under the lock
// if no other backend holds it. A file found this way is in doubt
// (StateDoubt::late): it raises the counters but is not used until a
// superuser accepts it. True once s is available.
bool restore_late(SharedCounters *s, const FreshCounters &fresh);

// locality_uuid_accept_state_file(): the file as it is now (or fresh
// counters if there is none) becomes this server's, stamped with this
// cluster's system identifier.
enum class AcceptResult : uint8 { already_trusted, accepted_file, accepted_fresh, unreadable };
AcceptResult accept_state_file(SharedCounters *s, const FreshCounters &fresh);

// After a release lowered the clock Hot Guid seconds bound: a newest
// second past it and ahead of the clock moves back, closed as full.
void pull_back_hot_second(SharedCounters *s);

// The marks of s made available and written back (at start, or accepted);
// `stamp`: with this cluster's system identifier and timeline. True if the
// file could be written.
bool make_available(SharedCounters *s, const ReservedState &saved, bool restored, bool stamp);

// Why a readable file is not used (s->doubt), at elevel: LOG at start,
// ERROR for a call that needs the counters.
void report_doubt(SharedCounters *s, int elevel);

// Replay of a logged refill (startup process): raises the counters and marks
// of s (null without server-wide counters) past `logged`, and the file's;
// for a logged release of runs, the runs become logged's; for a release of
// clock Hot Guid seconds, their bound becomes logged's (never below a
// second this start opened) and the current second is closed as the
// primary closed it. A file that could not be read is replaced by the
// replayed marks, which cover it.
enum class ReplayKind : uint8 { reserve, release_runs, release_hot_seconds };
void replay_reservation(SharedCounters *s, const ReservedState &logged, ReplayKind kind);

// Replay of a lineage record: the lineage taken as logged (a WAL history
// is linear: the newest record knows every identity before it), and
// written to the file by a server that replays another's WAL (crash
// recovery of its own finds it there already).
void replay_lineage(SharedCounters *s, const locality::Lineage &logged, uint64 record_start);

// The end of recovery: Hot Guids of the current second (or of a later
// reserved one) may have been made by the server whose WAL was replayed;
// those seconds count as full. After another server's WAL, a clock behind
// the seconds it reserved gets the first unused one opened (as a restart
// does), so clock Hot Guids are made at once, up to two seconds ahead.
void close_current_hot_second(SharedCounters *s);

}  // namespace locality_pg
