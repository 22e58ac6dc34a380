// The lineage of the server-wide counters: for each identity that has made
// ids in one WAL history (a node value for Locality UUIDs, Hot Guid machine
// bytes for Hot Guids), where it left each counter and how much of the
// counter's cycle it has used. It travels with the counters (the state
// file, WAL), so a server that promotes, is rewound and promotes again
// knows where its own earlier leaderships stood.
//
// A move (a promotion, a copy: reservations/dealign.hpp) used to skip every
// counter by a random distance of a quarter to three quarters of its cycle;
// two such skips can add up to a whole cycle, and an identity that leads
// again two moves later then draws where it drew before (issue #51, finding
// 4: given-time Hot Guids, whose counter field has 24 bits, repeated). With
// the lineage a move goes:
//   * to an identity the lineage has carried, where the lineage is the
//     newest word on it (a promoted standby's: dealign.cpp): a sixteenth
//     to an eighth of the cycle above where it left (room for what it may
//     have drawn after its last record reached this history: an
//     asynchronous failover's lost tail of a refill). Its ids go on as
//     one arc, its draws and gaps, around the cycle: none meets another of
//     its ids less than a cycle of that arc behind it (unit-tested: moves
//     at random put an identity on its own ids within a few returns);
//   * to the identity that is active (a copy of the server): into what
//     its arc has not used, an eighth of the cycle or more clear of both
//     ends (and 3/8 short of the arc while three quarters are unused, so
//     that a copy of the copy keeps an eighth each way in turn:
//     unit-tested); with a quarter or less unused, at random as before;
//   * to an identity the lineage never carried: a random distance of a
//     quarter to three quarters of the cycle, as before (its ids differ
//     from every other identity's whatever the counters).
// Siblings that do not share a history (two promoted standbys, a copy and
// its origin) stay apart by chance only (doc/guarantees.md).
//
// Plain data of a fixed size (shared memory, a WAL record); PostgreSQL-free.
#pragma once

#include <cstdint>

namespace locality {

constexpr int kLineageSlots = 8;     // identities remembered per table; the least recently active goes first
constexpr int kLineageCounters = 2;  // counters per table (node: variable, given-time; machine: Hot Guid draws)

struct LineageSlot {
    std::uint32_t key;   // the identity + 1; 0: a free slot
    std::uint32_t used;  // the table's clock when it was last made active
    std::uint64_t last[kLineageCounters];  // where it left each counter (absolute draw positions)
    std::uint64_t span[kLineageCounters];  // the arc of each cycle it had used then (at most the cycle)
    // Not 0: `last` is exact, every draw of the identity below it and none
    // at or past it, so a return continues there, with no gap for a lost
    // tail. kExactStop: its server stopped cleanly there in this history
    // (lineage_stop); kExactHostMarks: its host's marks file says so
    // (lineage_witness).
    std::uint32_t exact;
    // kExactStop: the lifetime token of the server that stopped (a random
    // number each start draws): a host's marks file of a later start says
    // it drew past the stop (lineage_witness). (No padding: records and
    // files compare bytes.)
    std::uint32_t stopped_lifetime;
};

struct LineageTable {
    std::uint32_t active;  // the key of the identity making ids now; 0: none known
    std::uint32_t clock;
    std::uint64_t entered[kLineageCounters];  // where the active identity started its current arc
    std::uint64_t arc_at_entry[kLineageCounters];  // its arc then, the gap it was given included
    // 1: the active identity's server stopped cleanly with its counters at
    // stopped_at (lineage_stop) and, as far as this history knows, drew
    // nothing since: the next identity to lead leaves it there, exactly.
    std::uint32_t stopped;
    std::uint32_t stopped_lifetime;  // the stopping server's lifetime token
    std::uint64_t stopped_at[kLineageCounters];
    LineageSlot slots[kLineageSlots];
};

constexpr std::uint32_t kExactStop = 1;
constexpr std::uint32_t kExactHostMarks = 2;

// The two tables of the server-wide counters.
struct Lineage {
    LineageTable node;     // counters 0: variable draws (cycle 2^32), 1: given-time draws (2^31)
    LineageTable machine;  // counter 0: Hot Guid draws (2^24)
    // Where the record of a clean stop (either table's `stopped`) begins in
    // the WAL of the server that replayed it (0: not known, as on the
    // primary that logged it): the glue confirms the stop from there
    // before a move takes it as exact (src/pg/reservations/stop.hpp).
    std::uint64_t stop_record;
};

// Each table's counters: how many, and each one's cycle (a power of two).
struct LineageCycles {
    int count;
    std::uint64_t cycle[kLineageCounters];
};
constexpr LineageCycles kNodeCycles{2, {1ULL << 32, 1ULL << 31}};
constexpr LineageCycles kMachineCycles{1, {1ULL << 24, 0}};
// (The moves' arithmetic takes each cycle for a power of two of at least 8,
// at most 2^32: eighths are exact, 3 * cycle and a cycle's positions fit.)
constexpr bool lineage_cycles_fit(const LineageCycles &c) noexcept {
    for (int i = 0; i < c.count; ++i)
        if (c.cycle[i] < 8 || c.cycle[i] > (1ULL << 32) || (c.cycle[i] & (c.cycle[i] - 1)) != 0) return false;
    return c.count >= 1 && c.count <= kLineageCounters;
}
static_assert(lineage_cycles_fit(kNodeCycles) && lineage_cycles_fit(kMachineCycles), "lineage cycles");

// The key of a node value (0 to 2^28 - 1) or of machine bytes (24 bits);
// a negative value (unknown) has key 0, which the lineage does not track.
inline std::uint32_t lineage_key(std::int64_t identity) noexcept {
    return identity < 0 || identity >= (1LL << 30) ? 0 : static_cast<std::uint32_t>(identity) + 1;
}

// A move of t's counters, standing at now[i] (absolute: the higher of the
// counter and its reserved mark), to the identity `key`: each counter's
// target in target[i] (>= now[i]), the active identity's arc closed and
// key's opened there. random[i]: fresh random bits for counter i. Key 0
// (unknown): a random distance, nothing recorded. trust_returns false (a
// lineage that may not be the newest word on the identities it knows: a
// point-in-time restore's, a backup's, or one that reached a standby in
// the state file alone, before PostgreSQL 15): an identity it knows moves
// as a new one, at random, rather than into a narrow place that the
// identity may have gone on to in a history this one does not know.
// Which rule a move took (for its log line), and for a returning identity
// where it had left the first counter.
enum class LineageRule : std::uint8_t { unknown, copy, returning, returning_untrusted, new_identity };
struct LineageMoveTaken {
    LineageRule rule;
    std::uint64_t left_at;  // returning: the key's last place of counter 0
    std::uint32_t exact;    // returning: the slot's `exact` (not 0: continues at left_at, no gap)
};
LineageMoveTaken lineage_move(LineageTable &t, const LineageCycles &c, std::uint32_t key, const std::uint64_t *now,
                              const std::uint64_t *random, std::uint64_t *target, bool trust_returns = true) noexcept;

// What the host of an identity about to return knows of it: the marks its
// server last reserved there (a file outside the data directory, written
// before each refill's ids: reservations/host_marks.hpp), `used`, the
// entry clock of the leadership it wrote them in (the slot's `used` then),
// and `lifetime`, the token of the server start that wrote them.
// A lineage that lost the end of that leadership (an asynchronous
// failover, an immediate stop: WAL that never reached this history) has
// the identity leave at its last record's marks; the host's marks cover
// every draw, so the slot is taken to them, exactly (kExactHostMarks), and
// its arc grows by what they add. Only where they are that same
// leadership's and at or above the lineage's word for every counter: a
// file behind it (restored, or left by a setting changed meanwhile) says
// less than this history knows, and proves nothing. A clean stop the
// lineage holds is exact, and lower (the counters, not the marks): kept,
// unless the file is of a later start of its server (another lifetime
// token) and above the stop: that start drew past the stop, in WAL this
// history never got (taken_after_stop, or raised if of another
// leadership). A file of another leadership above the lineage's word (a
// later leadership this history lost whole, or an older one's file left
// behind: it cannot tell which) raises where the identity left to its
// marks, and the return keeps its gap above them (raised): never lower
// than without the file. Which it was:
enum class LineageWitness : std::uint8_t {
    taken,
    taken_after_stop,
    raised,
    not_returning,
    already_exact,
    behind
};
LineageWitness lineage_witness(LineageTable &t, const LineageCycles &c, std::uint32_t key, std::uint32_t used,
                               std::uint32_t lifetime, const std::uint64_t *marks) noexcept;

// The identity making ids changed without a move (a new node value by a
// reload, a lease taken after the start, a lineage not known before): the
// active arc closed at now, key's opened at now. An identity the lineage
// carried before counts what the counters passed meanwhile as its own.
void lineage_rebind(LineageTable &t, const LineageCycles &c, std::uint32_t key, const std::uint64_t *now) noexcept;

// A clean stop (a server shutting down, reservations/stop.hpp): the active
// identity's counters stand exactly at `exact` (every draw below, none
// at or past), which the record carrying this table says to every server
// that replays it. `lifetime`: the stopping server's token. Any later record of the counters makes it void
// (lineage_unstop): something may have drawn past it.
void lineage_stop(LineageTable &t, const LineageCycles &c, const std::uint64_t *exact,
                  std::uint32_t lifetime) noexcept;

// Forgets a clean stop; true if there was one.
bool lineage_unstop(LineageTable &t) noexcept;

// How much of counter i's cycle the active identity has used at now.
std::uint64_t lineage_active_arc(const LineageTable &t, const LineageCycles &c, int i,
                                 std::uint64_t now) noexcept;

// The slot of key in t, or nullptr.
const LineageSlot *lineage_find(const LineageTable &t, std::uint32_t key) noexcept;

}  // namespace locality
