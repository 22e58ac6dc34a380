#include "reservations/reservation.hpp"

#include <cerrno>
#include <ctime>

#include <unistd.h>

extern "C" {
#include "access/xlog.h"
#if PG_VERSION_NUM >= 140000
#include "utils/wait_event.h"  // PG_WAIT_EXTENSION (in pgstat.h before 14)
#endif
}

#include "durable_file.hpp"
#include "generator.hpp"
#include "reservations/host_marks.hpp"
#include "reservations/marks.hpp"
#include "reservations/reservation_wal.hpp"
#include "reservations/stop.hpp"

namespace locality_pg {
namespace {

// The error of the last failed write, reported after the draw failed, and
// whether it was the host's marks file's (else the state file's).
int reserve_errno = 0;
bool reserve_failed_host = false;

// After a failed write, the next attempt waits this long (F11 of the 1.2
// review: a failing disk otherwise meets a write attempt, and a LOG line
// from fd.c, on every draw of the half reservation before the mark).
constexpr uint64 kRetryMillis = 100;

// Milliseconds of CLOCK_MONOTONIC: one clock for every backend, which no
// clock step moves.
uint64 monotonic_millis() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64>(ts.tv_sec) * 1000 + static_cast<uint64>(ts.tv_nsec) / 1000000;
}

// Whether a write failed less than kRetryMillis ago; then reserve_errno is
// that write's error.
bool backing_off(SharedCounters *s) {
    const uint64 retry_at = pg_atomic_read_u64(&s->write_retry_at);
    if (retry_at == 0 || monotonic_millis() >= retry_at) return false;
    pg_read_barrier();  // the error stored before the time
    reserve_errno = s->write_errno;
    reserve_failed_host = s->write_failed_host;
    return true;
}

// Where this server's WAL goes now, for the file (informational).
TimeLineID current_timeline() {
    if (RecoveryInProgress()) return 0;
#if PG_VERSION_NUM >= 150000
    return GetWALInsertionTimeLine();
#else
    return ThisTimeLineID;
#endif
}


// Whether d, of a counter a clean stop closes, lies below its mark in m
// less half a reservation (the margin of the fast path, covered_ahead).
bool below_closed_mark(SharedCounters *s, const ReservedState &m, const locality::Draw &d) {
    const uint64 margin = reservation_of(d) / 2;
    switch (d.counter) {
        case locality::Counter::variable: return d.position + margin < m.variable;
        case locality::Counter::explicit_sequential: return d.position + margin < m.explicit_sequential;
        case locality::Counter::hot_guid: return d.position + s->hot_step / 2 < m.hot_guid;
        default: return false;
    }
}

// After a failed write of the host's marks file at "auto" (beside the data
// directory, where nobody chose to put it): the file removed, so that no
// return takes what it held for the end of this lifetime's ids, and not
// written again in this lifetime; true. False (errno the write's) if the
// setting names a path, or the file is there and cannot be removed: ids
// past the marks then fail, as for the state file.
bool give_up_host_marks(SharedCounters *s) {
    const int write_errno = errno;
    if (!host_marks_auto()) return false;
    if (unlink(host_marks_path()) != 0 && errno != ENOENT) {
        errno = write_errno;
        return false;
    }
    sync_directory_of(host_marks_path());
    s->host_marks_given_up = true;
    errno = write_errno;
    ereport(LOG, (errcode_for_file_access(),
                  errmsg("locality_uuid: gave up the host's marks file \"%s\": %m", host_marks_path()),
                  errdetail("locality_uuid.host_marks_file is \"auto\" and the file could not be written beside the "
                            "data directory: until the next start, a member that leads again after a failover "
                            "skips 1/16 to 1/8 of each counter's cycle above what its history knows."),
                  errhint("Make the data directory's parent writable by the server, or set "
                          "locality_uuid.host_marks_file to a path it may write.")));
    return true;
}

// d's mark raised in *next to d + its reservation, never lowered: a draw
// reaches the slow path below its mark too, when a clean stop closed the
// marks (stop.hpp), from a block of Locality draws a backend took long
// before.
void raise_mark(SharedCounters *s, const locality::Draw &d, ReservedState *next) {
    switch (d.counter) {
        case locality::Counter::variable: next->variable = Max(next->variable, d.position + kReserve); break;
        case locality::Counter::explicit_sequential:
            next->explicit_sequential = Max(next->explicit_sequential, d.position + kReserve);
            break;
        case locality::Counter::hot_guid:
            next->hot_guid = Max(next->hot_guid, d.position + hot_refill_step(s->hot_step));
            break;
        case locality::Counter::hot_second: next->hot_seconds = Max(next->hot_seconds, d.position + kHotSecondsAhead); break;
        case locality::Counter::run: {
            next->runs[d.slot] = ((static_cast<uint64>(d.window) + 1) << 32) |
                                Min(d.position + kReserve, static_cast<uint64>(locality::kRunIds));
            // The next window's run is reserved ahead too, so that its first
            // ids, at the rollover, find their mark already on disk instead
            // of all waiting for this write. (Its slot's older run, 63
            // windows back, is then refused after a restart: a clock more
            // than 10.5 hours behind.) Its run begins at the run start.
            const uint64 following = static_cast<uint64>(d.window) + 2;  // (window + 1) + 1
            const uint64 first_ids = pg_atomic_read_u32(&s->run_start) + kReserve;
            uint64 &ahead = next->runs[(d.window + 1) % locality::kRunSlots];
            ahead = Max(ahead, (following << 32) | first_ids);
            break;
        }
    }
}

// Raises d's mark to d + its reservation: the file first, then the WAL
// record (flushed), then shared memory (the order reservation.hpp's
// invariant rests on). The caller holds the lock. False (errno saved) if the
// file could not be written; nothing is published then.
bool extend_reservation(SharedCounters *s, const locality::Draw &d) {
    // A server that draws has no clean stop (one its lineage holds from a
    // standby's file would otherwise travel on, in the file and in WAL).
    if (forget_stop(&s->lineage)) s->lineage_unlogged = true;
    ReservedState next = snapshot(s);
    // A draw well below the marks a clean stop closed (stop.hpp): the file
    // holds them, and a record of them (after the lineage, which the stop
    // left unlogged) opens them again, without a write a failing disk
    // would refuse.
    const bool file_holds = s->stop_closed && below_closed_mark(s, next, d);
    if (!file_holds) raise_mark(s, d, &next);
    stamp_cluster(&next);
    // The host's marks file after the state file, both before the WAL and
    // the marks: a failover's lost record is then on this host's disk. Only
    // for the counters the lineage places (a run's or a clock second's
    // refill leaves their marks, which a first draw of each in this
    // lifetime wrote, as they are).
    const bool lineage_counter = d.counter == locality::Counter::variable ||
                                 d.counter == locality::Counter::explicit_sequential ||
                                 d.counter == locality::Counter::hot_guid;
    const char *failed = nullptr;  // the file whose write failed
    if (!file_holds && !write_marks(s, next))
        failed = kStateFile;
    else if (!file_holds && lineage_counter && host_marks_on() && !s->host_marks_given_up &&
             !write_host_marks(next, s->lineage, s->lifetime) && !give_up_host_marks(s))
        failed = host_marks_path();
    if (failed != nullptr) {
        const bool host = failed != kStateFile;
        reserve_errno = errno;
        reserve_failed_host = host;
        s->write_errno = errno;
        s->write_failed_host = host;
        pg_write_barrier();  // the error before the time that makes others read it
        pg_atomic_write_u64(&s->write_retry_at, monotonic_millis() + kRetryMillis);
        // At most one line per kRetryMillis. (A LOG cannot longjmp but on
        // out-of-memory, where the abort releases the lock.)
        errno = reserve_errno;
        ereport(LOG, (errcode_for_file_access(),
                      errmsg("locality_uuid: could not write \"%s\": %m", failed),
                      errdetail("Ids below the reserved marks are still made; the next attempt is in %d ms.",
                                static_cast<int>(kRetryMillis))));
        return false;
    }
    pg_atomic_write_u64(&s->write_retry_at, 0);
    if (s->lineage_unlogged) {
        log_lineage(s->lineage);  // before the marks, flushed with them
        s->lineage_unlogged = false;
    }
    log_reservation(next);
    if (d.counter == locality::Counter::hot_guid && !file_holds) s->hot_step = hot_refill_step(s->hot_step);
    publish(s, next);
    return true;
}

}  // namespace

void stamp_cluster(ReservedState *marks) {
    marks->system_identifier = GetSystemIdentifier();
    marks->timeline = current_timeline();
}

// A draw past half of its reservation raises the mark, if no other backend
// holds the lock, while everyone keeps drawing below the old mark. A draw at
// or past the mark itself waits for the backend raising it, on the
// condition variable: cancellable, and visible in pg_stat_activity (wait
// event type "Extension"), even while that backend is stuck in an fsync.
// After a failed write, for kRetryMillis, nobody tries again: draws below
// the mark are served, a draw at it fails at once.
__attribute__((noinline)) bool reserve_slow(SharedCounters *s, const locality::Draw &d) noexcept {
    if (covered(s, d)) {
        if (backing_off(s)) return true;
        if (!LWLockConditionalAcquire(s->lock, LW_EXCLUSIVE)) return true;  // someone is raising it
        const bool ok = covered_ahead(s, d) || extend_reservation(s, d);
        LWLockRelease(s->lock);
        ConditionVariableBroadcast(&s->raised);
        return ok || covered(s, d);
    }
    ConditionVariablePrepareToSleep(&s->raised);
    bool ok;
    for (;;) {
        if (covered(s, d)) {
            ok = true;
            break;
        }
        if (backing_off(s)) {
            ok = false;
            break;
        }
        if (LWLockConditionalAcquire(s->lock, LW_EXCLUSIVE)) {
            ok = covered_ahead(s, d) || extend_reservation(s, d);
            LWLockRelease(s->lock);
            ConditionVariableBroadcast(&s->raised);
            ok = ok || covered(s, d);
            break;
        }
        // Interruptible; the timeout covers a holder that left by ERROR
        // without broadcasting.
        ConditionVariableTimedSleep(&s->raised, 100, PG_WAIT_EXTENSION);
    }
    ConditionVariableCancelSleep();
    return ok;
}

int reservation_errno() { return reserve_errno; }

const char *reservation_failed_file() { return reserve_failed_host ? host_marks_path() : kStateFile; }

}  // namespace locality_pg
