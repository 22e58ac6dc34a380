// A process's view of a counter shared by many processes (the server-wide
// counters in shared memory), taking draws kBlock at a time: one atomic add
// on the shared cell per kBlock ids, so processes on different cores rarely
// touch the same cache line, and handing them out one by one. It is a cell
// (counter_cells.hpp) itself, so the generators run on it unchanged.
//
// For a sequential run the draws carry their window (high 32 bits): while a
// block lasts, load() answers from it, as the run as this process may use
// it; the draws were allocated to this process, so using them stays unique
// even after a newer window took the slot. A block of another window than
// the caller's is dropped. Draws of a dropped block, or of a block left when
// the process exits, are skipped, never reused.
#pragma once

#include <cstdint>

namespace locality {

template <class SharedCell, std::uint64_t kBlock = 256>
struct BlockCell {
    SharedCell shared;
    bool windowed = false;    // a sequential run: (window + 1) << 32 | index
    std::uint64_t next = 0;   // next draw of the cached block
    std::uint64_t end = 0;    // one past its last draw
    std::uint64_t loaded = 0;  // what load() last returned

    std::uint64_t load() noexcept {
        if (windowed && next < end) return loaded = next;
        return loaded = shared.load();
    }
    std::uint64_t fetch_add(std::uint64_t delta) noexcept {
        // Only single draws come from the block; a run's block must be of
        // the window the caller just loaded (draw_run checks the window of
        // every draw as well: this only saves wasting one).
        if (delta == 1 && next < end && (!windowed || (next >> 32) == (loaded >> 32))) return next++;
        const std::uint64_t before = shared.fetch_add(delta == 1 ? kBlock : delta);
        if (delta == 1) {
            next = before + 1;
            end = before + kBlock;
        }
        return before;
    }
    bool compare_exchange(std::uint64_t &expected, std::uint64_t desired) noexcept {
        drop();
        return shared.compare_exchange(expected, desired);
    }
    // Forgets the cached block (its draws are skipped): the shared cell was
    // moved back under it (a released run, src/pg/release_runs.hpp).
    void drop() noexcept { next = end = 0; }
};

}  // namespace locality
