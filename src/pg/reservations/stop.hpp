// A clean stop of the server-wide counters (PostgreSQL 15+): when the
// server shuts down, the worker "locality_uuid stop" records, in WAL,
// exactly where the counters stand, so a standby promoted after this
// primary's clean stop (a switchover) knows that this identity drew
// nothing at or past those places, not merely nothing past its reserved
// marks. When the identity leads again (a switchover back), it continues
// there instead of a sixteenth to an eighth of each cycle above its marks
// (lineage.hpp): its arc then grows by its draws alone, and a member
// switched over and back any number of times does not meet its own ids
// before it has drawn a whole cycle.
//
// Why it is exact: the stop closes the three counters' marks (0 in
// shared memory) under the lock and then, after a full barrier, reads the
// counters. A backend draws by an atomic add (a full barrier) and then
// reads the mark: either its add came first, and the stop read counts its
// draw, or it reads the closed mark and takes the slow path, whose refill
// logs the lineage without the stop before its own record; every server
// replaying that WAL makes the stop void (replay.cpp). (Blocks of 256
// Locality draws a backend took before are below the counters read.)
#pragma once

#include "pg_boundary.hpp"

namespace locality_pg {

// Registers the worker (from _PG_init while shared_preload_libraries is
// processed, with server-wide counters on); nothing before PostgreSQL 15.
void register_stop_worker();

// The stop: false (and nothing logged) if the counters are not in a state
// whose positions mean anything (unavailable, a move pending, in recovery).
bool stop_counters(uint64 *node, uint64 *machine);

}  // namespace locality_pg

extern "C" {
PGDLLEXPORT void locality_uuid_stop_main(Datum arg);
}
