// The server log's quota for errors every id meets (log_quota.hpp). The
// decision is taken before the error is raised; the hook only carries it
// out, for the one ERROR that follows, so no other message is ever hidden.
#include "log_quota.hpp"

extern "C" {
#include "utils/elog.h"
}

#include <cstring>
#include <ctime>

namespace locality_pg {
namespace {

emit_log_hook_type prev_emit_log_hook = nullptr;
// Set by log_quota_take for the ERROR raised right after it (its SQLSTATE
// and the start of its untranslated message), cleared by the next ERROR
// emitted: hidden if it is that one. (An error caught by an exception block
// is never emitted: the next one, if another, is logged as ever.)
const char *hide_next_error = nullptr;
int hide_next_sqlerrcode = 0;

void hide_quota_error(ErrorData *edata) {
    if (hide_next_error != nullptr && edata->elevel == ERROR) {
        if (edata->sqlerrcode == hide_next_sqlerrcode && edata->message_id != nullptr &&
            strncmp(edata->message_id, hide_next_error, strlen(hide_next_error)) == 0)
            edata->output_to_server = false;
        hide_next_error = nullptr;
    }
    if (prev_emit_log_hook != nullptr) prev_emit_log_hook(edata);
}

// Microseconds of the system's monotonic clock, the same in every process:
// a wall clock stepped back would silence the error for as long as the step.
uint64 monotonic_us() {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<uint64>(now.tv_sec) * 1000000u + static_cast<uint64>(now.tv_nsec) / 1000u;
}

}  // namespace

void log_quota_init(LogQuota *quota) {
    pg_atomic_init_u64(&quota->last_logged_us, 0);
    pg_atomic_init_u32(&quota->left_out, 0);
}

bool log_quota_take(LogQuota *quota, int interval_s, int sqlerrcode, const char *message_start, uint32 *left_out) {
    // (Shifted by one interval: a new quota's 0 lets the first one through,
    // however soon after the machine's boot.)
    const uint64 now = monotonic_us() + static_cast<uint64>(interval_s) * 1000000u;
    uint64 last = pg_atomic_read_u64(&quota->last_logged_us);
    // (One process wins the interval: the others see the new mark.)
    if (now >= last + static_cast<uint64>(interval_s) * 1000000u &&
        pg_atomic_compare_exchange_u64(&quota->last_logged_us, &last, now)) {
        *left_out = pg_atomic_exchange_u32(&quota->left_out, 0);
        hide_next_error = nullptr;
        return true;
    }
    pg_atomic_fetch_add_u32(&quota->left_out, 1);
    *left_out = 0;
    hide_next_error = message_start;
    hide_next_sqlerrcode = sqlerrcode;
    return false;
}

void install_log_quota_hook() {
    prev_emit_log_hook = emit_log_hook;
    emit_log_hook = hide_quota_error;
}

}  // namespace locality_pg
