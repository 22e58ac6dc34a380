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
// Locality draws a backend took before are below the counters read.) As
// that refill may be lost with a crash, a promoted standby takes the stop
// as exact only once it finds, in its WAL, the stopped server's shutdown
// checkpoint after it with nothing of the counters between
// (stop_confirmed).
#pragma once

#include "pg_boundary.hpp"

#include "lineage.hpp"

namespace locality_pg {

// Forgets a clean stop in either table of l (and where its record was);
// true if there was one. A server that draws, or replays a record of the
// counters after the stop, or moves without confirming it, has none.
inline bool forget_stop(locality::Lineage *l) {
    const bool node = locality::lineage_unstop(l->node);
    const bool machine = locality::lineage_unstop(l->machine);
    l->stop_record = 0;
    return node || machine;
}

// Registers the worker (from _PG_init while shared_preload_libraries is
// processed, with server-wide counters on); nothing before PostgreSQL 15.
void register_stop_worker();

// The stop: false (and nothing logged) if the counters are not in a state
// whose positions mean anything (unavailable, a move pending, in recovery).
bool stop_counters(uint64 *node, uint64 *machine);

// Whether the marks a stop closed are still closed (no draw since).
bool stop_still_closed();

// Whether the stop whose record begins at stop_record (Lineage's, as this
// server replayed it) held: the record is followed, in the WAL that
// reached this server, by its server's shutdown checkpoint and no record
// of the counters before it. A stop whose later records were lost (the
// server crashed after a draw reopened its marks, the standby promoted
// before it had everything) is not, and the move takes the gap of a crash.
// In a backend after recovery; false on any error reading WAL.
bool stop_confirmed(uint64 stop_record);

}  // namespace locality_pg

extern "C" {
PGDLLEXPORT void locality_uuid_stop_main(Datum arg);
}
