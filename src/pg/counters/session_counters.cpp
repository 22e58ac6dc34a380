#include "counters/session_counters.hpp"

#include <unistd.h>

extern "C" {
#include "access/parallel.h"
}

#include "reservations/state_file.hpp"
#include "settings.hpp"

namespace locality_pg {

bool library_preloaded = false;

namespace {

// The settings this backend last passed the check with (-1: none yet):
// later draws look again only after a reload changed them. A refusal is
// not remembered, so that a fix takes effect at the next call.
int checked_for = -1;

int settings_now() {
    return (setting_shared_counter_explicit ? 2 : 0) | (setting_shared_counter ? 1 : 0);
}

bool chosen_per_session() {
    return library_preloaded ? !setting_shared_counter
                             : setting_shared_counter_explicit && !setting_shared_counter;
}

constexpr const char *kPreloadHint =
    "Add locality_uuid to shared_preload_libraries and restart the server. To make ids with counters "
    "of each session on purpose, set locality_uuid.shared_counter = off.";

// The WARNING of a library that is not preloaded: what it means, and the
// two ways out.
void warn_not_preloaded(const char *what) {
    ereport(WARNING, (errmsg("locality_uuid is not in shared_preload_libraries: %s", what),
                      errdetail("Ids of two sessions then differ by their pid field and by chance, and no "
                                "counter survives a restart, a crash or a failover."),
                      errhint("%s", kPreloadHint)));
}

}  // namespace

void check_session_counters() {
    if (checked_for == settings_now()) return;
    if (!chosen_per_session()) {
        if (setting_shared_counter_explicit && setting_shared_counter)
            ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                            errmsg("locality_uuid.shared_counter is on, but locality_uuid is not in "
                                   "shared_preload_libraries"),
                            errdetail("Server-wide counters need the library loaded at server start."),
                            errhint("%s", kPreloadHint)));
        // Backends run in the data directory: the file of the server-wide
        // counters there says this cluster has made ids with them.
        if (access(kStateFile, F_OK) == 0)
            ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                            errmsg("locality_uuid is not in shared_preload_libraries, but this cluster "
                                   "has made ids with server-wide counters"),
                            errdetail("The data directory holds \"%s\". Counters of each session would not "
                                      "continue past its reservations, and would not survive a restart or "
                                      "a failover.",
                                      kStateFile),
                            errhint("%s", kPreloadHint)));
        // Once per session: a parallel worker is a process of its own,
        // but its leader has said it.
        if (!IsParallelWorker()) warn_not_preloaded("this session makes ids with counters of its own");
    }
    checked_for = settings_now();
}

void warn_not_preloaded_at_create() {
    if (!chosen_per_session()) warn_not_preloaded("each session makes ids with counters of its own");
}

}  // namespace locality_pg
