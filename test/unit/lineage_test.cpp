// The lineage's moves (lineage.hpp): an identity that leads again continues
// just above its own ids, never onto them, however many moves come between.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "lineage.hpp"

using namespace locality;

namespace {

constexpr std::uint64_t kHot = 1ULL << 24;

// One counter's arcs of one identity, as residues mod the cycle: [start,
// start + length).
struct Arc {
    std::uint64_t start, length;
};

// Whether two arcs of a cycle share a residue.
bool overlap(const Arc &a, const Arc &b, std::uint64_t cycle) {
    const std::uint64_t from_a = (b.start - a.start) & (cycle - 1);  // b's start, seen from a's
    const std::uint64_t from_b = (a.start - b.start) & (cycle - 1);
    return from_a < a.length || from_b < b.length;
}

// A machine table (one counter, the Hot Guid draws) driven through
// leaderships: move to key, draw n from the target.
struct Drive {
    LineageTable t{};
    std::uint64_t at = 0;  // where the counter stands (absolute)
    std::mt19937_64 rng{20261129};
    std::uint64_t reserved = 0;  // how far the reserved mark stands above the counter at a move
    LineageMoveTaken taken{};
    std::uint64_t move(std::uint32_t key, bool trust_returns = true) {
        const std::uint64_t now[1] = {at + reserved};
        const std::uint64_t random[1] = {rng()};
        std::uint64_t target[1] = {};
        taken = lineage_move(t, kMachineCycles, key, now, random, target, trust_returns);
        EXPECT_GE(target[0], now[0]);
        at = target[0];
        return at;
    }
    // The server stops cleanly: its counter stands exactly at `at`.
    std::uint32_t lifetime = 1;  // the server start's token (a restart draws another)
    void stop() {
        const std::uint64_t exact[1] = {at};
        lineage_stop(t, kMachineCycles, exact, lifetime);
    }
    Arc draw(std::uint64_t n) {
        const Arc a{at & (kHot - 1), n};
        at += n;
        return a;
    }
};

}  // namespace

TEST(Lineage, AnIdentityThatLeadsAgainContinuesJustAboveWhereItLeft) {
    Drive d;
    d.move(1);  // X, new: a random point
    d.draw(1000);
    const std::uint64_t x_left = d.at;
    d.move(2);  // Y, new
    d.draw(5000);
    const std::uint64_t back = d.move(1);  // X again
    const std::uint64_t gap = (back - x_left) & (kHot - 1);
    EXPECT_GE(gap, kHot / 16);  // room for a lost tail of a refill
    EXPECT_LT(gap, kHot / 8);
    EXPECT_EQ(d.t.active, 1u);
    // Its arc: the 1000 drawn and the gap.
    EXPECT_EQ(lineage_active_arc(d.t, kMachineCycles, 0, d.at), 1000 + gap);
}

namespace {

// X and Y lead in turn, each drawing a 64th of the cycle per leadership.
// With the lineage each identity's leaderships lie on one arc of its own
// (draws and gaps): two of them meet only if more than a cycle of that arc
// lies between their starts. Returns the pairs that met within a cycle of
// arc (must be 0) and, in *early, the pairs among the first `first`
// leaderships of identity 1 that met at all.
int lineage_meetings(int trial, int rounds, int first, int *early) {
    Drive d;
    d.rng.seed(1000 + trial);
    std::vector<Arc> arcs[3];
    std::vector<std::uint64_t> along[3];  // where each leadership starts on its identity's arc
    std::uint64_t left[3] = {}, arc_end[3] = {};
    int within = 0;
    *early = 0;
    for (int round = 0; round < rounds; ++round) {
        for (std::uint32_t key : {1u, 2u}) {
            const std::uint64_t to = d.move(key);
            // The gap from where it left, on its own arc.
            const std::uint64_t gap = arcs[key].empty() ? 0 : (to - left[key]) & (kHot - 1);
            along[key].push_back(arc_end[key] + gap);
            arcs[key].push_back(d.draw(kHot / 64));
            arc_end[key] = along[key].back() + kHot / 64;
            left[key] = d.at;
        }
    }
    for (std::uint32_t key : {1u, 2u})
        for (std::size_t i = 0; i < arcs[key].size(); ++i)
            for (std::size_t j = i + 1; j < arcs[key].size(); ++j) {
                if (!overlap(arcs[key][i], arcs[key][j], kHot)) continue;
                if (along[key][j] + kHot / 64 - along[key][i] <= kHot) ++within;
                if (key == 1 && static_cast<int>(j) < first) ++*early;
            }
    return within;
}

// The same drive with every move a random quarter to three quarters of the
// cycle (before the lineage): the pairs among identity 1's first `first`
// leaderships that met.
int random_meetings(int trial, int first) {
    std::mt19937_64 rng(1000 + trial);
    std::uint64_t at = 0;
    std::vector<Arc> arcs;
    for (int round = 0; round < first; ++round) {
        for (std::uint32_t key : {1u, 2u}) {
            at += kHot / 4 + rng() % (kHot / 2);
            if (key == 1) arcs.push_back({at & (kHot - 1), kHot / 64});
            at += kHot / 64;
        }
    }
    int met = 0;
    for (std::size_t i = 0; i < arcs.size(); ++i)
        for (std::size_t j = i + 1; j < arcs.size(); ++j) met += overlap(arcs[i], arcs[j], kHot);
    return met;
}

}  // namespace

TEST(Lineage, SwitchoversNeverPutAnIdentityOnItsOwnIdsWithinACycleOfItsArc) {
    int early = 0, early_random = 0, trials_random = 0;
    for (int trial = 0; trial < 100; ++trial) {
        int e = 0;
        ASSERT_EQ(lineage_meetings(trial, 40, 5, &e), 0) << "trial " << trial;
        early += e;
        const int r = random_meetings(trial, 5);
        early_random += r;
        trials_random += r > 0;
    }
    // The first 5 leaderships of one identity (4 switchovers there and back):
    // never with the lineage; with random moves, in a good share of trials.
    EXPECT_EQ(early, 0);
    EXPECT_GE(trials_random, 20) << early_random << " meetings";
}

TEST(Lineage, AReturnKeepsItsGapAfterTheArcHasGoneRoundTheCycle) {
    Drive d;
    d.move(1);
    d.draw(100);
    for (int round = 0; round < 100; ++round) {
        d.move(2);
        d.draw(100);
        const std::uint64_t left = lineage_find(d.t, 1)->last[0];
        const std::uint64_t to = d.move(1);
        const std::uint64_t gap = (to - left) & (kHot - 1);
        ASSERT_GE(gap, kHot / 16) << "return " << round;
        ASSERT_LT(gap, kHot / 8) << "return " << round;
        d.draw(1);
    }
    EXPECT_EQ(lineage_active_arc(d.t, kMachineCycles, 0, d.at), kHot);  // the whole cycle, and no more
}

TEST(Lineage, ACopyOfTheActiveIdentityMovesWithinWhatItHasNotUsed) {
    // An identity that has made few ids: half the cycle to choose from, an
    // eighth from its origin, 3/8 short of its arc (room for a copy of it).
    for (int i = 0; i < 50; ++i) {
        Drive fresh;
        fresh.move(7);
        fresh.draw(10);
        fresh.rng.seed(i);
        const std::uint64_t before = fresh.at;
        const std::uint64_t dist = fresh.move(7) - before;
        EXPECT_GE(dist, kHot / 8);
        EXPECT_LT(dist, 5 * kHot / 8 - 10);
    }
    // The tiers' edges: three quarters unused, an eighth to 3/8 short of
    // the arc; just under three quarters, an eighth each way; just over a
    // quarter unused, exactly an eighth (the range is one place wide); a
    // quarter or less, a quarter to three quarters at random (an eighth
    // each way no longer fits).
    struct Edge {
        std::uint64_t drawn, least, below;
    };
    for (const Edge e : {Edge{kHot / 4, kHot / 8, 3 * kHot / 8}, Edge{kHot / 4 + 1, kHot / 8, 5 * kHot / 8 - 1},
                         Edge{3 * kHot / 4 - 1, kHot / 8, kHot / 8 + 1}, Edge{3 * kHot / 4, kHot / 4, 3 * kHot / 4}}) {
        bool below_least_seen = false;
        for (int i = 0; i < 50; ++i) {
            Drive edge;
            edge.move(7);
            edge.draw(e.drawn);
            edge.rng.seed(i);
            const std::uint64_t before = edge.at;
            const std::uint64_t dist = edge.move(7) - before;
            EXPECT_GE(dist, e.least) << e.drawn << " drawn";
            EXPECT_LT(dist, e.below) << e.drawn << " drawn";
            below_least_seen |= dist < kHot / 4;
        }
        EXPECT_EQ(below_least_seen, e.least < kHot / 4) << e.drawn << " drawn";
    }
    Drive d;
    d.move(7);
    d.draw(kHot / 2);  // half the cycle used
    const std::uint64_t before = d.at;
    for (int i = 0; i < 50; ++i) {
        Drive copy = d;
        copy.rng.seed(i);
        const std::uint64_t to = copy.move(7);
        const std::uint64_t dist = to - before;
        EXPECT_GE(dist, kHot / 8);              // an eighth of the cycle from its origin
        EXPECT_LT(dist, kHot / 2 - kHot / 8);  // an eighth short of its own arc, the other half
        EXPECT_EQ(copy.t.active, 7u);
    }
}

// A copy of a copy (an upgraded cluster copied from the old one, then its
// standby promoted: two copy moves of one identity), with reservations as
// the server makes them (a move and a restart start from the reserved
// mark, 2^20 Hot Guid draws a refill): each copy draws, each origin
// restarts and draws on, and no two sets of ids meet, for an origin that
// had drawn up to 3/16 of the cycle before the first copy (its reserved
// mark then up to a quarter). Before the
// copy rule kept room short of the arc, the second copy could land just
// below the first origin's ids (the copies suite's pg_upgrade check:
// 194,000 of 200,000 repeated).
TEST(Lineage, ACopyOfACopyStaysOffEveryOriginsIds) {
    constexpr std::uint64_t kRefill = kHot / 16;
    constexpr std::uint64_t n = 200000;
    struct Side {
        Drive d;
        std::vector<Arc> *ids;
        // count ids, then at the reserved mark: a refill reserves kRefill
        // past the draw that comes within half a refill of the mark
        // (reservation.hpp).
        void draw(std::uint64_t count) {
            const std::uint64_t from = d.at;
            ids->push_back(d.draw(count));
            d.at = from + kRefill + (count - 1) / (kRefill / 2) * (kRefill / 2);
        }
    };
    int trials = 0, second_in_middle = 0;
    for (int step = 0; step <= 11; ++step) {
        const std::uint64_t before = n + step * (3 * kRefill - n) / 11;  // n to 3 refills
        for (int trial = 0; trial < 1000; ++trial, ++trials) {
            std::vector<Arc> ids;
            Side old_cluster{Drive{}, &ids};
            old_cluster.d.rng.seed(trial);
            old_cluster.d.move(7);
            old_cluster.draw(before);
            Side upgraded = old_cluster;
            upgraded.d.rng.seed(trial + 1000000);
            upgraded.d.move(7);
            upgraded.draw(n);
            old_cluster.draw(n);  // the old cluster started again
            const std::uint64_t room = kHot - lineage_active_arc(upgraded.d.t, kMachineCycles, 0, upgraded.d.at);
            second_in_middle += room > kHot / 4;  // an eighth each way left for the second copy
            Side promoted = upgraded;
            promoted.d.rng.seed(trial + 2000000);
            promoted.d.move(7);
            promoted.draw(n);
            upgraded.draw(n);  // the upgraded cluster started again
            for (std::size_t a = 0; a < ids.size(); ++a)
                for (std::size_t b = a + 1; b < ids.size(); ++b)
                    ASSERT_FALSE(overlap(ids[a], ids[b], kHot))
                        << before << " drawn before, trial " << trial << ": ids " << a << " and " << b;
        }
    }
    std::printf("[ figures  ] %d copies of copies (the origin %llu to %llu drawn before, %llu by each side after): "
                "%d second copies kept an eighth each way, none met\n",
                trials, static_cast<unsigned long long>(n), static_cast<unsigned long long>(3 * kRefill),
                static_cast<unsigned long long>(n), second_in_middle);
    EXPECT_EQ(second_in_middle, trials);  // the first copy left room for the second
}

// A new identity, and a known one where the lineage may not be the newest
// word on it (a point-in-time restore's, or before PostgreSQL 15): as
// before the lineage, a random quarter to three quarters of the cycle.
TEST(Lineage, ANewOrUntrustedIdentityMovesByAQuarterToThreeQuartersOfTheCycle) {
    for (const bool returning : {false, true}) {
        for (int i = 0; i < 50; ++i) {
            Drive d;
            d.rng.seed(i);
            d.move(1);
            d.draw(10);
            if (returning) {
                d.move(2);
                d.draw(10);
            }
            const std::uint64_t before = d.at;
            const std::uint64_t to = returning ? d.move(1, /* trust_returns */ false) : d.move(2 + i);
            EXPECT_GE(to - before, kHot / 4);
            EXPECT_LT(to - before, 3 * kHot / 4);
            EXPECT_EQ(lineage_active_arc(d.t, kMachineCycles, 0, to), 0u);  // an arc of its own from there
        }
    }
}

TEST(Lineage, AnUnknownIdentityIsNotRecorded) {
    Drive d;
    d.move(1);
    d.draw(10);
    const std::uint64_t left = d.at;
    const std::uint64_t to = d.move(0);  // a random distance, as for a new identity
    EXPECT_GE(to - left, kHot / 4);
    EXPECT_EQ(d.t.active, 0u);
    ASSERT_NE(lineage_find(d.t, 1), nullptr);
    EXPECT_EQ(lineage_find(d.t, 1)->last[0], left);  // 1's arc closed where it left
    EXPECT_EQ(lineage_find(d.t, 0), nullptr);
}

TEST(Lineage, TheLeastRecentlyActiveIdentityGoesFirst) {
    Drive d;
    for (std::uint32_t key = 1; key <= kLineageSlots; ++key) {
        d.move(key);
        d.draw(10);
    }
    d.move(1);  // 1 active again: 2 is now the least recent
    d.move(100);
    EXPECT_NE(lineage_find(d.t, 1), nullptr);
    EXPECT_EQ(lineage_find(d.t, 2), nullptr);
    EXPECT_NE(lineage_find(d.t, 3), nullptr);
    EXPECT_NE(lineage_find(d.t, 100), nullptr);
}

TEST(Lineage, ARebindToAKnownIdentityCountsWhatTheCountersPassed) {
    Drive d;
    d.move(1);
    d.draw(100);
    d.move(2);
    d.draw(300);
    const std::uint64_t now[1] = {d.at};
    lineage_rebind(d.t, kMachineCycles, 1, now);  // node value 1 set back by a reload: no move
    EXPECT_EQ(d.t.active, 1u);
    const LineageSlot *x = lineage_find(d.t, 1);
    ASSERT_NE(x, nullptr);
    // Its arc: 100 drawn, then everything up to now (the move to 2 and 2's draws).
    EXPECT_EQ(lineage_active_arc(d.t, kMachineCycles, 0, d.at), 100 + (d.at - x->last[0]));
    lineage_rebind(d.t, kMachineCycles, 1, now);  // the same key: nothing
    EXPECT_EQ(d.t.active, 1u);
}

TEST(Lineage, NodeTablesMoveBothCountersOnTheirOwnCycles) {
    LineageTable t{};
    std::uint64_t now[2] = {5, 7};
    std::uint64_t random[2] = {123, 456};
    std::uint64_t target[2] = {};
    lineage_move(t, kNodeCycles, lineage_key(17), now, random, target);
    now[0] = target[0] + 1000;
    now[1] = target[1] + 2000;
    const std::uint64_t x_left[2] = {now[0], now[1]};
    lineage_move(t, kNodeCycles, lineage_key(18), now, random, target);
    now[0] = target[0] + 10;
    now[1] = target[1] + 10;
    lineage_move(t, kNodeCycles, lineage_key(17), now, random, target);
    for (int i = 0; i < 2; ++i) {
        const std::uint64_t cycle = kNodeCycles.cycle[i];
        const std::uint64_t gap = (target[i] - x_left[i]) & (cycle - 1);
        EXPECT_GE(gap, cycle / 16) << i;
        EXPECT_LT(gap, cycle / 8) << i;
        EXPECT_GE(target[i], now[i]) << i;
    }
}

TEST(Lineage, AMoveSaysWhichRuleItTook) {
    LineageTable t{};
    std::uint64_t at = 0;
    std::uint64_t target[1] = {};
    const std::uint64_t random[1] = {12345};
    auto move = [&](std::uint32_t key, bool trust_returns = true) {
        const std::uint64_t now[1] = {at};
        const LineageMoveTaken taken = lineage_move(t, kMachineCycles, key, now, random, target, trust_returns);
        at = target[0] + 100;  // 100 draws after each move
        return taken;
    };
    EXPECT_EQ(move(1).rule, LineageRule::new_identity);
    const std::uint64_t one_left = at;
    EXPECT_EQ(move(2).rule, LineageRule::new_identity);
    const LineageMoveTaken back = move(1);
    EXPECT_EQ(back.rule, LineageRule::returning);
    EXPECT_EQ(back.left_at, one_left);  // where 1 had left its counter
    EXPECT_EQ(move(1).rule, LineageRule::copy);
    EXPECT_EQ(move(2, /* trust_returns */ false).rule, LineageRule::returning_untrusted);
    EXPECT_EQ(move(0).rule, LineageRule::unknown);
}

namespace {

// Identity 1 and 2 lead in turn, each drawing n a leadership. Returns how
// many times identity 1 had returned to lead when one of its leaderships
// first met its first (their arcs share a residue), and in *round how many
// when its arc had first gone round the whole cycle (1000: not within 1000).
int returns_until_own_ids_met(int trial, std::uint64_t n, int *round) {
    Drive d;
    d.rng.seed(5000 + trial);
    d.move(1);
    const Arc first = d.draw(n);
    *round = 1000;
    for (int returns = 1; returns < 1000; ++returns) {
        d.move(2);
        d.draw(n);
        d.move(1);
        const Arc now = d.draw(n);
        if (*round == 1000 && lineage_active_arc(d.t, kMachineCycles, 0, d.at) == kHot) *round = returns;
        if (overlap(first, now, kHot)) return returns;
    }
    return 1000;
}

}  // namespace

// How long the lineage keeps a returning identity off its own ids: its arc
// grows by a gap of a sixteenth to an eighth of the cycle each return (room
// for a lost tail of a refill), plus its draws, and a leadership can meet
// an earlier one only once the arc has gone round (doc/guarantees.md quotes
// the figures printed). Bounds that follow from the gaps: the arc goes
// round after 8 to 17 returns with one id a leadership, and with a 64th of
// the cycle drawn each leadership (9/64 of the cycle a return at most) no
// leadership meets the first before the 7th return.
TEST(Lineage, AReturningIdentityMeetsItsFirstIdsOnlyAfterItsArcGoesRound) {
    for (const std::uint64_t n : {std::uint64_t{1}, kHot / 64}) {
        int met_least = 1000, met_most = 0, round_least = 1000, round_most = 0;
        for (int trial = 0; trial < 200; ++trial) {
            int round = 0;
            const int met = returns_until_own_ids_met(trial, n, &round);
            ASSERT_GE(met, round) << "trial " << trial << ": met its first ids before its arc went round";
            met_least = met < met_least ? met : met_least;
            met_most = met > met_most ? met : met_most;
            round_least = round < round_least ? round : round_least;
            round_most = round > round_most ? round : round_most;
        }
        std::printf("[ figures  ] %llu drawn a leadership: the arc round after %d to %d returns, the first ids met "
                    "after %d to %d (200 trials; 1000: not within 1000)\n",
                    static_cast<unsigned long long>(n), round_least, round_most, met_least, met_most);
        if (n == 1) {
            EXPECT_GE(round_least, 8);
            EXPECT_LE(round_most, 17);
        } else {
            EXPECT_GE(met_least, 7);
        }
    }
}

// A clean stop (reservations/stop.hpp) says where the counter stood, every
// draw below it: the identity leaves its arc there, not at its reserved
// mark, and a return continues there with no gap.
TEST(Lineage, AnIdentityStoppedCleanlyContinuesExactlyWhereItStopped) {
    Drive d;
    d.reserved = kHot / 16;  // a Hot Guid refill's mark, ahead of the draws
    d.move(1);
    d.draw(1000);
    const std::uint64_t x_stopped = d.at;
    d.stop();
    d.move(2);
    EXPECT_EQ(d.t.stopped, 0u);  // the move consumed it
    d.draw(5000);
    const std::uint64_t y_stopped = d.at;
    d.stop();
    const std::uint64_t back = d.move(1);
    EXPECT_EQ(d.taken.rule, LineageRule::returning);
    EXPECT_EQ(d.taken.exact, kExactStop);
    EXPECT_EQ(d.taken.left_at, x_stopped);
    EXPECT_EQ((back - x_stopped) & (kHot - 1), 0u);
    EXPECT_EQ(lineage_active_arc(d.t, kMachineCycles, 0, d.at), 1000u);  // its draws, nothing else
    // A stop made void by a later record (something may have drawn past it):
    // the mark and the gap again.
    d.draw(700);
    d.stop();
    EXPECT_TRUE(lineage_unstop(d.t));
    const std::uint64_t x_mark = d.at + d.reserved;
    d.move(2);
    EXPECT_EQ(d.taken.exact, kExactStop);  // 2 had stopped cleanly: exactly there
    EXPECT_EQ((d.at - y_stopped) & (kHot - 1), 0u);
    d.draw(10);
    d.move(1);
    EXPECT_EQ(d.taken.exact, 0u);
    const std::uint64_t gap = (d.at - x_mark) & (kHot - 1);
    EXPECT_GE(gap, kHot / 16);
    EXPECT_LT(gap, kHot / 8);
}

// Clean switchovers back and forth: each identity's arc grows by its draws
// alone, so its ids meet its first only once it has drawn a whole cycle
// (the counter field's limit, moves or not), where gaps met them after 8
// to 17 returns (AReturningIdentityMeetsItsFirstIdsOnlyAfterItsArcGoesRound).
TEST(Lineage, CleanSwitchoversMeetAnIdentitysFirstIdsOnlyOnceItHasDrawnACycle) {
    for (const std::uint64_t n : {std::uint64_t{1}, kHot / 64}) {
        Drive d;
        d.reserved = kHot / 16;
        d.move(1);
        const Arc first = d.draw(n);
        int met = 1000;
        for (int returns = 1; returns < 1000 && met == 1000; ++returns) {
            d.stop();
            d.move(2);
            d.draw(n);
            d.stop();
            d.move(1);
            ASSERT_EQ(d.taken.exact, kExactStop);
            const Arc now = d.draw(n);
            ASSERT_EQ(lineage_active_arc(d.t, kMachineCycles, 0, d.at), std::min<std::uint64_t>(kHot, (returns + 1) * n));
            if (overlap(first, now, kHot)) met = returns;
        }
        std::printf("[ figures  ] %llu drawn a leadership, clean stops: the first ids met after %d returns (1000: "
                    "not within 1000)\n",
                    static_cast<unsigned long long>(n), met);
        EXPECT_EQ(met, n == 1 ? 1000 : 64);
    }
}

// A return after a leadership whose end this history lost (an asynchronous
// failover: the last refills' records never reached it): the lineage has
// the identity leave at its last record's mark, and the return skips a
// sixteenth to an eighth of the cycle above it. Its host's marks file
// (reservations/host_marks.hpp) holds every refill: taken where it is of
// that leadership and not behind the lineage, the return continues
// exactly at it, and the arc grows by the lost tail and nothing more.
TEST(Lineage, AHostsMarksOfTheLastLeadershipPlaceAReturnExactly) {
    Drive d;
    d.reserved = kHot / 16;
    d.move(1);
    const std::uint32_t used = lineage_find(d.t, 1)->used;
    d.draw(1000);
    const std::uint64_t known = d.at + d.reserved;  // the mark of the last record this history got
    d.move(2);                                      // the failover: 1 leaves there
    d.draw(3000);
    const std::uint64_t host[1] = {known + 5 * kHot / 16};  // 1 drew on, refilling 5 times, unseen
    // Another leadership's file, or one behind the lineage: nothing taken.
    // Another leadership's file, not behind: where 1 left is raised to it,
    // the gap kept above it; behind: nothing.
    const std::uint64_t other[1] = {known + 1000};
    EXPECT_EQ(lineage_witness(d.t, kMachineCycles, 1, used + 1, d.lifetime, other), LineageWitness::raised);
    EXPECT_EQ(lineage_find(d.t, 1)->last[0], known + 1000);
    EXPECT_EQ(lineage_find(d.t, 1)->exact, 0u);
    const std::uint64_t behind[1] = {known - 1};
    EXPECT_EQ(lineage_witness(d.t, kMachineCycles, 1, used, d.lifetime, behind), LineageWitness::behind);
    EXPECT_EQ(lineage_witness(d.t, kMachineCycles, 1, used + 1, d.lifetime, behind), LineageWitness::behind);
    EXPECT_EQ(lineage_witness(d.t, kMachineCycles, 2, used, d.lifetime, host), LineageWitness::not_returning);  // active
    EXPECT_EQ(lineage_witness(d.t, kMachineCycles, 3, used, d.lifetime, host), LineageWitness::not_returning);  // unknown
    EXPECT_EQ(lineage_find(d.t, 1)->last[0], known + 1000);
    EXPECT_EQ(lineage_find(d.t, 1)->exact, 0u);
    // Its own: taken; a second look finds it exact already.
    EXPECT_EQ(lineage_witness(d.t, kMachineCycles, 1, used, d.lifetime, host), LineageWitness::taken);
    EXPECT_EQ(lineage_witness(d.t, kMachineCycles, 1, used, d.lifetime, host), LineageWitness::already_exact);
    const std::uint64_t back = d.move(1);
    EXPECT_EQ(d.taken.rule, LineageRule::returning);
    EXPECT_EQ(d.taken.exact, kExactHostMarks);
    EXPECT_EQ(d.taken.left_at, host[0]);
    EXPECT_EQ((back - host[0]) & (kHot - 1), 0u);
    EXPECT_EQ(lineage_active_arc(d.t, kMachineCycles, 0, d.at), 1000 + d.reserved + 5 * kHot / 16);  // (+1000, +the rest)
    // A clean stop the lineage holds is kept: exact, and at the counter,
    // where the file is of the start that stopped, of another leadership,
    // or behind the stop.
    d.draw(10);
    const std::uint64_t stopped = d.at;
    d.stop();
    d.move(2);
    const std::uint32_t again = lineage_find(d.t, 1)->used;
    const std::uint64_t marks[1] = {stopped + d.reserved};
    const std::uint64_t below[1] = {stopped - 1};
    const std::uint64_t at_stop[1] = {stopped};
    EXPECT_EQ(lineage_witness(d.t, kMachineCycles, 1, again, d.lifetime, marks), LineageWitness::already_exact);
    EXPECT_EQ(lineage_witness(d.t, kMachineCycles, 1, again, d.lifetime + 1, below), LineageWitness::already_exact);
    EXPECT_EQ(lineage_witness(d.t, kMachineCycles, 1, again + 1, d.lifetime + 1, at_stop),
              LineageWitness::already_exact);  // nothing past the stop
    EXPECT_EQ(lineage_find(d.t, 1)->last[0], stopped);
    EXPECT_EQ(lineage_find(d.t, 1)->exact, kExactStop);
    EXPECT_EQ(lineage_find(d.t, 1)->stopped_lifetime, d.lifetime);
    // A file of a later start of the server that stopped (it started
    // again and drew past the stop, in WAL this history never got): its
    // marks, exactly.
    const std::uint64_t later[1] = {stopped + d.reserved + 1000};
    EXPECT_EQ(lineage_witness(d.t, kMachineCycles, 1, again, d.lifetime + 1, later),
              LineageWitness::taken_after_stop);
    const std::uint64_t back_again = d.move(1);
    EXPECT_EQ(d.taken.exact, kExactHostMarks);
    EXPECT_EQ((back_again - later[0]) & (kHot - 1), 0u);
    // A later leadership of 1's, after a clean stop, that this history
    // lost whole (another start, another entry clock, above the stop):
    // raised to its marks, the gap kept above them.
    d.draw(10);
    const std::uint64_t stopped_again = d.at;
    d.stop();
    d.move(2);
    const std::uint32_t last_used = lineage_find(d.t, 1)->used;
    const std::uint64_t lost[1] = {stopped_again + kHot / 8};
    EXPECT_EQ(lineage_witness(d.t, kMachineCycles, 1, last_used + 5, d.lifetime + 2, lost), LineageWitness::raised);
    EXPECT_EQ(lineage_find(d.t, 1)->exact, 0u);
    const std::uint64_t above_lost = d.move(1);
    EXPECT_EQ(d.taken.exact, 0u);
    const std::uint64_t gap = (above_lost - lost[0]) & (kHot - 1);
    EXPECT_GE(gap, kHot / 16);
    EXPECT_LT(gap, kHot / 8);
}

// Returns after failovers (each leadership's end unknown to the next
// history: no clean stop), identity 1 drawing 1 to 2^19 ids a leadership
// at random, its reserved-but-unused refill (2^20, a Hot Guid refill) left
// behind each time: how many returns until it draws onto any id it drew
// before. By the gaps (a sixteenth to an eighth of the cycle above the
// marks) against by its host's marks (exactly at them): here no tail is
// lost, the gaps' best case; a lost tail longer than the gap repeats at once.
int returns_until_any_repeat(int trial, bool by_host) {
    Drive d;
    d.rng.seed(9000 + trial);
    d.reserved = kHot / 16;
    std::mt19937_64 sizes(trial);
    const auto some = [&sizes] { return 1 + sizes() % (kHot / 32); };
    std::vector<Arc> drawn;
    d.move(1);
    drawn.push_back(d.draw(some()));
    for (int returns = 1; returns < 1000; ++returns) {
        const std::uint64_t marks[1] = {d.at + d.reserved};
        const std::uint32_t used = lineage_find(d.t, 1)->used;
        d.move(2);
        d.draw(some());
        if (by_host) {
            EXPECT_EQ(lineage_witness(d.t, kMachineCycles, 1, used, d.lifetime, marks), LineageWitness::taken);
        }
        d.move(1);
        EXPECT_EQ(d.taken.exact, by_host ? kExactHostMarks : 0u);
        const Arc now = d.draw(some());
        for (const Arc &a : drawn)
            if (overlap(a, now, kHot)) return returns;
        drawn.push_back(now);
    }
    return 1000;
}

TEST(Lineage, ReturnsByTheHostsMarksRepeatLaterThanReturnsByTheGaps) {
    int least[2] = {1000, 1000}, most[2] = {0, 0};
    for (int trial = 0; trial < 100; ++trial)
        for (int by_host = 0; by_host < 2; ++by_host) {
            const int r = returns_until_any_repeat(trial, by_host != 0);
            least[by_host] = std::min(least[by_host], r);
            most[by_host] = std::max(most[by_host], r);
        }
    std::printf("[ figures  ] failover returns until a repeat (100 trials, up to 2^19 ids a leadership, a refill "
                "of 2^20 unused at each end): by the gaps %d to %d, by the host's marks %d to %d\n",
                least[0], most[0], least[1], most[1]);
    EXPECT_GE(least[1], 2 * least[0]);
}
