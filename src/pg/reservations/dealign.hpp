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
// distances keep a quarter of each counter's cycle clear on either side,
// so the two repeat no id until one has made a quarter cycle more than
// the other (doc/guarantees.md, "Copies", has the arithmetic). A move
// costs nothing but the places skipped: variable, given-time and Hot Guid
// counters are 64 bits wide, a window's run loses at most 2^24 of 2^31.
//
// The moved marks are written to the file before the binding: a crash
// between the two moves again at the next start, never not at all.
#pragma once

#include "pg_boundary.hpp"

#include "binding.hpp"
#include "reservations/restore.hpp"
#include "reservations/shared_counters.hpp"
#include "reservations/state_file.hpp"

namespace locality_pg {

// Moves every counter of s past its mark by fresh's distances (marks =
// counters: the first draw of each refills, and so reaches file and WAL),
// closes the current clock Hot Guid second (or opens an unused one again
// from the moved draw), and takes a run start 2^22 to 3 * 2^22 (mod 2^24)
// past the one the counters were bound with.
// Nothing may generate meanwhile: the postmaster at start, or the caller
// holds the lock while the server makes no ids yet.
void move_counters_on(SharedCounters *s, const FreshCounters &fresh);

// At the start of a shared-memory lifetime, before the state file is read
// (start.cpp): reads the binding file, takes its run start, and for a
// server about to replay another server's WAL sets the move for its first
// id after recovery (moves_pending).
void read_binding_at_start(SharedCounters *s);

// Then, once the file's marks are applied and before they are written
// back: moves the counters if they were bound elsewhere (another host,
// data directory or system identifier; a file of another cluster; a
// binding that cannot be read); nothing for a server that replays another
// server's WAL. Keeps what it decided for bind_after_start.
void check_binding_at_start(SharedCounters *s, const ReservedState &saved, bool restored,
                            const FreshCounters &fresh);

// Whether check_binding_at_start moved the counters (the file is then
// stamped as this cluster's when written back).
bool start_moved_counters();

// After the marks were written back at start (or, marks_written false, could
// not be): writes the binding file and logs a move.
void bind_after_start(SharedCounters *s, bool marks_written);

// The first server-wide id after a recovery that replayed another
// server's WAL (a promotion, a point-in-time restore, a start from a base
// backup): moves the counters and binds them here, once, under the lock.
// ERROR if the moved marks cannot be written (ids wait for the file, as
// for any refill).
void settle_after_recovery(SharedCounters *s);

// A superuser accepted the file (accept.cpp): its counters moved on too
// (move_counters_on), and once the marks are written they are bound here.
// The caller holds the lock.
void bind_accepted(SharedCounters *s);

// After a reload changed the node value, the machine name or where they
// come from: the binding records them (LOG, old and new), under the lock.
// False if another backend held the lock (nothing waits for it here).
bool rebind_values(SharedCounters *s);

// Whether the counters are bound, and since when (Unix seconds), read under
// the lock (waited for interruptibly).
bool bound_since(SharedCounters *s, int64 *since);

}  // namespace locality_pg
