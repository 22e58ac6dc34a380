#include "counters/generation_errors.hpp"

#include <cerrno>

#include "reservations/reservation.hpp"
#include "reservations/restore.hpp"
#include "reservations/state_file.hpp"
#include "identity/node.hpp"
#include "settings.hpp"

namespace locality_pg {

void report_in_recovery() {
    ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                    errmsg("cannot make server-wide ids during recovery"),
                    errdetail("This server is a standby or is recovering: its counters can be "
                              "behind the primary's, and its ids could repeat ids made there."),
                    errhint("Make ids on the primary. Reading and decoding ids works here.")));
    pg_unreachable();
}

void report_unreadable(SharedCounters *s, bool accepting) {
    const int read_errno = static_cast<int>(s->unreadable_errno);
    errno = read_errno;
    ereport(ERROR, (read_errno != 0 ? errcode_for_file_access() : errcode(ERRCODE_DATA_CORRUPTED),
                    read_errno != 0 ? errmsg("could not read \"%s\": %m", kStateFile)
                                    : errmsg("\"%s\" in the data directory is corrupt", kStateFile),
                    errdetail("The file holds the reserved marks of the server-wide counters; ids "
                              "made without them could repeat ids made before."),
                    accepting ? errhint("Nothing was accepted: put back a readable copy of the file (or remove "
                                        "it), then accept again.")
                              : errhint("Put back the newest copy of the file and accept it with SELECT "
                                        "locality_uuid_accept_state_file(); an older copy, or none, only after "
                                        "giving this server a new locality_uuid.node_id and "
                                        "locality_uuid.machine_name.")));
    pg_unreachable();
}

void report_unavailable(SharedCounters *s) {
    if (s->doubt != StateDoubt::none) report_doubt(s, ERROR);
    report_unreadable(s, /* accepting */ false);
}

void report_node_not_assigned(const char *why, bool hot_guid) {
    const HostFilesRequired required = host_files_required();
    const char *setting = hot_guid ? "locality_uuid.machine_name" : "locality_uuid.node_id";
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("%s: %s", required.reason, why),
                    errdetail("%s made with the server-wide counters need %s from a configuration file of this "
                              "host outside the data directory, which no copy of the data directory carries%s.",
                              hot_guid ? "Hot Guids" : "Locality UUIDs", setting,
                              required.leased_hint != nullptr
                                  ? ", and never one a registry may lease to another server"
                                  : ""),
                    required.leased_hint != nullptr
                        ? errhint("%s", required.leased_hint)
                        : errhint("Put %s in such a file (README, \"Node identity\") and reload.", setting)));
    pg_unreachable();
}

void report_identity_unreadable() {
    const char *file = setting_host_identity_file != nullptr ? setting_host_identity_file : "";
    // The file's own error: opened again here (no ereport between).
    FILE *f = fopen(file, "r");
    const int open_errno = f == nullptr ? errno : 0;
    if (f != nullptr) fclose(f);
    errno = open_errno;
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    open_errno != 0 ? errmsg("could not read the host identity file \"%s\": %m", file)
                                    : errmsg("the host identity file \"%s\" holds no identity", file),
                    errdetail("The server-wide counters are bound to this host's identity "
                              "(locality_uuid.host_identity_file); until it can be read, this server cannot tell "
                              "this host from another, and makes no server-wide id."),
                    errhint("Make the file readable by the server, its first line the host identity; ids are made "
                            "again without a restart.")));
    pg_unreachable();
}

void report_not_reserved() {
    errno = reservation_errno();
    ereport(ERROR, (errcode_for_file_access(),
                    errmsg("could not reserve ids in \"%s\": %m", reservation_failed_file()),
                    errdetail("The server-wide counters persist their reserved marks before "
                              "an id beyond them is made."),
                    errhint("Free space in the %s file system, or make the file writable; ids are made again as "
                            "soon as it can be written.",
                            strcmp(reservation_failed_file(), kStateFile) == 0
                                ? "data directory's"
                                : "locality_uuid.host_marks_file's")));
    pg_unreachable();
}

void report_failure(locality::GenStatus status, int64 millis) {
    switch (status) {
        case locality::GenStatus::time_out_of_range:
            ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                            errmsg("timestamp %s is out of range for a Locality UUID", unix_millis_text(millis)),
                            errdetail("A Locality UUID holds times from 1970-01-01 00:00:00 UTC to "
                                      "10889-08-02 05:31:50.655 UTC.")));
            break;
        case locality::GenStatus::window_too_old:
            ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                            errmsg("the clock is 64 or more sequential windows behind the newest run"),
                            errdetail("A sequential id for %s would restart a run that is no longer "
                                      "known, and could repeat ids.",
                                      unix_millis_text(millis)),
                            errhint("Sequential ids resume when the clock catches up (10 hours 40 "
                                    "minutes from the newest run); variable-mode ids still work. Check "
                                    "the system clock first: only if it is right now, and the newest "
                                    "run was made while it was wrongly ahead, "
                                    "locality_uuid_release_future_windows() releases that run.")));
            break;
        case locality::GenStatus::window_full:
            ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                            errmsg("cannot make more than 2147483648 sequential ids in one 10-minute window"),
                            errdetail("The window's run has no place left: it made 2147483648 ids, or "
                                      "its run was closed when a forward clock glitch was released."),
                            errhint("The next window starts a new run.")));
            break;
        case locality::GenStatus::not_reserved:
            report_not_reserved();
        default:
            ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                            errmsg("could not compute the sequential window base (MD5 unavailable)")));
    }
    pg_unreachable();
}

void report_hot_failure(locality::HotStatus status, int64 seconds, bool shared) {
    switch (status) {
        case locality::HotStatus::time_out_of_range:
            ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                            errmsg("timestamp %s is out of range for a Hot Guid", unix_millis_text(seconds * 1000)),
                            errdetail("A Hot Guid holds whole seconds from 1970-01-01 00:00:00 UTC to "
                                      "2106-02-07 06:28:15 UTC.")));
            break;
        case locality::HotStatus::second_full:
            ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                            errmsg("cannot make more than %u Hot Guids in one second",
                                   static_cast<unsigned>(locality::kHotIdsPerSecond)),
                            errdetail("The 24-bit counter of this %s's generator has no value left for "
                                      "this second, also after waiting for the next; ids are never "
                                      "repeated.",
                                      shared ? "server" : "backend"),
                            errhint("Retry later.")));
            break;
        default:
            report_not_reserved();
    }
    pg_unreachable();
}

}  // namespace locality_pg
