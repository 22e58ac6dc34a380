// Copies made harmless without knowing they are copies. A restored backup,
// a clone, a point-in-time restore and a promoted standby all start from
// their origin's marks (the state file, the WAL), and the origin may still
// make ids: if both continued from the same marks with one node value,
// their ids would line up (review: 200,000 of 200,000 given-time ids).
// Refusing ids there would turn every failover into an outage, so instead,
// whenever a server starts somewhere else than its counters were bound
// (binding.hpp: host, data directory, system identifier) or ends a
// recovery that replayed another server's WAL, every server-wide counter
// moves past its mark by a fresh random distance, and the window runs get
// a fresh run start: copy and origin continue from unrelated places. The
// distances keep an eighth of each counter's cycle or more clear on
// either side (src/core/lineage.hpp), so the two repeat no id until one
// has made an eighth of a cycle more than the other since the copy's
// marks (doc/guarantees.md, "Not tested", has the arithmetic).
//
// A move is made once per event: its target is recorded in the binding
// file before it is applied, and the record says "bound" only once the
// state file holds the move (dealign.cpp has the steps), so a crash or a
// failed write completes the same move, never draws a second one.
#pragma once

#include "pg_boundary.hpp"

#include "binding.hpp"
#include "reservations/restore.hpp"
#include "reservations/shared_counters.hpp"
#include "reservations/state_file.hpp"

namespace locality_pg {

// At the start of a shared-memory lifetime, before the state file is read
// (start.cpp): reads the binding file and takes its run start; a server
// about to replay another server's WAL gets a move due before its first id
// after recovery (moves_pending), and its binding file says so ("due").
void read_binding_at_start(SharedCounters *s);

// Then, once the file's marks are applied and before they are written
// back: completes a move the binding file records as under way; or moves
// the counters if they were bound elsewhere or it cannot be known (another
// host, data directory or system identifier; a file of another cluster; a
// binding file missing, unreadable or due; a host identity that cannot be
// read). Nothing for a server that replays another server's WAL. A move
// whose record cannot be written is left to the first id (ids fail until
// it can be). Keeps what it decided for bind_after_start.
void check_binding_at_start(SharedCounters *s, const ReservedState &saved, bool restored,
                            const FreshCounters &fresh);

// Whether the start moved the counters (the file is then stamped as this
// cluster's when written back).
bool start_moved_counters();

// After the marks were written back at start (or, marks_written false, could
// not be): the binding file says "bound" (once the file holds a move), and
// the move, the new binding or the new values are logged.
void bind_after_start(SharedCounters *s, bool marks_written);

// Before a server-wide id while a move is due or drawn (a recovery of
// another server's WAL, a start or an accept whose record failed):
// records, applies and writes it, once, under the lock; ERROR if the
// binding or the state file cannot be written (ids wait for them, as for
// any refill).
void settle_moves(SharedCounters *s);

// Before a server-wide id while the start could not read the host
// identity file (identity_unreadable): ERROR (55000) while it still
// cannot; once it can, under the lock, the counters stay bound here if the
// identity is the binding's, and a move is made due (moves_pending, stored
// before the flag is cleared) if it is another host's or the binding
// records a move never completed. The caller then settles the move: every
// backend reads the flag, then moves_pending, so none draws before it.
void settle_identity(SharedCounters *s);

// Whether the start found a binding file (readable or not): a cluster
// that ran 1.3 here before, for how loudly fresh counters are said.
bool binding_found_at_start();

// A superuser accepted the state file (accept.cpp, holding the lock), its
// marks applied: the counters move past them as a copy's, recorded, before
// they are published as available (a move that cannot be recorded is left
// to the first id, whose ids fail until it is). True if moved now.
bool move_accepted(SharedCounters *s, const FreshCounters &fresh);

// After the accepted marks were written back (marks_written): the binding
// file says bound, and the move is logged.
void bind_accepted(SharedCounters *s, bool moved, bool marks_written);

// After a reload changed the node value, the machine name or where they
// come from: the binding records them (LOG, old and new), under the lock,
// keeping its place. False if another backend held the lock (nothing waits
// for it here).
bool rebind_values(SharedCounters *s);

// Whether the counters are bound here, and since when (Unix seconds), read
// under the lock (waited for interruptibly).
bool bound_since(SharedCounters *s, int64 *since);

}  // namespace locality_pg
