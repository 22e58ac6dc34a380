// The steps start-up, accept and replay share (restore_steps.cpp); for the
// files of reservations/ only.
#pragma once

#include "pg_boundary.hpp"

#include "reservations/restore.hpp"
#include "reservations/shared_counters.hpp"
#include "reservations/state_file.hpp"

namespace locality_pg {

// Takes the reservation lock as a refill's waiters do: cancellable, and
// visible as an Extension wait while a refill's fsync holds it. Released
// with release_counters_lock, which wakes the waiters.
void acquire_counters_lock(SharedCounters *s);
void release_counters_lock(SharedCounters *s);

// Raises a counter to at least `floor` (only replay and start-up move a
// counter this way; generation only adds).
void raise_counter(pg_atomic_uint64 *cell, uint64 floor);

// The newest second clock Hot Guids can carry counts as full, its window
// ending at the draw mark: ids made in it by the server whose file or WAL
// this is are not known.
void close_hot_seconds(SharedCounters *s);

// Opens `second` (reserved below `reserved_until`, on disk) with a window
// that starts at the draw mark, for clock Hot Guids while the clock is
// behind it.
void open_hot_second(SharedCounters *s, uint64 second, uint64 reserved_until);

// When the clock stands behind the seconds reserved in `*written` and no
// second stands open for it yet: the first second no id can carry yet,
// with *written reserving kHotSecondsAhead more; 0 otherwise. Once the
// marks are written, open_hot_second(s, that second, written->hot_seconds)
// lets clock Hot Guids go on at once instead of waiting (error 54000)
// until the clock catches up.
uint64 unused_hot_second(SharedCounters *s, ReservedState *written);

// Raises every counter and mark of s to `saved`'s and takes its
// variable-mode start; `restored`: saved comes from a file.
void apply_state(SharedCounters *s, const ReservedState &saved, bool restored);

// The file's marks into *saved, or fresh counters if there is none. False
// (the reason kept in s) if it exists but cannot be read; *restored says
// whether there was a file.
bool read_or_fresh(SharedCounters *s, const FreshCounters &fresh, ReservedState *saved, bool *restored);

}  // namespace locality_pg
