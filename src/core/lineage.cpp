#include "lineage.hpp"

namespace locality {
namespace {

std::uint64_t min_u64(std::uint64_t a, std::uint64_t b) noexcept { return a < b ? a : b; }

LineageSlot *find_slot(LineageTable &t, std::uint32_t key) noexcept {
    for (LineageSlot &s : t.slots)
        if (s.key == key) return &s;
    return nullptr;
}

// A slot for key: a free one, else the least recently active other than
// the active identity's (an identity evicted is one that has not led for
// the longest; with leases, one that never comes back).
LineageSlot *new_slot(LineageTable &t, std::uint32_t key) noexcept {
    LineageSlot *pick = nullptr;
    for (LineageSlot &s : t.slots) {
        if (s.key == 0) {
            pick = &s;
            break;
        }
        if (s.key != t.active && (pick == nullptr || s.used < pick->used)) pick = &s;
    }
    *pick = LineageSlot{};
    pick->key = key;
    return pick;
}

// The active identity's arc closed, into its slot: where it stopped
// cleanly if it did (exact), else at now (the counters or their reserved
// marks: it may have drawn up to them).
void leave(LineageTable &t, const LineageCycles &c, const std::uint64_t *now) noexcept {
    const bool exact = t.stopped != 0;
    if (t.active != 0) {
        LineageSlot *a = find_slot(t, t.active);
        if (a == nullptr) a = new_slot(t, t.active);
        for (int i = 0; i < c.count; ++i) {
            const std::uint64_t at = exact ? t.stopped_at[i] : now[i];
            a->last[i] = at;
            a->span[i] = lineage_active_arc(t, c, i, at);
        }
        a->exact = exact ? kExactStop : 0;
        a->stopped_lifetime = exact ? t.stopped_lifetime : 0;
    }
    lineage_unstop(t);
}

// key made active at entered[i], with arc[i] used already.
void enter(LineageTable &t, const LineageCycles &c, std::uint32_t key, const std::uint64_t *entered,
           const std::uint64_t *arc) noexcept {
    LineageSlot *s = find_slot(t, key);
    if (s == nullptr) s = new_slot(t, key);
    s->used = ++t.clock;
    t.active = key;
    lineage_unstop(t);
    for (int i = 0; i < c.count; ++i) {
        t.entered[i] = entered[i];
        t.arc_at_entry[i] = min_u64(arc[i], c.cycle[i]);
    }
}

}  // namespace

const LineageSlot *lineage_find(const LineageTable &t, std::uint32_t key) noexcept {
    if (key == 0) return nullptr;
    for (const LineageSlot &s : t.slots)
        if (s.key == key) return &s;
    return nullptr;
}

std::uint64_t lineage_active_arc(const LineageTable &t, const LineageCycles &c, int i, std::uint64_t now) noexcept {
    if (t.active == 0) return 0;
    const std::uint64_t passed = now > t.entered[i] ? now - t.entered[i] : 0;
    return min_u64(c.cycle[i], t.arc_at_entry[i] + min_u64(passed, c.cycle[i]));
}

void lineage_stop(LineageTable &t, const LineageCycles &c, const std::uint64_t *exact,
                  std::uint32_t lifetime) noexcept {
    if (t.active == 0) return;
    t.stopped = 1;
    t.stopped_lifetime = lifetime;
    for (int i = 0; i < c.count; ++i) t.stopped_at[i] = exact[i];
}

bool lineage_unstop(LineageTable &t) noexcept {
    const bool was = t.stopped != 0;
    t.stopped = 0;
    t.stopped_lifetime = 0;
    for (std::uint64_t &at : t.stopped_at) at = 0;
    return was;
}

LineageMoveTaken lineage_move(LineageTable &t, const LineageCycles &c, std::uint32_t key, const std::uint64_t *now,
                              const std::uint64_t *random, std::uint64_t *target, bool trust_returns) noexcept {
    std::uint64_t arc[kLineageCounters] = {};
    const LineageSlot *seen = key != 0 && key != t.active ? lineage_find(t, key) : nullptr;
    const LineageSlot *known = trust_returns ? seen : nullptr;
    const LineageMoveTaken taken{key == 0                ? LineageRule::unknown
                                 : key == t.active       ? LineageRule::copy
                                 : known != nullptr      ? LineageRule::returning
                                 : seen != nullptr       ? LineageRule::returning_untrusted
                                                         : LineageRule::new_identity,
                                 known != nullptr ? known->last[0] : 0, known != nullptr ? known->exact : 0};
    for (int i = 0; i < c.count; ++i) {
        const std::uint64_t cycle = c.cycle[i];
        if (key != 0 && key == t.active) {
            // A copy of the active identity: its origin draws on from where
            // it stands, the copy from the target, and both must stay off
            // the arc the identity has used (a copy of a copy, say an
            // upgraded cluster's promoted standby, meets the first origin's
            // ids at the start of that arc). An eighth of the cycle is the
            // least kept each way (two Hot Guid refills: an origin that
            // restarts skips to its reserved mark). Where the unused part
            // allows:
            //   * three quarters or more unused (an identity that has made
            //     few ids): up to 3/8 short of its arc, room for a copy of
            //     the copy to keep an eighth each way in turn; for a fresh
            //     identity half the cycle to choose from, as before the
            //     lineage, a quarter at three quarters unused (two copies
            //     of one origin meet by chance alone);
            //   * more than a quarter unused: an eighth each way (the
            //     range narrows to one place just above a quarter);
            //   * less: no eighth each way is left; a quarter to three
            //     quarters of the cycle, at random, as before the lineage.
            const std::uint64_t used = lineage_active_arc(t, c, i, now[i]);
            const std::uint64_t room = cycle - used;
            std::uint64_t near = cycle / 4, far = 3 * cycle / 4;
            if (room > cycle / 4) {
                near = cycle / 8;
                far = room - (room >= 3 * cycle / 4 ? 3 * cycle / 8 : cycle / 8);
            }
            const std::uint64_t d = near + random[i] % (far - near);
            target[i] = now[i] + d;
            arc[i] = used + d;
        } else if (known != nullptr) {
            // Where key stopped cleanly (its server's last record said so,
            // and nothing since) or its host's marks say it reserved up to
            // (lineage_witness), else a sixteenth to an eighth of the
            // cycle above where it left (room for a lost tail of a refill:
            // an asynchronous failover, a crash); at or past now, congruent
            // to that place: its ids go on as one arc.
            const std::uint64_t d = known->exact != 0 ? 0 : cycle / 16 + random[i] % (cycle / 16);
            target[i] = now[i] + ((known->last[i] + d - now[i]) & (cycle - 1));
            arc[i] = known->span[i] + d;
        } else {
            // A new identity, or an unknown one: as before the lineage.
            target[i] = now[i] + cycle / 4 + random[i] % (cycle / 2);
            arc[i] = 0;
        }
    }
    if (key == 0) {
        leave(t, c, now);
        t.active = 0;
        return taken;
    }
    if (key != t.active) leave(t, c, now);
    enter(t, c, key, target, arc);
    return taken;
}

LineageWitness lineage_witness(LineageTable &t, const LineageCycles &c, std::uint32_t key, std::uint32_t used,
                               std::uint32_t lifetime, const std::uint64_t *marks) noexcept {
    LineageSlot *s = key != 0 && key != t.active ? find_slot(t, key) : nullptr;
    if (s == nullptr) return LineageWitness::not_returning;
    const bool stopped = s->exact == kExactStop;
    // The file of the start that stopped: written before the stop, at or
    // above it; the stop is the exact word.
    if (s->exact == kExactHostMarks || (stopped && lifetime == s->stopped_lifetime))
        return LineageWitness::already_exact;
    bool above = false;
    for (int i = 0; i < c.count; ++i) {
        if (marks[i] < s->last[i]) return stopped ? LineageWitness::already_exact : LineageWitness::behind;
        above = above || marks[i] > s->last[i];
    }
    if (stopped && !above) return LineageWitness::already_exact;  // nothing drawn past the stop
    for (int i = 0; i < c.count; ++i) {
        s->span[i] = min_u64(c.cycle[i], s->span[i] + min_u64(marks[i] - s->last[i], c.cycle[i]));
        s->last[i] = marks[i];
    }
    s->stopped_lifetime = 0;
    if (s->used != used) {  // the gap kept, above the marks
        s->exact = 0;
        return LineageWitness::raised;
    }
    s->exact = kExactHostMarks;
    return stopped ? LineageWitness::taken_after_stop : LineageWitness::taken;
}

void lineage_rebind(LineageTable &t, const LineageCycles &c, std::uint32_t key, const std::uint64_t *now) noexcept {
    if (key == t.active) return;
    std::uint64_t arc[kLineageCounters] = {};
    const LineageSlot *known = lineage_find(t, key);
    for (int i = 0; i < c.count && known != nullptr; ++i) {
        // Its arc runs on from where it left to now: what the counters
        // passed meanwhile counts as its own (no gap: nothing moved).
        const std::uint64_t passed = now[i] > known->last[i] ? now[i] - known->last[i] : 0;
        arc[i] = known->span[i] + min_u64(passed, c.cycle[i]);
    }
    leave(t, c, now);
    if (key == 0) {
        t.active = 0;
        return;
    }
    enter(t, c, key, now, arc);
}

}  // namespace locality
