// The server log's quota for errors every id meets (log_quota.hpp). The
// decision is taken before the error is raised; the hook only carries it
// out, for the one ERROR that follows, so no other message is ever hidden.
#include "log_quota.hpp"

extern "C" {
#include "utils/elog.h"
#include "utils/timestamp.h"
}

#include <cstring>

namespace locality_pg {
namespace {

emit_log_hook_type prev_emit_log_hook = nullptr;
// Set by log_quota_take for the ERROR raised right after it (the start of
// its message), cleared by the next ERROR emitted: hidden if it is that
// one. (An error caught by an exception block is never emitted: the next
// one, if another, is logged as ever.)
const char *hide_next_error = nullptr;

void hide_quota_error(ErrorData *edata) {
    if (hide_next_error != nullptr && edata->elevel == ERROR) {
        if (edata->message != nullptr && strncmp(edata->message, hide_next_error, strlen(hide_next_error)) == 0)
            edata->output_to_server = false;
        hide_next_error = nullptr;
    }
    if (prev_emit_log_hook != nullptr) prev_emit_log_hook(edata);
}

}  // namespace

void log_quota_init(LogQuota *quota) {
    pg_atomic_init_u64(&quota->last_logged_us, 0);
    pg_atomic_init_u32(&quota->left_out, 0);
}

bool log_quota_take(LogQuota *quota, int interval_s, const char *message_start, uint32 *left_out) {
    const uint64 now = static_cast<uint64>(GetCurrentTimestamp());
    uint64 last = pg_atomic_read_u64(&quota->last_logged_us);
    // (One process wins the interval: the others see the new mark.)
    if (now >= last + static_cast<uint64>(interval_s) * USECS_PER_SEC &&
        pg_atomic_compare_exchange_u64(&quota->last_logged_us, &last, now)) {
        *left_out = pg_atomic_exchange_u32(&quota->left_out, 0);
        hide_next_error = nullptr;
        return true;
    }
    pg_atomic_fetch_add_u32(&quota->left_out, 1);
    *left_out = 0;
    hide_next_error = message_start;
    return false;
}

void install_log_quota_hook() {
    prev_emit_log_hook = emit_log_hook;
    emit_log_hook = hide_quota_error;
}

}  // namespace locality_pg
