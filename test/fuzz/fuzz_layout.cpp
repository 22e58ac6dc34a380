// Fuzzes decoding of arbitrary 16-byte ids and the generator with arbitrary
// clocks.  Invariants: Locality ids re-encode to the same bytes; v1 ids
// re-form from their decoded fields; generated ids decode to what was put in.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "generator.hpp"
#include "locality_id.hpp"
#include "uuid_v1.hpp"

using namespace locality;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    if (size < 16) return 0;
    Uuid16 u;
    std::memcpy(u.bytes, data, 16);

    if (is_locality(u)) {
        const LocalityFields f = decode_locality(u);
        const Uuid16 back = encode_locality(f);
        if (std::memcmp(back.bytes, u.bytes, 16) != 0) std::abort();
        if (nibble_reverse(nibble_reverse(f.counter_written)) != f.counter_written) std::abort();
    }
    if (is_rfc_v1(u)) {
        const std::uint64_t ticks = v1_ticks(u);
        const std::int64_t micros = unix_micros_from_v1_ticks(ticks);
        Uuid16 again;
        if (form_v1_nth(micros, static_cast<std::int64_t>(ticks % 10) * 16384 + v1_clock_seq(u), u.bytes + 10,
                        &again) != V1Status::ok ||
            std::memcmp(again.bytes, u.bytes, 16) != 0)
            std::abort();
    }

    // The rest drives the generator: a clock value and a mode per 9 bytes.
    PlainCounters cells;
    WindowBaseCache bases;
    std::memcpy(&cells.variable_start, data, 4);
    for (std::size_t at = 16; at + 9 <= size; at += 9) {
        std::int64_t now;
        std::memcpy(&now, data + at, 8);
        now >>= (data[at + 8] >> 2) & 63;  // also reach small and negative times
        const Mode mode = data[at + 8] & 1 ? Mode::sequential : Mode::variable;
        const bool at_time = data[at + 8] & 2;
        Uuid16 id;
        const GenStatus s = at_time ? make_id_at(cells, bases, mode, now, {7, 0xABCDEF1}, &id)
                                    : make_clock_id(cells, bases, mode, now, {7, 0xABCDEF1}, &id);
        // Out-of-range times fail as such; a sequential clock id may also
        // find its window 64 or more windows behind the newest run.
        if ((s == GenStatus::time_out_of_range) == millis_in_range(now)) std::abort();
        if (s == GenStatus::window_too_old && (at_time || mode != Mode::sequential)) std::abort();
        if (s != GenStatus::ok) continue;
        const LocalityFields f = decode_locality(id);
        if (!is_locality(id) || f.pid != 7 || f.node != 0xABCDEF1) std::abort();
        // Every id carries exactly the time it was made for.
        if (f.millis != static_cast<std::uint64_t>(now)) std::abort();
    }
    return 0;
}
