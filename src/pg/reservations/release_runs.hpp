// Releasing sequential runs that a clock glitch left far in the future.
//
// A run slot holds the newest window that drew from it (counter_cells.hpp),
// and a window 64 or more behind it is refused: that is what keeps a clock
// stepping back from restarting a run. But a clock that jumped forward by 64
// windows (10 h 40 min) or more for a moment leaves its slot held by a
// window the real clock reaches only much later; until then, every 64th
// window's sequential ids are refused, across restarts (the mark is on
// disk and in WAL). Only a DBA can tell a glitch from real time, so the
// release is a function (locality_uuid_release_future_windows(), superuser
// or granted), not a rule: it forgets the runs of windows at least 64
// ahead of the clock. Ids made in such a window carry its future times;
// once real time reaches it, its run starts again, and an id of the same
// millisecond, counter and pid may repeat one made during the glitch
// (doc/guarantees.md). The real window whose run the glitch replaced in
// that slot (the newest the clock has reached) lost its count then: the
// release closes it as full, so it never starts again.
//
// Standbys must run a library that knows the release record before the
// primary writes one (an older one stops replay at it).
#pragma once

#include "pg_boundary.hpp"

#include "reservations/shared_counters.hpp"
#include "reservations/state_file.hpp"

namespace locality_pg {

// Releases every run slot of s held by a window >= now_window + 64 (the
// file first, then a WAL record that standbys replay, then shared memory),
// and stores those windows in `windows` (room for kRunSlots). Returns how
// many, or (errno set) kReleaseNotWritten if the file could not be written
// (nothing changed), or kReleaseNotDurable if it was renamed into place but
// not made durable (the file may hold the release, nothing else does: the
// next refill rewrites it from shared memory, or a second call completes
// it). Waits for the reservation lock interruptibly.
constexpr int kReleaseNotWritten = -1;
constexpr int kReleaseNotDurable = -2;
int release_future_runs(SharedCounters *s, uint32 now_window, uint32 *windows);

// The same for clock Hot Guids (hot_guid_release_future_seconds()): if
// seconds more than 10 s past now_second are reserved (a forward clock
// glitch, or a clock that stepped back), the reservation
// goes back to now_second + 1 and the current second is closed as full
// (its ids before the glitch are not known), so clock Hot Guids carry the
// clock's seconds again from the next one. Stores the released seconds
// [*from, *to) and returns 1, or 0 with nothing to release, or the errors
// above. Ids of the released seconds may repeat once real time reaches
// them: the superuser's trade-off, as for runs.
int release_future_hot_seconds(SharedCounters *s, uint64 now_second, uint64 *from, uint64 *to);

// What a replayed release may lower the runs to: `to`'s, never below the
// target a move at this start applied, nor below what this server's own
// state file held at start, in the same window (a copy's crash recovery
// replays its origin's release, whose record holds the origin's marks of
// every held run: lowered there, the copy's runs would stand on its
// origin's places again; the file holds the copy's move when a crash
// during that recovery makes the next start replay it again). Raising a
// run only skips places. A run the release moves to another window (a
// glitch's slot closed) is moved.
ReservedState release_floored(const SharedCounters *s, const ReservedState &to);

// Replay of a release: moves every run of s back to `to`'s where `to`
// holds less, counters and marks (`to` floored by release_floored). Only
// for a server in recovery, where nothing draws; the caller holds the
// lock.
void lower_runs(SharedCounters *s, const ReservedState &to);

}  // namespace locality_pg
