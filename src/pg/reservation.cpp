#include "reservation.hpp"

#include <cerrno>

#include "generator.hpp"
#include "hot_guid_generator.hpp"
#include "state_file.hpp"
#include "wall_clock.hpp"

namespace locality_pg {
namespace {

ReservedState snapshot(SharedCounters *s) {
    ReservedState r{};
    r.variable_start = s->variable_start;
    r.variable = pg_atomic_read_u64(&s->variable_until.value);
    r.explicit_sequential = pg_atomic_read_u64(&s->explicit_until.value);
    r.hot_guid = pg_atomic_read_u64(&s->hot_until.value);
    for (uint32 i = 0; i < locality::kRunSlots; ++i) r.runs[i] = pg_atomic_read_u64(&s->run_until[i].value);
    return r;
}

void publish(SharedCounters *s, const ReservedState &r) {
    pg_atomic_write_u64(&s->variable_until.value, r.variable);
    pg_atomic_write_u64(&s->explicit_until.value, r.explicit_sequential);
    pg_atomic_write_u64(&s->hot_until.value, r.hot_guid);
    for (uint32 i = 0; i < locality::kRunSlots; ++i) pg_atomic_write_u64(&s->run_until[i].value, r.runs[i]);
}

// The error of the last failed write, reported after the draw failed.
int reserve_errno = 0;

// Raises d's mark to d + its reservation and rewrites the file; the caller
// holds the writer flag. False (errno saved) if the file could not be written.
bool extend_reservation(SharedCounters *s, const locality::Draw &d) {
    ReservedState next = snapshot(s);
    switch (d.counter) {
        case locality::Counter::variable: next.variable = d.position + kReserve; break;
        case locality::Counter::explicit_sequential: next.explicit_sequential = d.position + kReserve; break;
        case locality::Counter::hot_guid: next.hot_guid = d.position + kHotReserve; break;
        case locality::Counter::run:
            next.runs[d.slot] = ((static_cast<uint64>(d.window) + 1) << 32) |
                                Min(d.position + kReserve, static_cast<uint64>(locality::kRunIds));
            break;
    }
    if (!write_state_file(next)) {
        reserve_errno = errno;
        return false;
    }
    publish(s, next);
    return true;
}

}  // namespace

// A draw past half of its reservation raises the mark, if no other backend
// is writing the file, while everyone keeps drawing below the old mark; only
// a draw at or past the mark itself waits for the file. The writer flag is
// always released.
__attribute__((noinline)) bool reserve_slow(SharedCounters *s, const locality::Draw &d) noexcept {
    const uint64 half = reservation_of(d) / 2;
    bool waited = false;
    for (;;) {
        const bool needed = !covered(s, d);
        if (!needed && waited) return true;
        uint32 free_flag = 0;
        if (!pg_atomic_compare_exchange_u32(&s->writer, &free_flag, 1)) {
            if (!needed) return true;  // someone else is raising the mark
            pg_usleep(100);            // the mark is reached: wait for the writer
            waited = true;
            continue;
        }
        const bool ok = covered(s, d, half) || extend_reservation(s, d);
        pg_atomic_write_u32(&s->writer, 0);
        return ok || !needed;
    }
}

int reservation_errno() { return reserve_errno; }

void restore_counters(SharedCounters *s, uint32 fresh_start, uint32 fresh_hot) {
    ReservedState saved{};
    const StateRead read = read_state_file(&saved);
    if (read == StateRead::corrupt || read == StateRead::io_error)
        ereport(FATAL, (errcode(ERRCODE_DATA_CORRUPTED),
                        errmsg("could not read \"%s\" in the data directory", kStateFile),
                        errdetail("The file holds the reserved counters of locality_uuid's "
                                  "server-wide generators; starting without them could repeat ids."),
                        errhint("Restore the file. Delete it only after giving this server a new "
                                "locality_uuid.node_id and locality_uuid.machine_name.")));
    const bool restored = read == StateRead::ok;
    if (!restored) {
        saved = ReservedState{};
        saved.variable_start = fresh_start;
        saved.hot_guid = fresh_hot;
    }
    s->variable_start = saved.variable_start;
    pg_atomic_init_u64(&s->variable.value, saved.variable);
    pg_atomic_init_u64(&s->explicit_sequential.value, saved.explicit_sequential);
    pg_atomic_init_u64(&s->hot_draws.value, saved.hot_guid);
    pg_atomic_init_u64(&s->variable_until.value, saved.variable);
    pg_atomic_init_u64(&s->explicit_until.value, saved.explicit_sequential);
    pg_atomic_init_u64(&s->hot_until.value, saved.hot_guid);
    for (uint32 i = 0; i < locality::kRunSlots; ++i) {
        pg_atomic_init_u64(&s->runs[i].value, saved.runs[i]);
        pg_atomic_init_u64(&s->run_until[i].value, saved.runs[i]);
    }
    // Hot Guids made in this very second before the restart are not known:
    // the second counts as full, so ids wait for the next one.
    const uint64 second = static_cast<uint64>(locality::wall_clock_millis() / 1000);
    const uint32 full_from = static_cast<uint32>(saved.hot_guid) - static_cast<uint32>(locality::kHotIdsPerSecond);
    pg_atomic_init_u64(&s->hot_second.value, restored ? ((second + 1) << 32) | full_from : 0);
    pg_atomic_init_u32(&s->writer, 0);
    if (!write_state_file(saved))
        ereport(FATAL, (errcode_for_file_access(), errmsg("could not write \"%s\": %m", kStateFile)));
    ereport(LOG, (errmsg("locality_uuid: server-wide counters %s",
                         restored ? "continue past the reserved marks in " "\"locality_uuid.state\""
                                  : "start fresh (no \"locality_uuid.state\" yet)")));
}

}  // namespace locality_pg
